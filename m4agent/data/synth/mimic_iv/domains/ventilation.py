"""Respiratory support of an ICU stay: invasive ventilation, NIV, high flow, oxygen, room air.

The scenario's ``vent`` decides the path; its charted rows are what mimic-code's ventilation
concept reads (the oxygen delivery device, the ventilator mode of Drager or Hamilton, the O2
flow sharing a device's charttime) and lay out every status it tells apart: extubation to high
flow then nasal cannula, a tracheostomy weaned to trach mask, two nasal-cannula episodes split
by the 14-hour gap, unclassified modes and devices, a device charted twice at one time.
``ventilation_end`` is planned before any charting because GCS (verbal "No Response-ETT"),
blood gases (the vented FiO2, ``fio2_percent``), infusions (sedation) and procedures (the
ventilation event) read it from the stay.
"""

from __future__ import annotations

import numpy as np

from m4agent.data.synth.mimic_iv import catalog as cat
from m4agent.data.synth.mimic_iv.context import HOUR, MIN, IcuStay, Patient
from m4agent.data.synth.mimic_iv.queues import ChartQueue

# O2 flow (L/min) charted alongside each device; intubated patients have none (the ventilator mode counts)
_DEVICE_FLOW: dict[str, tuple[float, float]] = {
    "Tracheostomy tube": (5, 10), "Trach mask ": (8, 12), "T-piece": (8, 12), "High flow nasal cannula": (40, 60),
    "Nasal cannula": (2, 6), "Face tent": (8, 12), "Non-rebreather": (12, 15), "Aerosol-cool": (8, 12),
    "Venti mask ": (6, 10), "Medium conc mask ": (6, 10), "Ultrasonic neb": (6, 10), "Vapomist": (20, 40),
    "Oxymizer": (4, 8), "High flow neb": (10, 15), "None": (0, 0), "Other": (2, 4),
}


def ventilation_end(patient: Patient, st: IcuStay) -> int:
    """When invasive ventilation of the first stay ends, on the minute (0 = not ventilated)."""
    scen = patient.scen
    until = 0
    if scen.vent == "ett" and st.first:
        until = st.intime + int(min(st.outtime - st.intime - 18 * HOUR, patient.rng.uniform(30, 70) * HOUR))
    if scen.vent == "trach" and st.first:
        until = st.intime + int((st.outtime - st.intime) * 0.5)
    return until - until % MIN  # charted on the minute


def fio2_percent(patient: Patient, st: IcuStay, vented: np.ndarray) -> np.ndarray:
    """The FiO2 (percent) at times ``vented`` or not, set by the stay's respiratory SOFA level."""
    lv = st.levels.get("resp", 0)
    vent_fio2 = (40, 50, 50, 70, 90)[lv] if patient.scen.vent in ("ett", "trach") else 40
    return np.where(vented, vent_fio2, (21, 30, 40, 60, 80)[lv])


