"""Edge cases planted into a finished synthetic MIMIC-IV database (``data synth --edge-cases``).

Real MIMIC-IV holds every case below, and each one is a place where a reference can
silently differ from the original or change between builds. ``plant(con)`` adds them
to the tables the generator wrote, with SQL only, as a function of those tables (no
random draws): the same seed with edge cases always gives the same database.

Stays are numbered ``k = 0, 1, ...`` in ``stay_id`` order and every planted family
cycles over them, so each value of each list lands on some stay once there are at
least as many stays as values (30 patients give about 35 stays).

- **Cut-points.** Lab and charted values exactly at every threshold of SOFA, APS III,
  SAPS II, OASIS, LODS, SIRS, MELD and KDIGO, charted 3 to 5 hours after ICU admission
  (one specimen, one charting time, inside every first-day window).
- **Negative and zero values**, and values at the plausibility limits the concepts
  filter on (creatinine 150, heart rate 300, temperature 10/50 C, weight 0 and 1500).
- **Unit variants.** Temperature in Fahrenheit, FiO2 as a fraction and as a percent
  (and the 0.2/20 edges), height in inches, vasopressor rates in mcg/kg/min, mg/kg/min
  and mcg/min, vasopressin in units/min and units/hour.
- **Duplicates at one charttime.** Vital signs charted twice at the same time (the same
  and a different value), a second creatinine specimen at the time of another, blood
  gases of two specimens (arterial and venous, or two arterial) at one charttime.
- **Ties.** The lowest first-day GCS charted twice with other components, a weight and
  a daily weight at one time, two first services at one transfertime, exact duplicate
  prescriptions, two infusions of one drug starting together.
- **Window edges.** Extreme creatinine, bilirubin, platelet and GCS values exactly at
  6 hours before, and 24 and 48 hours after ICU admission, and one minute outside (at
  intime's second: planted values carry the seconds of the stay's admission time).
- **Urine chartings off the minute.** On every other stay, two urine chartings in five are
  moved by some seconds, so the minutes between chartings are not whole and windows of
  exactly 6, 12 and 24 hours add up to a double a rounding error from their length.
- **Stays without data** come from the generator's scenarios (no chartevents, missing
  lab families); cultures without specimen type or time are planted here.

Every insert here sorts what it adds (``ORDER BY ALL``): a join's output order varies from run to
run with DuckDB's threads, and the same seed should give the same file, its rows' order included.
"""

from __future__ import annotations

import duckdb

# (itemid, values) of lab items: every threshold the scores read, then zero and negative.
LAB_CUT_POINTS: tuple[tuple[int, tuple[float, ...]], ...] = (
    (51265, (150, 100, 50, 20, 149, 0, -5)),  # platelets: SOFA, LODS 50
    (50885, (1.2, 2.0, 6.0, 12.0, 1.9, 3.0, 4.0, 5.0, 8.0, 1.0, 0.0, -0.5)),  # bilirubin: SOFA, APS, SAPS, MELD
    (50912, (1.2, 2.0, 3.5, 5.0, 0.5, 1.0, 1.5, 1.95, 1.6, 4.0, 0.0, -1.0, 150.0, 150.5)),  # creatinine
    (51301, (4.0, 12.0, 1.0, 3.0, 20.0, 25.0, 2.5, 10.0, 50.0, 0.0, -1.0)),  # WBC: SIRS, APS, SAPS, LODS
    (51221, (41.0, 49.0, 50.0, 0.0)),  # hematocrit: APS III
    (50983, (120.0, 125.0, 135.0, 145.0, 154.0, 155.0, 0.0)),  # sodium: APS III, SAPS II
    (50971, (3.0, 5.0, 0.0)),  # potassium: SAPS II
    (50882, (15.0, 20.0, 0.0)),  # bicarbonate: SAPS II
    (51006, (6.0, 17.0, 20.0, 28.0, 40.0, 80.0, 84.0, 10.0, 0.0, -2.0)),  # BUN: APS, SAPS, LODS
    (50931, (40.0, 60.0, 200.0, 350.0, 0.0)),  # glucose: APS III
    (50862, (2.0, 2.5, 4.5, 0.0)),  # albumin: APS III
    (51237, (1.0, 1.5, 0.0, -1.0)),  # INR: MELD floor 1
    (51274, (15.0, 25.0, 0.0)),  # PT
    (51144, (10.0, 0.0)),  # bands: SIRS
)

