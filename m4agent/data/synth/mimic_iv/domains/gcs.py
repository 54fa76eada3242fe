"""Glasgow Coma Scale of an ICU stay (eyes, verbal, motor charted as three items).

On the first stay one of the first assessments sums to a total inside the band of the planted
CNS SOFA level (the bands below), the next one is milder, and on some stays the lowest total is
charted again with other components (a tie). While intubated the verbal component is
"No Response-ETT"; one grade leaves out an eyes component, carried from the previous assessment.
"""

from __future__ import annotations

import math

import numpy as np

from m4agent.data.synth.mimic_iv import catalog as cat
from m4agent.data.synth.mimic_iv.context import IcuStay, Patient
from m4agent.data.synth.mimic_iv.queues import ChartQueue

# GCS total band per CNS SOFA level 0-4
GCS_BANDS = ((15, 15), (13, 14), (10, 12), (6, 9), (3, 5))


def chart_gcs(patient: Patient, st: IcuStay, chart: ChartQueue) -> None:
    """GCS eyes, verbal and motor every 4 hours; one early assessment of the first stay in the planted band."""
    rng = patient.rng
    t = patient.grid(st, 4.0, 0.2)
    n = t.size
    if n == 0:
        return
    eyes = np.full(n, 4)
    verbal = np.full(n, 5)
    motor = np.full(n, 6)
    level = st.levels.get("cns", 0)
    lo, hi = GCS_BANDS[level]
    if st.first:
        k = min(int(rng.integers(0, 4)), n - 1)
        e, v, m = _split_gcs(int(rng.integers(lo, hi + 1)))
        eyes[k], verbal[k], motor[k] = e, v, m
        if level >= 2:  # a neighbouring assessment is also impaired, less so
            k2 = min(k + 1, n - 1)
            e2, v2, m2 = _split_gcs(min(15, hi + 1))
            if k2 != k:
                eyes[k2], verbal[k2], motor[k2] = e2, v2, m2
        k3 = k + 2
        if level >= 1 and patient.variant % 3 == 0 and k3 < n and m > 1 and v < 5:
            # the lowest total charted again, motor one lower and verbal one higher
            eyes[k3], verbal[k3], motor[k3] = e, v + 1, m - 1
    ett = np.zeros(n, dtype=bool)
    if st.vent_until:
        ett = t < st.vent_until
        eyes = np.where(ett, rng.integers(1, 4, n), eyes)
        motor = np.where(ett, rng.integers(4, 7, n), motor)
    verbal_text = np.array([cat.GCS_VERBAL[int(x)] for x in verbal], dtype=object)
    verbal_text[ett] = "No Response-ETT"
    verbal_num = np.where(ett, 1, verbal).astype(float)
    keep_e = np.ones(n, dtype=bool)
    if patient.grade == 3 and n > 3:
        keep_e[2] = False  # a missing component, carried from the previous assessment
    chart.add(220739, t[keep_e], eyes[keep_e].astype(float),
              np.array([cat.GCS_EYES[int(x)] for x in eyes[keep_e]], dtype=object))
    chart.add(223900, t, verbal_num, verbal_text)
    chart.add(223901, t, motor.astype(float), np.array([cat.GCS_MOTOR[int(x)] for x in motor], dtype=object))


def _split_gcs(total: int) -> tuple[int, int, int]:
    """Eyes, verbal, motor summing to a GCS total between 3 and 15."""
    total = max(3, min(15, total))
    eyes = max(1, min(4, math.ceil(total * 4 / 15)))
    motor = max(1, min(6, math.ceil(total * 6 / 15)))
    verbal = total - eyes - motor
    while verbal < 1:
        if motor > 1:
            motor -= 1
        else:
            eyes -= 1
        verbal += 1
    while verbal > 5:
        if motor < 6:
            motor += 1
        else:
            eyes += 1
        verbal -= 1
    return eyes, verbal, motor
