"""Odd eICU rows no realistic generator writes, planted into a synthetic eICU database.

The eICU references must agree with the original's ground truth on them too, because
they cast and compare exactly as it does; the original's truth on a planted data set
is committed (tests/support/original_facts.py) and checked in tests/test_eicu_references.py.
"""

from __future__ import annotations

import random
from pathlib import Path

import duckdb

IO_OUT = "flowsheet|Flowsheet Cell Labels|I&O|Output (ml)|"


def plant_odd_rows(db: Path, seed: int) -> None:
    """Rows no realistic generator writes: odd number spellings, NULL offsets and categories,
    odd ages and admission sources, LIKE wildcards in paths. The references must still agree
    with the original, because they cast and compare exactly as it does."""
    rng = random.Random(seed)
    numbers = ["7", " 7", "7 ", "7.0", "7.5", "1e1", "", None, "-3", "15.0004", "14.9996", "2.9999", "3",
               "16", "NaN", "inf", "+8", "08", "1,000", "13.5", "36.395", "61.325", "88.5", "99999999999999999999"]
    cells = [("Scores", "Glasgow coma score", "GCS Total"), ("Scores", "Glasgow coma score", "Motor"),
             ("Other Vital Signs and Infusions", "Glasgow coma score", "Verbal"), ("Scores", "Glasgow coma score", "Eyes"),
             ("Other Vital Signs and Infusions", "Score (Glasgow Coma Scale)", "Value"), (None, "Glasgow coma score", "GCS Total"),
             ("Vital Signs", "Heart Rate", "Heart Rate"), ("Vital Signs", "Respiratory Rate", "Respiratory Rate"),
             ("Vital Signs", "Temperature", "Temperature (C)"), ("Scores", "Invasive BP", "Invasive BP Mean"),
             ("Other Vital Signs and Infusions", "MAP (mmHg)", "Value"), ("Vital Signs", "Non-Invasive BP", "Non-Invasive BP Mean")]
    offsets = [None, -361, -360, -1, 0, 1, 700, 1440, 1441]
    pe_prefix = "notes/Progress Notes/Physical Exam/Physical Exam/Neurologic/GCS/"
    paths = [IO_OUT + "Urine", IO_OUT + "FOLEY", IO_OUT + "Foley OR", IO_OUT + "Output Urinary Catheter x", IO_OUT + "urine",
             "FLOWSHEET|Flowsheet Cell Labels|I&O|Output (ml)|foley", None, IO_OUT + "Straight  cath", IO_OUT + "Urine Output (mL)%"]
    con = duckdb.connect(str(db))
    try:
        stays = [r[0] for r in con.execute("SELECT patientunitstayid FROM eicu_crd.patient").fetchall()]
        con.executemany("INSERT INTO eicu_crd.nursecharting VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
            (10**9 + i, rng.choice(stays), rng.choice(offsets), 0, *rng.choice(cells), rng.choice(numbers))
            for i in range(3000)])
        con.executemany("INSERT INTO eicu_crd.physicalexam VALUES (?, ?, ?, ?, ?, ?)", [
            (10**8 + i, rng.choice(stays), rng.choice(offsets),
             pe_prefix + rng.choice(["8", "15", "0", "Verbal Score/4", "%", "_", "ab", "", "123"]), rng.choice(numbers), None)
            for i in range(800)])
        con.executemany("INSERT INTO eicu_crd.intakeoutput VALUES (?, ?, ?, 0, 0, 0, 0, 0, ?, 'x', ?, 'x')", [
            (10**8 + i, rng.choice(stays), rng.choice(offsets), rng.choice(paths), rng.choice([None, 0, 100.5, -50, 700, 3000.25]))
            for i in range(1500)])
        for stay in rng.sample(stays, len(stays) // 4):
            con.execute(
                "UPDATE eicu_crd.patient SET hospitaladmitoffset = ?, age = ?, unitadmitsource = ? WHERE patientunitstayid = ?",
                [rng.choice([None, 5, -10, -11, -296, -297, -18708, -18709]),
                 rng.choice(["> 89", "", None, " 45", "36.5", "abc", "89", "90", "23"]),
                 rng.choice([None, "Emergency Department", "Emergency Department ", "Floor"]), stay])
    finally:
        con.close()
