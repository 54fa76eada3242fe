"""The edge-case option of the synthetic generator plants what it promises, deterministically.

``synthesize(..., edge_cases=True)`` (``m4agent data synth --edge-cases``) adds the cases
real data has and references most easily get wrong. These tests read the written
databases directly (no dbt): each family is present, the option leaves the plain
dataset alone, and the same seed gives the same rows. Whether the references handle the
cases as the original does is tests/test_references.py and tests/test_conformance.py,
which build on this data.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from m4agent.cli import app
from m4agent.data.synth import synthesize
from m4agent.data.synth.eicu_edge_cases import AGES, PREICU_OFFSETS
from m4agent.data.synth.mimic_iv.edge_cases import CHART_CUT_POINTS, LAB_CUT_POINTS
from m4agent.paths import database_path

PATIENTS = 40
SEED = 5


@pytest.fixture(scope="module")
def edge_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("edge_cases")
    for dataset in ("mimic-iv", "eicu"):
        synthesize(dataset, root, patients=PATIENTS, seed=SEED, edge_cases=True)
    return root


def _query(db: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_every_lab_cut_point_is_planted(edge_dir: Path) -> None:
    present = set(_query(database_path(edge_dir, "mimic-iv"),
                         "SELECT DISTINCT itemid, valuenum FROM mimiciv_hosp.labevents"))
    missing = [(itemid, v) for itemid, values in LAB_CUT_POINTS for v in values if (itemid, float(v)) not in present]
    assert missing == []


def test_every_charted_cut_point_is_planted(edge_dir: Path) -> None:
    present = set(_query(database_path(edge_dir, "mimic-iv"),
                         "SELECT DISTINCT itemid, round(valuenum, 4) FROM mimiciv_icu.chartevents"))
    missing = [(itemid, v) for itemid, values, _ in CHART_CUT_POINTS for v in values
               if (itemid, round(float(v), 4)) not in present]
    assert missing == []


def test_negative_and_zero_values_are_planted(edge_dir: Path) -> None:
    rows = _query(database_path(edge_dir, "mimic-iv"),
                  "SELECT COUNT(*) FILTER (valuenum < 0), COUNT(*) FILTER (valuenum = 0) "
                  "FROM mimiciv_hosp.labevents WHERE itemid = 50912")
    assert rows[0][0] > 0 and rows[0][1] > 0


def test_blood_gases_of_two_specimens_share_a_charttime(edge_dir: Path) -> None:
    """Simultaneous gases, with the arterial one drawn first on some and second on others."""
    rows = _query(database_path(edge_dir, "mimic-iv"), """
        WITH gases AS (
            SELECT specimen_id, MAX(subject_id) AS subject_id, MAX(charttime) AS charttime,
                   MAX(CASE WHEN itemid = 52033 THEN value END) AS specimen
            FROM mimiciv_hosp.labevents WHERE itemid IN (52033, 50821)
            GROUP BY specimen_id HAVING COUNT(*) FILTER (itemid = 50821) > 0
        )
        SELECT specimen = 'ART.' AS arterial_first, COUNT(*)
        FROM (
            SELECT * FROM gases
            QUALIFY COUNT(*) OVER (PARTITION BY subject_id, charttime) > 1
                AND specimen_id = MIN(specimen_id) OVER (PARTITION BY subject_id, charttime)
        ) AS first_of_tied
        GROUP BY ALL
    """)
    counts = dict(rows)
    assert counts.get(True, 0) > 0 and counts.get(False, 0) > 0, counts


def test_vital_signs_are_charted_twice_at_one_time(edge_dir: Path) -> None:
    rows = _query(database_path(edge_dir, "mimic-iv"), """
        SELECT COUNT(*) FROM (
            SELECT stay_id, charttime FROM mimiciv_icu.chartevents WHERE itemid = 220045
            GROUP BY ALL HAVING COUNT(*) > 1 AND COUNT(DISTINCT valuenum) > 1
        )
    """)
    assert rows[0][0] > 0


def test_lowest_first_day_gcs_is_tied_with_other_components(edge_dir: Path) -> None:
    rows = _query(database_path(edge_dir, "mimic-iv"), """
        SELECT COUNT(DISTINCT ce.stay_id)
        FROM mimiciv_icu.chartevents AS ce
        INNER JOIN mimiciv_icu.icustays AS ie ON ce.stay_id = ie.stay_id
        WHERE ce.itemid = 220739 AND ce.valuenum = 1 AND ce.charttime = ie.intime + INTERVAL 1 HOUR
            AND EXISTS (SELECT 1 FROM mimiciv_icu.chartevents AS later
                        WHERE later.stay_id = ce.stay_id AND later.itemid = 220739 AND later.valuenum = 2
                            AND later.charttime = ie.intime + INTERVAL 10 HOUR)
    """)
    assert rows[0][0] > 0


def test_values_sit_on_and_just_outside_the_window_edges(edge_dir: Path) -> None:
    rows = _query(database_path(edge_dir, "mimic-iv"), """
        SELECT DISTINCT CAST(date_diff('minute', ie.intime, le.charttime) AS INTEGER)
        FROM mimiciv_hosp.labevents AS le
        INNER JOIN mimiciv_icu.icustays AS ie ON le.hadm_id = ie.hadm_id
        WHERE le.itemid = 50912 AND le.valuenum = 6.5
    """)
    assert {-360, -361, 1440, 1441, 2880, 2881} <= {r[0] for r in rows}


def test_urine_windows_span_their_length_exactly_in_minutes_that_are_not_whole(edge_dir: Path) -> None:
    """Two urine chartings exactly 6, 12 or 24 hours apart with one off the minute between them: the
    window's minutes add up to its length only up to a double's rounding (urine_output_windows.sql)."""
    rows = _query(database_path(edge_dir, "mimic-iv"), """
        WITH urine AS (
            SELECT DISTINCT stay_id, charttime FROM mimiciv_icu.outputevents
            WHERE itemid IN (226559, 226560, 226561)
        )
        SELECT span.hours, COUNT(*)
        FROM urine AS a
        INNER JOIN urine AS b ON a.stay_id = b.stay_id
        CROSS JOIN (VALUES (6), (12), (24)) AS span(hours)
        WHERE b.charttime = a.charttime + TO_HOURS(span.hours)
            AND EXISTS (SELECT 1 FROM urine AS m WHERE m.stay_id = a.stay_id
                        AND m.charttime > a.charttime AND m.charttime < b.charttime AND SECOND(m.charttime) <> 0)
        GROUP BY span.hours
    """)
    assert {hours for hours, _ in rows} == {6, 12, 24}


def test_first_services_and_infusions_are_tied(edge_dir: Path) -> None:
    db = database_path(edge_dir, "mimic-iv")
    services = _query(db, "SELECT COUNT(*) FROM (SELECT hadm_id, transfertime FROM mimiciv_hosp.services "
                          "GROUP BY ALL HAVING COUNT(*) > 1)")
    infusions = _query(db, "SELECT COUNT(*) FROM (SELECT stay_id, itemid, starttime FROM mimiciv_icu.inputevents "
                           "GROUP BY ALL HAVING COUNT(DISTINCT rateuom) > 1)")
    assert services[0][0] > 0 and infusions[0][0] > 0


def test_eicu_ages_and_pre_icu_offsets_sit_on_every_threshold(edge_dir: Path) -> None:
    db = database_path(edge_dir, "eicu")
    ages = {r[0] for r in _query(db, "SELECT DISTINCT age FROM eicu_crd.patient")}
    offsets = {r[0] for r in _query(db, "SELECT DISTINCT hospitaladmitoffset FROM eicu_crd.patient")}
    assert set(AGES) <= ages | {""} and set(PREICU_OFFSETS) <= offsets


def test_same_seed_gives_the_same_edge_cases(edge_dir: Path, tmp_path: Path) -> None:
    synthesize("mimic-iv", tmp_path, patients=PATIENTS, seed=SEED, edge_cases=True)
    digest = "SELECT COUNT(*), SUM(hash(r)) FROM mimiciv_hosp.labevents AS r"
    assert _query(database_path(tmp_path, "mimic-iv"), digest) == _query(database_path(edge_dir, "mimic-iv"), digest)


def test_plain_synthesis_plants_nothing(edge_dir: Path, tmp_path: Path) -> None:
    synthesize("mimic-iv", tmp_path, patients=PATIENTS, seed=SEED)
    count = "SELECT COUNT(*) FROM mimiciv_hosp.labevents"
    assert _query(database_path(tmp_path, "mimic-iv"), count)[0][0] < _query(database_path(edge_dir, "mimic-iv"), count)[0][0]


def test_cli_option_writes_edge_cases(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["data", "synth", "--dataset", "eicu", "--patients", "12", "--seed", "1",
                                      "--edge-cases", "--data-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = _query(database_path(tmp_path, "eicu"), "SELECT COUNT(*) FROM eicu_crd.patient WHERE age = '> 89'")
    assert rows[0][0] > 0