def chart_respiratory(patient: Patient, st: IcuStay, chart: ChartQueue) -> None:
    """The oxygen devices, O2 flows, ventilator modes and settings, and FiO2 charted during one stay."""
    rng, scen, g = patient.rng, patient.scen, patient.grade
    hours = (st.outtime - st.intime) / HOUR
    dev_rows: list[tuple[int, str]] = []
    if scen.vent in ("ett", "trach") and st.vent_until:
        tv = patient.grid(st, 1.0, -0.5 if scen.vent == "ett" else 0.0, st.vent_until)
        tv = tv[tv >= st.intime - HOUR]
        device = "Endotracheal tube" if scen.vent == "ett" else "Tracheostomy tube"
        for x in (tv[::2] if scen.vent == "ett" else tv):
            dev_rows.append((int(x), device))
        hamilton = patient.variant % 4 == 0
        if hamilton:
            modes = np.array(cat.HAMILTON_INVASIVE, dtype=object)[np.arange(tv.size) % 2 + g % 3]
            chart.add(229314, tv, None, modes)
            chart.add(223848, tv[::6], None, "Hamilton")
        else:
            modes = np.array(cat.INVASIVE_MODES, dtype=object)[(np.arange(tv.size) // 6 + g) % len(cat.INVASIVE_MODES)]
            chart.add(223849, tv, None, modes)
            chart.add(223848, tv[::6], None, "Drager")
        vented = np.ones(tv.size, dtype=bool)
        fio2 = fio2_percent(patient, st, vented)
        style = (patient.index + g) % 3
        fio2_charted = fio2 / 100.0 if style == 1 else fio2.astype(float)  # FiO2 as fraction or percent
        chart.add(223835, tv, fio2_charted)
        chart.add(220339, tv, np.round(rng.uniform(5, 12, tv.size)), uom="cmH2O")
        chart.add(224684, tv, 450.0, uom="mL")
        chart.add(224685, tv, np.round(rng.uniform(380, 520, tv.size)), uom="mL")
        chart.add(224688, tv, 16.0, uom="insp/min")
        chart.add(224687, tv, np.round(rng.uniform(6, 11, tv.size), 1), uom="L/min")
        chart.add(224696, tv[::4], np.round(rng.uniform(15, 30, tv[::4].size)), uom="cmH2O")
        if tv.size > 4:  # an unclassified vent mode between two readings
            chart.add(223849, np.array([tv[3] + 20 * MIN]), None, cat.UNCLASSIFIED_MODES[g % 2])
        after = st.vent_until + 30 * MIN
        if scen.vent == "ett":
            if g % 2 == 0:  # extubated to high flow, then nasal cannula, then room air
                dev_rows += [(after + k * HOUR, "High flow nasal cannula") for k in range(0, 6, 2)]
                after += 6 * HOUR
            dev_rows += [(after + k * 2 * HOUR, "Nasal cannula") for k in range(3)]
            after += 6 * HOUR
            dev_rows += [(after + k * 3 * HOUR, "None") for k in range(2)]
        else:
            dev_rows += [(after + k * 2 * HOUR, "Trach mask ") for k in range(6)]
            dev_rows += [(after + 30 * MIN, "T-piece")]
    elif scen.vent == "niv":
        t0 = st.intime + 15 * MIN
        for k in range(6):
            dev_rows.append((t0 + k * 2 * HOUR, "Bipap mask " if g % 2 == 0 else "CPAP mask "))
        if g == 1:
            chart.add(229314, np.array([t0 + 3 * HOUR, t0 + 5 * HOUR]), None, cat.HAMILTON_NIV[g % 3])
        chart.add(227582, np.array([t0 + k * 2 * HOUR for k in range(6)]), 10.0, uom="L/min")
        fio2 = (21, 30, 40, 60, 80)[st.levels.get("resp", 0)]
        chart.add(223835, np.array([t0 + k * HOUR for k in range(12)]), float(fio2))
        t1 = t0 + 12 * HOUR
        dev_rows += [(t1 + k * 2 * HOUR, "Venti mask ") for k in range(3)]
        # nasal cannula, a gap of 16 hours, nasal cannula again: two episodes (14-hour rule)
        t2 = t1 + 6 * HOUR
        dev_rows += [(t2 + k * 2 * HOUR, "Nasal cannula") for k in range(3)]
        t3 = t2 + 4 * HOUR + 16 * HOUR
        dev_rows += [(t3 + k * 2 * HOUR, "Nasal cannula") for k in range(3)]
    elif scen.vent == "hfnc":
        t0 = st.intime + 20 * MIN
        dev_rows += [(t0 + k * 2 * HOUR, "High flow nasal cannula") for k in range(5)]
        chart.add(223835, np.array([t0 + k * 2 * HOUR for k in range(5)]), 0.6)  # fraction
        t1 = t0 + 10 * HOUR
        dev_rows += [(t1 + k * 3 * HOUR, "Nasal cannula") for k in range(4)]
    elif scen.vent == "o2":
        t = patient.grid(st, 3.0, 0.3)
        device = cat.SUPPLEMENTAL_DEVICES[(patient.variant + g) % len(cat.SUPPLEMENTAL_DEVICES)]
        for x in t[: max(2, int(len(t) * 0.6))]:
            dev_rows.append((int(x), device))
        if len(t) > 3:
            dev_rows.append((int(t[1]), "Face tent" if device != "Face tent" else "Nasal cannula"))  # two devices
            dev_rows.append((int(t[2]), device))  # duplicated device row at one charttime
        for x in t[max(2, int(len(t) * 0.6)):]:
            dev_rows.append((int(x), "None"))
        flows = t[: max(2, int(len(t) * 0.6))]
        if g == 2 and flows.size > 1:
            chart.add(223835, flows[:1], 4.0)  # mistyped flow in the FiO2 field: cleaned to NULL
        if patient.variant % 5 == 0 and flows.size > 1:
            chart.add(227287, flows[:1], 2.0, uom="L/min")
    elif scen.vent == "room" and hours > 8:
        t = patient.grid(st, 8.0, 1.0)[:3]
        dev_rows += [(int(x), "None") for x in t]
        if g == 1 and t.size:
            dev_rows.append((int(t[0]) + 30 * MIN, cat.UNCLASSIFIED_DEVICES[1]))
    if dev_rows:
        times = np.array([x for x, _ in dev_rows], dtype=np.int64)
        values = np.array([d for _, d in dev_rows], dtype=object)
        keep = (times > st.intime - HOUR) & (times < st.outtime)
        chart.add(226732, times[keep], None, values[keep])
        # O2 flow charted with the device (mimic-code keeps a device row only when a flow shares its time)
        flow_at: dict[int, float] = {}
        for x, device in zip(times[keep].tolist(), values[keep].tolist(), strict=True):
            if x not in flow_at and device in _DEVICE_FLOW:
                lo, hi = _DEVICE_FLOW[device]
                flow_at[x] = float(round(rng.uniform(lo, hi)))
        if flow_at:
            chart.add(223834, np.array(list(flow_at), dtype=np.int64), np.array(list(flow_at.values())),
                      uom="L/min")