# (itemid, values, unit) of charted items.
CHART_CUT_POINTS: tuple[tuple[int, tuple[float, ...], str], ...] = (
    (220045, (40, 50, 70, 90, 100, 110, 120, 140, 155, 160, 33, 88, 106, 125, 300, 301, 0, -5), "bpm"),
    (220052, (70, 49, 50, 80, 100, 130, 140, 20.65, 81, 143.44, 0, -10, 300), "mmHg"),
    (220181, (70, 69, 60, 0), "mmHg"),
    (220179, (70, 100, 200, 399, 400, 0), "mmHg"),
    (220210, (6, 12, 14, 20, 25, 35, 40, 50, 70, 71, 13, 22, 30, 44, 0), "insp/min"),
    (223762, (33.0, 35.0, 36.0, 38.0, 39.0, 30.0, 10.0, 50.0, 0.0, -1.0), "°C"),
    (223761, (96.8, 100.4, 95.0, 102.2, 70.0, 120.0), "°F"),
    (220277, (100.0, 85.0, 0.0), "%"),
    (223835, (21.0, 0.21, 0.2, 1.0, 20.0, 100.0, 50.0, 0.5, 0.0), "%"),
    (226512, (0.0, -1.0, 1500.0, 70.0), "kg"),
    (226707, (47.0, 48.0, 90.6, 91.0), "Inch"),
    (226730, (120.0, 230.0, 119.0, 231.0), "cm"),
    (226559, (0.0, -10.0, 500.0, 200.0), "mL"),
)

# Blood gases at one charttime: (specimen label of the second specimen, PaO2 pairs, lab FiO2).
# PaO2/FiO2 lands exactly on 400, 300, 200 and 100 with FiO2 50 %.
GAS_PAIRS: tuple[tuple[str, float, float, float], ...] = (
    # second specimen, first (arterial) pO2, second pO2, lab FiO2 (50816)
    ("VEN.", 200.0, 40.0, 50.0),
    ("VEN.", 150.0, 35.0, 0.5),
    ("ART.", 100.0, 50.0, 50.0),
    ("MIX.", 50.0, 45.0, 50.0),
    ("ART.", 60.0, 90.0, 20.0),
    ("CENTRAL VENOUS.", 80.0, 30.0, 0.2),
)

_STAYS = """
    SELECT
        subject_id, hadm_id, stay_id, intime, outtime,
        CAST(ROW_NUMBER() OVER (ORDER BY stay_id) - 1 AS INTEGER) AS k
    FROM mimiciv_icu.icustays
"""


def _values_table(rows: list[tuple[object, ...]], alias: str, names: str) -> str:
    """A ``(VALUES ...) AS alias(names)`` relation from Python tuples (numbers and text)."""
    def literal(value: object) -> str:
        if value is None:
            return "NULL"
        if isinstance(value, str):
            return "'" + value.replace("'", "''") + "'"
        return repr(float(value)) if isinstance(value, float) else str(value)

    body = ", ".join("(" + ", ".join(literal(v) for v in row) + ")" for row in rows)
    return f"(VALUES {body}) AS {alias}({names})"


