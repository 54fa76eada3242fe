"""Edge cases planted into a finished synthetic eICU database (``data synth --edge-cases``).

The eICU generator already plants the GCS cases (ties at the lowest total, the -360 and
1440 window edges and one minute outside, text and out-of-range values, both total
spellings). ``plant(con)`` adds, with SQL only and as a function of the written tables:

- **Cut-points** of every OASIS component exactly (heart rate, respiratory rate,
  temperature, mean arterial pressure, each on both sides of every threshold), charted
  at offset 1 and 1440 (inside OASIS's (0, 1440]) and at 0 and 1441 (outside);
- **pre-ICU length of stay** at every threshold of ``hospitaladmitoffset`` (-10.2,
  -296.4, -1440, -18708 minutes: the integers on both sides);
- **age** at every threshold (24/25, 53/54, 77/78, 89/90, '> 89', empty);
- **duplicates at one offset**: a second heart rate at the offset of a stay's first one.

Stays are numbered ``k = 0, 1, ...`` in ``patientunitstayid`` order; each family cycles
over them. Each insert sorts what it adds (``ORDER BY ALL``), so a seed gives the same file, its
rows' order included, whatever order DuckDB's threads produce the rows in.
"""

from __future__ import annotations

import duckdb

# (category, label, name, values) of the charted OASIS components.
VITAL_CUT_POINTS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("Vital Signs", "Heart Rate", "Heart Rate", ("32", "33", "88", "89", "106", "107", "125", "126", "0", "-3")),
    ("Vital Signs", "Respiratory Rate", "Respiratory Rate",
     ("5", "6", "12", "13", "22", "23", "30", "31", "44", "45", "60", "0")),
    ("Vital Signs", "Temperature", "Temperature (C)",
     ("33.21", "33.22", "35.92", "35.93", "36.39", "36.4", "36.88", "36.89", "39.88", "39.89", "25", "46", "0")),
    ("Vital Signs", "Non-Invasive BP", "Non-Invasive BP Mean",
     ("20.64", "20.65", "50.99", "51", "61.32", "61.33", "143.44", "143.45", "1", "250", "0")),
    ("Vital Signs", "Invasive BP", "Invasive BP Mean", ("20.65", "81", "143.44", "251", "-1")),
)
PREICU_OFFSETS = (-10, -11, -296, -297, -1440, -1441, -18708, -18709, 0)
AGES = ("24", "25", "53", "54", "77", "78", "89", "90", "> 89", "", "0")
# OASIS counts (0, 1440]: 1 and 1440 inside, 0 and 1441 outside.
OFFSETS = (1, 1440, 0, 1441)

_STAYS = """
    SELECT patientunitstayid, CAST(ROW_NUMBER() OVER (ORDER BY patientunitstayid) - 1 AS INTEGER) AS k
    FROM eicu_crd.patient
"""


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _next_chart_id() -> str:
    return "(SELECT COALESCE(MAX(nursingchartid), 0) FROM eicu_crd.nursecharting)"


def _vital_cut_points(con: duckdb.DuckDBPyConnection) -> None:
    rows = []
    for cat, label, name, values in VITAL_CUT_POINTS:
        for i, value in enumerate(values):
            rows.append(f"({_quote(cat)}, {_quote(label)}, {_quote(name)}, {_quote(value)}, {i}, {len(values)})")
    offsets = ", ".join(f"({i}, {o})" for i, o in enumerate(OFFSETS))
    con.execute(f"""
        INSERT INTO eicu_crd.nursecharting
        WITH planted AS (
            SELECT s.patientunitstayid, o.chartoffset, v.cat, v.label, v.name, v.value
            FROM ({_STAYS}) AS s
            INNER JOIN (VALUES {", ".join(rows)}) AS v(cat, label, name, value, position, n)
                ON s.k % v.n = v.position
            INNER JOIN (VALUES {offsets}) AS o(position, chartoffset)
                ON (s.k // 2) % {len(OFFSETS)} = o.position
        )
        SELECT
            {_next_chart_id()} + ROW_NUMBER() OVER (ORDER BY patientunitstayid, label, name, chartoffset),
            patientunitstayid, chartoffset, chartoffset + 5, cat, label, name, value
        FROM planted
        ORDER BY ALL
    """)


def _duplicate_offsets(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(f"""
        INSERT INTO eicu_crd.nursecharting
        WITH firsts AS (
            SELECT nc.*
            FROM eicu_crd.nursecharting AS nc
            INNER JOIN ({_STAYS}) AS s ON nc.patientunitstayid = s.patientunitstayid AND s.k % 3 = 0
            WHERE nc.nursingchartcelltypevallabel = 'Heart Rate'
                AND nc.nursingchartoffset > 0 AND nc.nursingchartoffset <= 1440
            QUALIFY ROW_NUMBER() OVER (
                PARTITION BY nc.patientunitstayid ORDER BY nc.nursingchartoffset, nc.nursingchartid) = 1
        )
        SELECT
            {_next_chart_id()} + ROW_NUMBER() OVER (ORDER BY patientunitstayid),
            patientunitstayid, nursingchartoffset, nursingchartentryoffset, nursingchartcelltypecat,
            nursingchartcelltypevallabel, nursingchartcelltypevalname, '140'
        FROM firsts
        ORDER BY ALL
    """)


def _patient_edges(con: duckdb.DuckDBPyConnection) -> None:
    offsets = ", ".join(f"({i}, {o})" for i, o in enumerate(PREICU_OFFSETS))
    ages = ", ".join(f"({i}, {_quote(a)})" for i, a in enumerate(AGES))
    con.execute(f"""
        UPDATE eicu_crd.patient AS p
        SET hospitaladmitoffset = o.preicu
        FROM ({_STAYS}) AS s, (VALUES {offsets}) AS o(position, preicu)
        WHERE p.patientunitstayid = s.patientunitstayid AND s.k % {len(PREICU_OFFSETS)} = o.position
    """)
    con.execute(f"""
        UPDATE eicu_crd.patient AS p
        SET age = a.age
        FROM ({_STAYS}) AS s, (VALUES {ages}) AS a(position, age)
        WHERE p.patientunitstayid = s.patientunitstayid AND (s.k + 3) % {len(AGES)} = a.position
    """)


def plant(con: duckdb.DuckDBPyConnection) -> None:
    """Add every edge-case family to the eICU tables of ``con`` (a database the generator wrote)."""
    _vital_cut_points(con)
    _duplicate_offsets(con)
    _patient_edges(con)
