"""Weight and height of an ICU stay.

Stays cycle through the charting styles the weight concepts tell apart: an admission weight
only, with daily weights, corrected a few hours later, or daily weights alone. Height comes in
centimetres or inches, and on some stays in metres typed in the centimetre field (dropped).
"""

from __future__ import annotations

import numpy as np

from m4agent.data.synth.mimic_iv.context import IcuStay, Patient
from m4agent.data.synth.mimic_iv.queues import ChartQueue


def chart_weights(patient: Patient, st: IcuStay, chart: ChartQueue) -> None:
    """Admission weight (once corrected), daily weights, and a height in centimetres or inches."""
    rng = patient.rng
    style = (patient.index // 5) % 4
    if style != 3:  # admission weight
        chart.add(226512, np.array([st.intime + patient.minutes(20, 120)]), st.weight, uom="kg")
    if style == 2:  # a corrected admission weight a few hours later (only the first is backdated)
        chart.add(226512, np.array([st.intime + patient.minutes(300, 400)]), round(st.weight - 2.5, 1),
                  uom="kg")
    if style in (1, 3):  # daily weights
        t = patient.grid(st, 24.0, 20.0)
        chart.add(224639, t, np.round(st.weight + rng.normal(0, 1.5, t.size), 1), uom="kg")
    if patient.variant % 3 == 0:
        chart.add(226730, np.array([st.intime + patient.minutes(20, 120)]), float(rng.integers(150, 195)),
                  uom="cm")
    elif patient.variant % 3 == 1:
        chart.add(226707, np.array([st.intime + patient.minutes(20, 120)]), float(rng.integers(60, 76)),
                  uom="Inch")
    elif patient.variant % 6 == 2:
        chart.add(226730, np.array([st.intime + patient.minutes(20, 120)]), 1.7, uom="cm")  # metres: dropped