def _insert_labs(con: duckdb.DuckDBPyConnection, select: str) -> None:
    """Insert lab rows from ``select`` (subject_id, hadm_id, charttime, itemid, value, valuenum,
    specimen_key); rows sharing a specimen_key share a new specimen_id."""
    con.execute(f"""
        INSERT INTO mimiciv_hosp.labevents
            (labevent_id, subject_id, hadm_id, specimen_id, itemid, charttime, storetime,
             value, valuenum, priority)
        WITH planted AS ({select}),
        numbered AS (
            SELECT
                planted.*,
                ROW_NUMBER() OVER (ORDER BY specimen_key, itemid, charttime, valuenum) AS n,
                DENSE_RANK() OVER (ORDER BY specimen_key) AS specimen_n
            FROM planted
        )
        SELECT
            (SELECT MAX(labevent_id) FROM mimiciv_hosp.labevents) + n,
            subject_id, hadm_id,
            (SELECT MAX(specimen_id) FROM mimiciv_hosp.labevents) + specimen_n,
            itemid, charttime, charttime + INTERVAL 30 MINUTE,
            COALESCE(value, CAST(valuenum AS VARCHAR)), valuenum, 'STAT'
        FROM numbered
        ORDER BY ALL
    """)


def _insert_chart(con: duckdb.DuckDBPyConnection, select: str) -> None:
    """Insert chartevents from ``select`` (subject_id, hadm_id, stay_id, charttime, itemid, value,
    valuenum, valueuom)."""
    con.execute(f"""
        INSERT INTO mimiciv_icu.chartevents
            (subject_id, hadm_id, stay_id, caregiver_id, charttime, storetime, itemid, value,
             valuenum, valueuom, warning)
        SELECT
            subject_id, hadm_id, stay_id, 1000, charttime, charttime + INTERVAL 5 MINUTE, itemid,
            COALESCE(value, CAST(valuenum AS VARCHAR)), valuenum, valueuom, 0
        FROM ({select})
        ORDER BY ALL
    """)


def _lab_cut_points(con: duckdb.DuckDBPyConnection) -> None:
    rows = [(itemid, i, v, len(values)) for itemid, values in LAB_CUT_POINTS for i, v in enumerate(values)]
    _insert_labs(con, f"""
        SELECT
            s.subject_id, s.hadm_id,
            s.intime + INTERVAL 3 HOUR AS charttime,
            cp.itemid, NULL AS value, cp.valuenum,
            'cut' || s.stay_id AS specimen_key
        FROM ({_STAYS}) AS s
        INNER JOIN {_values_table(rows, 'cp', 'itemid, position, valuenum, n')}
            ON s.k % cp.n = cp.position
    """)


def _chart_cut_points(con: duckdb.DuckDBPyConnection) -> None:
    rows = [(itemid, i, v, len(values), unit) for itemid, values, unit in CHART_CUT_POINTS
            for i, v in enumerate(values)]
    _insert_chart(con, f"""
        SELECT
            s.subject_id, s.hadm_id, s.stay_id,
            s.intime + INTERVAL 4 HOUR AS charttime,
            cp.itemid, NULL AS value, cp.valuenum, cp.unit AS valueuom
        FROM ({_STAYS}) AS s
        INNER JOIN {_values_table(rows, 'cp', 'itemid, position, valuenum, n, unit')}
            ON s.k % cp.n = cp.position
        WHERE s.intime + INTERVAL 5 HOUR < s.outtime
    """)


def _duplicate_charttimes(con: duckdb.DuckDBPyConnection) -> None:
    """Every third stay: its first heart rate, MAP, RR and SpO2 charted again at the same time,
    once with the same value and once 10 higher; its first creatinine drawn again at the same
    time in another specimen, 0.4 higher."""
    _insert_chart(con, f"""
        WITH firsts AS (
            SELECT ce.*
            FROM mimiciv_icu.chartevents AS ce
            INNER JOIN ({_STAYS}) AS s ON ce.stay_id = s.stay_id AND s.k % 3 = 0
            WHERE ce.itemid IN (220045, 220052, 220181, 220210, 220277) AND ce.valuenum IS NOT NULL
            QUALIFY ROW_NUMBER() OVER (
                PARTITION BY ce.stay_id, ce.itemid ORDER BY ce.charttime, ce.valuenum) = 1
        )
        SELECT subject_id, hadm_id, stay_id, charttime, itemid, NULL AS value, valuenum, valueuom FROM firsts
        UNION ALL
        SELECT subject_id, hadm_id, stay_id, charttime, itemid, NULL, LEAST(valuenum + 10, 100), valueuom
        FROM firsts
    """)
    _insert_labs(con, f"""
        SELECT le.subject_id, le.hadm_id, le.charttime, le.itemid, NULL AS value,
               le.valuenum + 0.4 AS valuenum, 'dup' || le.labevent_id AS specimen_key
        FROM mimiciv_hosp.labevents AS le
        INNER JOIN ({_STAYS}) AS s ON le.hadm_id = s.hadm_id AND s.k % 3 = 1
        WHERE le.itemid = 50912 AND le.valuenum IS NOT NULL
        QUALIFY ROW_NUMBER() OVER (PARTITION BY s.stay_id ORDER BY le.charttime, le.labevent_id) = 1
    """)


