"""Continuous renal replacement therapy charted during the first ICU stay of the CRRT scenario.

The grade picks the mode (CVVHDF, CVVH, CVVHD, SCUF) and the filter events (clots, clotted,
new filter, recirculating) that mimic-code's crrt concept reads; the rates charted depend on
the mode, and the anticoagulation is citrate or heparin. The dialysis procedure and the citrate
infusion are written by ``procedures`` and ``infusions``.
"""

from __future__ import annotations

import numpy as np

from m4agent.data.synth.mimic_iv.context import HOUR, IcuStay, Patient
from m4agent.data.synth.mimic_iv.queues import ChartQueue


def chart_crrt(patient: Patient, st: IcuStay, chart: ChartQueue) -> None:
    """CRRT mode, filter status, pressures, flows and anticoagulation charted hourly over the first 60 hours."""
    rng, g = patient.rng, patient.grade
    if not st.first:
        return
    t = patient.grid(st, 1.0, 2.0, min(st.outtime, st.intime + 60 * HOUR))
    n = t.size
    mode = ("CVVHDF", "CVVH", "CVVHD", "SCUF", "CVVHDF")[g]
    chart.add(227290, t[::2], None, mode)
    status = np.array(["Active"] * n, dtype=object)
    status[0] = "Initiated"
    if n > 8:
        status[5] = ("Clots Present", "No Clot Present", "Clots Increasing", "Clotted", "New Filter")[g]
        status[6] = "Reinitiated" if g != 4 else "Recirculating"
        status[-1] = "Discontinued"
    chart.add(224146, t, None, status)
    chart.add(224144, t, np.round(rng.uniform(150, 250, n)), uom="ml/min")
    chart.add(224149, t, np.round(rng.uniform(-120, -40, n)), uom="mmHg")
    chart.add(224150, t, np.round(rng.uniform(100, 220, n)), uom="mmHg")
    chart.add(224151, t, np.round(rng.uniform(40, 160, n)), uom="mmHg")
    chart.add(224152, t, np.round(rng.uniform(50, 150, n)), uom="mmHg")
    chart.add(224191, t, np.round(rng.uniform(0, 200, n)), uom="mL")
    chart.add(226457, t, np.round(rng.uniform(50, 300, n)), uom="mL")
    if mode in ("CVVHDF", "CVVHD"):
        chart.add(224154, t[::4], 1500.0, uom="ml/hr")
        chart.add(225977, t[:1], None, "Prismasate K4")
    if mode in ("CVVHDF", "CVVH"):
        chart.add(228005, t[::4], 1000.0, uom="ml/hr")
        chart.add(228006, t[::4], 200.0, uom="ml/hr")
        chart.add(224153, t[::4], 1200.0, uom="ml/hr")
        chart.add(225976, t[:1], None, "Prismasate K4")
    if g % 2:
        chart.add(228004, t[::4], 180.0, uom="ml/hr")
    else:
        chart.add(224145, t[::4], 500.0, uom="units")
        chart.add(225958, t[:1], None, "1000 units/mL")
    chart.add(225183, t[::6], 100.0, uom="mL")
