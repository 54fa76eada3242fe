"""Charting errors the concepts filter out: swapped temperature units, artefacts, impossible values.

Real MIMIC-IV has them and every concept has a plausibility rule for them; one error per stay,
2.5 hours after admission, so each rule is exercised on the first day.
"""

from __future__ import annotations

import numpy as np

from m4agent.data.synth.mimic_iv.context import IcuStay, Patient
from m4agent.data.synth.mimic_iv.queues import ChartQueue


def chart_errors(patient: Patient, st: IcuStay, chart: ChartQueue) -> None:
    """One charting error per stay, the kind chosen by the patient's index."""
    k = patient.index % 7
    t = np.array([st.intime + patient.minutes(150, 170)])
    if k == 0:
        chart.add(223762, t, 98.4, uom="°C")  # Fahrenheit typed in the Celsius field
    elif k == 1:
        chart.add(223761, t, 36.9, uom="°F")  # Celsius typed in the Fahrenheit field
    elif k == 2:
        chart.add(220045, t, 0.0, uom="bpm")  # artefact
    elif k == 3:
        chart.add(220210, t, 88.0, uom="insp/min")  # out of range
    elif k == 4:
        chart.add(220339, t, 150.0, uom="cmH2O")  # PEEP above 100: cleaned to NULL
    elif k == 5:
        chart.add(220179, t, 480.0, uom="mmHg")  # systolic above 400
    else:
        chart.add(225664, t, 0.0, uom="mg/dL")  # glucose 0