def _simultaneous_gases(con: duckdb.DuckDBPyConnection) -> None:
    """An arterial gas 2 hours after admission on every stay, its PaO2/FiO2 on a cut-point;
    on every other run of six stays a second specimen at the same charttime (venous, mixed, central
    venous or another arterial one), drawn before the arterial one (lower specimen_id) on
    every other pair."""
    rows = []
    for i, (second, po2_first, po2_second, fio2) in enumerate(GAS_PAIRS):
        arterial, other = (1, 2) if i % 2 == 0 else (2, 1)
        rows += [(i, arterial, 52033, "ART.", None), (i, arterial, 50821, None, po2_first),
                 (i, arterial, 50818, None, 40.0), (i, arterial, 50820, None, 7.35),
                 (i, arterial, 50816, None, fio2),
                 (i, other, 52033, second, None), (i, other, 50821, None, po2_second),
                 (i, other, 50818, None, 32.0), (i, other, 50820, None, 7.2), (i, other, 50816, None, fio2)]
    _insert_labs(con, f"""
        SELECT
            s.subject_id, s.hadm_id, s.intime + INTERVAL 2 HOUR AS charttime, g.itemid, g.value, g.valuenum,
            'gas' || s.stay_id || '-' || g.specimen AS specimen_key
        FROM ({_STAYS}) AS s
        INNER JOIN {_values_table(rows, 'g', 'pair, specimen, itemid, value, valuenum')}
            ON s.k % {len(GAS_PAIRS)} = g.pair
        WHERE (s.k // {len(GAS_PAIRS)}) % 2 = 0 OR g.specimen = CASE WHEN g.pair % 2 = 0 THEN 1 ELSE 2 END
    """)


def _window_edges(con: duckdb.DuckDBPyConnection) -> None:
    """Extreme values exactly on, and one minute outside, the edges of the first-day windows
    (6 h before, 24 h and 48 h after ICU admission), one edge per stay in turn."""
    edges = [(0, -360, 0), (1, -361, 0), (2, 1440, 0), (3, 1441, 0), (4, 2880, 0), (5, 2881, 0), (6, 0, 0)]
    table = _values_table(edges, "e", "position, minutes, unused")
    _insert_labs(con, f"""
        SELECT s.subject_id, s.hadm_id, s.intime + TO_MINUTES(CAST(e.minutes AS BIGINT)) AS charttime,
               item.itemid, NULL AS value, item.valuenum, 'edge' || s.stay_id AS specimen_key
        FROM ({_STAYS}) AS s
        INNER JOIN {table} ON s.k % {len(edges)} = e.position
        CROSS JOIN (VALUES (50912, 6.5), (50885, 13.0), (51265, 10.0), (51301, 30.0)) AS item(itemid, valuenum)
    """)
    _insert_chart(con, f"""
        SELECT s.subject_id, s.hadm_id, s.stay_id, s.intime + TO_MINUTES(CAST(e.minutes AS BIGINT)) AS charttime,
               item.itemid, NULL AS value, item.valuenum, item.unit AS valueuom
        FROM ({_STAYS}) AS s
        INNER JOIN {table} ON s.k % {len(edges)} = e.position
        CROSS JOIN (VALUES (220739, 1.0, NULL), (223900, 1.0, NULL), (223901, 1.0, NULL),
                           (220045, 170.0, 'bpm'), (220052, 45.0, 'mmHg')) AS item(itemid, valuenum, unit)
        WHERE s.intime + TO_MINUTES(CAST(e.minutes AS BIGINT)) < s.outtime
    """)


