"""Blood gases of an ICU stay: arterial PaO2, PaCO2, pH, FiO2 and the rest, and a venous gas.

On the first stay one of the first four arterial gases carries a PaO2/FiO2 ratio inside the
band of the planted respiratory SOFA level (the bands below); the others sit above the band.
The FiO2 is the one the ventilation domain charts at that time, travelling with the gas as a
percent or a fraction, or left to the vent setting. Scenarios without gases (``gas=False``)
have none unless the respiratory level is planted above 0.
"""

from __future__ import annotations

import numpy as np

from m4agent.data.synth.mimic_iv.context import HOUR, MIN, IcuStay, Patient
from m4agent.data.synth.mimic_iv.domains.ventilation import fio2_percent
from m4agent.data.synth.mimic_iv.queues import LabQueue

# PaO2/FiO2 band per respiratory SOFA level 0-4
PF_BANDS = ((420, 520), (310, 390), (210, 290), (110, 190), (55, 95))


def blood_gases(patient: Patient, st: IcuStay, lab_queue: LabQueue, p: dict[str, float]) -> None:
    """Arterial gases every 6 hours on the first day, then every 12, and a venous gas on a first stay
    that is not ventilated; ``p`` is the stay's profile (``labs.stay_profile``)."""
    if not (patient.scen.gas or st.levels.get("resp", 0) > 0):
        return
    rng, scen, g = patient.rng, patient.scen, patient.grade
    level = st.levels.get("resp", 0)
    offsets = [2.5, 8.5, 14.5, 20.5] + [32.5 + 12 * k for k in range(int(max(0, (st.outtime - st.intime) / HOUR - 33) // 12) + 1)]
    times = [st.intime + int(h * HOUR) + patient.minutes(0, 10) for h in offsets if st.intime + h * HOUR < st.outtime]
    worst = int(rng.integers(0, min(4, len(times)))) if st.first and times else -1
    vented_stay = scen.vent in ("ett", "trach")
    n = len(times)
    if n:
        t = np.array(times, dtype=np.int64)
        vented = (t < st.vent_until) if st.vent_until else np.zeros(n, dtype=bool)
        fio2 = fio2_percent(patient, st, vented).astype(float)
        band = PF_BANDS[level]
        pf = np.where(np.arange(n) == worst, rng.uniform(*band, n), rng.uniform(band[1] + 20, band[1] + 160, n))
        po2 = np.round(pf * fio2 / 100.0)
        pco2 = np.round(p["pco2"] + rng.normal(0, 1.5, n))
        k = np.arange(n)
        # FiO2 travels with the gas (percent or fraction) unless a vent setting was charted
        with_fio2 = ~(vented & vented_stay) | (k % 2 == 1)
        gas_fio2 = np.where((patient.index + k) % 3 == 0, fio2 / 100.0, fio2)
        aado2 = np.round(fio2 / 100 * 713 - pco2 / 0.8 - po2)
        values = np.column_stack([
            np.full(n, np.nan), po2, pco2, np.round(p["ph"] + rng.normal(0, 0.01, n), 2),
            np.round(rng.uniform(-6, 3, n)), np.round(rng.uniform(18, 30, n)),
            np.round(p["lactate"] * rng.normal(1, 0.1, n), 1),
            np.where(with_fio2, gas_fio2, np.nan), np.where(vented & (fio2 >= 50), aado2, np.nan)])
        lab_queue.series(st.hadm_id, t, [52033, 50821, 50818, 50820, 50802, 50804, 50813, 50816, 50801], values,
                         ["ART.", None, None, None, None, None, None, None, None])
    if st.first and times and not vented_stay:  # a venous gas: not used by the arterial-only scores
        # drawn with the first arterial gas (one charttime, two specimens) on every other stay
        t = times[0] if patient.variant % 2 == 0 else times[0] + 40 * MIN
        lab_queue.panel(st.hadm_id, t, [52033, 50821, 50818, 50820],
                        [None, 38.0, float(round(p["pco2"] + 6)), round(p["ph"] - 0.03, 2)],
                        [("VEN.", "MIX.", "CENTRAL VENOUS.")[g % 3], None, None, None])