def _gcs_ties(con: duckdb.DuckDBPyConnection) -> None:
    """Every third stay: the lowest first-day GCS (total 5) charted at 1 h and again at 10 h with
    other components; every fourth (from the third): an ETT verbal ('No Response-ETT') at 12 h."""
    tied = [(60, 1.0, 1.0, 3.0), (600, 2.0, 2.0, 1.0)]  # minutes, eyes, verbal, motor
    rows = [(m, item, v) for m, eyes, verbal, motor in tied
            for item, v in ((220739, eyes), (223900, verbal), (223901, motor))]
    _insert_chart(con, f"""
        SELECT s.subject_id, s.hadm_id, s.stay_id, s.intime + TO_MINUTES(CAST(t.minutes AS BIGINT)) AS charttime,
               t.itemid, NULL AS value, t.valuenum, NULL AS valueuom
        FROM ({_STAYS}) AS s
        CROSS JOIN {_values_table(rows, 't', 'minutes, itemid, valuenum')}
        WHERE s.k % 3 = 0 AND s.intime + INTERVAL 10 HOUR < s.outtime
        UNION ALL
        SELECT s.subject_id, s.hadm_id, s.stay_id, s.intime + INTERVAL 12 HOUR, 223900,
               'No Response-ETT', NULL, NULL
        FROM ({_STAYS}) AS s
        WHERE s.k % 4 = 2 AND s.intime + INTERVAL 12 HOUR < s.outtime
    """)


def _weight_ties(con: duckdb.DuckDBPyConnection) -> None:
    """Every fifth stay: a daily weight charted at the time of its admission weight."""
    con.execute(f"""
        INSERT INTO mimiciv_icu.chartevents
        SELECT ce.subject_id, ce.hadm_id, ce.stay_id, ce.caregiver_id, ce.charttime, ce.storetime,
               224639, CAST(ce.valuenum + 3 AS VARCHAR), ce.valuenum + 3, ce.valueuom, ce.warning
        FROM mimiciv_icu.chartevents AS ce
        INNER JOIN ({_STAYS}) AS s ON ce.stay_id = s.stay_id AND s.k % 5 = 0
        WHERE ce.itemid = 226512 AND ce.valuenum > 0 AND ce.valuenum < 1000
        QUALIFY ROW_NUMBER() OVER (PARTITION BY ce.stay_id ORDER BY ce.charttime, ce.valuenum) = 1
        ORDER BY ALL
    """)


def _vasopressor_variants(con: duckdb.DuckDBPyConnection) -> None:
    """Every stay's first infusion of each vasoactive drug: a second one starting at the same
    time in another rate unit (norepinephrine/epinephrine in mcg/min and mg/kg/min,
    vasopressin in units/min, others in mcg/kg/min)."""
    con.execute("""
        INSERT INTO mimiciv_icu.inputevents
        WITH firsts AS (
            SELECT ie.*
            FROM mimiciv_icu.inputevents AS ie
            WHERE ie.itemid IN (221906, 221289, 221662, 221653, 221986, 221749, 222315)
                AND ie.rate IS NOT NULL
            QUALIFY ROW_NUMBER() OVER (PARTITION BY ie.stay_id, ie.itemid ORDER BY ie.starttime, ie.orderid) = 1
        )
        SELECT
            subject_id, hadm_id, stay_id, caregiver_id, starttime, endtime, storetime, itemid, amount,
            amountuom,
            CASE
                WHEN itemid = 222315 THEN rate / 60
                WHEN itemid IN (221906, 221289) AND orderid % 2 = 0 THEN rate * COALESCE(patientweight, 80)
                WHEN itemid IN (221906, 221289) THEN rate / 1000
                ELSE rate
            END,
            CASE
                WHEN itemid = 222315 THEN 'units/min'
                WHEN itemid IN (221906, 221289) AND orderid % 2 = 0 THEN 'mcg/min'
                WHEN itemid IN (221906, 221289) THEN 'mg/kg/min'
                ELSE rateuom
            END,
            (SELECT MAX(orderid) FROM mimiciv_icu.inputevents) + ROW_NUMBER() OVER (ORDER BY stay_id, itemid),
            linkorderid, ordercategoryname, secondaryordercategoryname, ordercomponenttypedescription,
            ordercategorydescription, patientweight, totalamount, totalamountuom, isopenbag,
            continueinnextdept, statusdescription, originalamount, originalrate
        FROM firsts
        ORDER BY ALL
    """)


def _hospital_ties(con: duckdb.DuckDBPyConnection) -> None:
    """Ties and gaps of the hospital tables (SAPS II admission type, suspicion of infection):
    a second first service at the same transfertime, surgical when the first is not and vice
    versa; cultures without a specimen type, cultures with only a chart date; exact duplicate
    prescriptions."""
    con.execute("""
        INSERT INTO mimiciv_hosp.services
        SELECT subject_id, hadm_id, transfertime, prev_service,
               CASE WHEN LOWER(curr_service) LIKE '%surg%' THEN 'MED' ELSE 'SURG' END
        FROM mimiciv_hosp.services
        QUALIFY ROW_NUMBER() OVER (PARTITION BY hadm_id ORDER BY transfertime, curr_service) = 1
            AND hadm_id % 4 = 0
        ORDER BY ALL
    """)
    con.execute("UPDATE mimiciv_hosp.microbiologyevents SET spec_type_desc = NULL "
                "WHERE micro_specimen_id % 11 = 0")
    con.execute("UPDATE mimiciv_hosp.microbiologyevents SET charttime = NULL "
                "WHERE micro_specimen_id % 5 = 0")
    con.execute("INSERT INTO mimiciv_hosp.prescriptions "
                "SELECT * FROM mimiciv_hosp.prescriptions WHERE pharmacy_id % 9 = 0 ORDER BY ALL")


def _urine_off_the_minute(con: duckdb.DuckDBPyConnection) -> None:
    """Every other stay: its urine chartings numbered 2 and 3 of each five (in time order) moved
    back by 13 to 52 seconds and forward by 7 to 56 seconds."""
    con.execute(f"""
        UPDATE mimiciv_icu.outputevents AS oe
        SET charttime = oe.charttime + TO_SECONDS(CAST(moved.seconds AS BIGINT)),
            storetime = oe.storetime + TO_SECONDS(CAST(moved.seconds AS BIGINT))
        FROM (
            SELECT
                ue.stay_id, ue.charttime, ue.itemid,
                CASE WHEN ue.n % 5 = 2 THEN -(13 + ue.n % 40) ELSE 7 + ue.n % 50 END AS seconds
            FROM (
                SELECT
                    oe.stay_id, oe.charttime, oe.itemid,
                    ROW_NUMBER() OVER (PARTITION BY oe.stay_id ORDER BY oe.charttime, oe.itemid) AS n
                FROM mimiciv_icu.outputevents AS oe
                INNER JOIN ({_STAYS}) AS s ON oe.stay_id = s.stay_id AND s.k % 2 = 1
                WHERE oe.itemid IN (226559, 226560, 226561)
            ) AS ue
            WHERE ue.n % 5 IN (2, 3)
        ) AS moved
        WHERE oe.stay_id = moved.stay_id AND oe.charttime = moved.charttime AND oe.itemid = moved.itemid
    """)


def plant(con: duckdb.DuckDBPyConnection) -> None:
    """Add every edge-case family to the MIMIC-IV tables of ``con`` (a database the generator wrote)."""
    _lab_cut_points(con)
    _chart_cut_points(con)
    _duplicate_charttimes(con)
    _simultaneous_gases(con)
    _window_edges(con)
    _gcs_ties(con)
    _weight_ties(con)
    _urine_off_the_minute(con)
    _vasopressor_variants(con)
    _hospital_ties(con)
