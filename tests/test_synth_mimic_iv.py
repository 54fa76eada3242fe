"""The synthetic MIMIC-IV: official schema, determinism, conventions, messy cases and branch coverage.

The coverage tests run m4-infra's own concept SQL (the benchmark's derivation) on a
copy of a synthesized database and check that every branch the references depend
on is reached, for the default seed and another one.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from m4agent.data.schema import MIMIC_IV
from m4agent.data.synth import synthesize
from m4agent.data.synth.mimic_iv import catalog

Query = Callable[[str], list[tuple]]


def _query(path: Path) -> tuple[duckdb.DuckDBPyConnection, Query]:
    con = duckdb.connect(str(path), read_only=True)
    return con, lambda sql: con.execute(sql).fetchall()


@pytest.fixture(scope="module")
def q(mimic_db: Path):
    con, query = _query(mimic_db)
    yield query
    con.close()


def _table_fingerprints(path: Path) -> dict[str, tuple]:
    con, query = _query(path)
    try:
        return {name: query(f"SELECT count(*), sum(hash(t)) FROM {name} AS t")[0] for name in MIMIC_IV}
    finally:
        con.close()


# ---------------------------------------------------------------------------
# schema and determinism
# ---------------------------------------------------------------------------
def test_every_official_table_with_official_columns_and_rows(q: Query) -> None:
    for name, table in MIMIC_IV.items():
        cols = q(f"""
            SELECT column_name, data_type, is_nullable FROM information_schema.columns
            WHERE table_schema = '{table.schema}' AND table_name = '{table.name}' ORDER BY ordinal_position""")
        assert [c[0] for c in cols] == table.column_names, name
        assert [c[1] for c in cols] == [c.type for c in table.columns], name
        assert [c[2] == "NO" for c in cols] == [c.not_null for c in table.columns], name
        assert q(f"SELECT count(*) FROM {name}")[0][0] > 0, f"{name} is empty"
    schemas = {r[0] for r in q("SELECT schema_name FROM information_schema.schemata")}
    assert {"mimiciv_hosp", "mimiciv_icu"} <= schemas


def test_same_seed_gives_identical_tables_and_another_seed_differs(tmp_path: Path) -> None:
    first = _table_fingerprints(synthesize("mimic-iv", tmp_path / "a", patients=40, seed=5))
    again = _table_fingerprints(synthesize("mimic-iv", tmp_path / "b", patients=40, seed=5))
    other = _table_fingerprints(synthesize("mimic-iv", tmp_path / "c", patients=40, seed=6))
    assert first == again
    generated = [n for n in MIMIC_IV if not n.endswith(("d_items", "d_labitems"))]
    assert all(first[n] != other[n] for n in generated), [
        n for n in generated if first[n] == other[n]]


# ---------------------------------------------------------------------------
# conventions of real MIMIC-IV
# ---------------------------------------------------------------------------
def test_ids_lie_in_mimic_ranges(q: Query) -> None:
    assert q("SELECT min(subject_id) >= 10000032, max(subject_id) <= 19999987 FROM mimiciv_hosp.patients") == [(True, True)]
    assert q("SELECT min(hadm_id) >= 20000019, max(hadm_id) <= 29999928 FROM mimiciv_hosp.admissions") == [(True, True)]
    assert q("SELECT min(stay_id) >= 30000153, max(stay_id) <= 39999810 FROM mimiciv_icu.icustays") == [(True, True)]


def test_a_stay_id_is_the_transfer_id_of_its_first_icu_transfer(q: Query) -> None:
    assert q("""SELECT count(*) FROM mimiciv_icu.icustays i LEFT JOIN mimiciv_hosp.transfers t
                ON t.transfer_id = i.stay_id AND t.careunit = i.first_careunit AND t.intime = i.intime
                WHERE t.transfer_id IS NULL""") == [(0,)]
    assert q("SELECT count(*) - count(DISTINCT transfer_id) FROM mimiciv_hosp.transfers") == [(0,)]


@pytest.mark.parametrize(("table", "column"), [
    ("mimiciv_hosp.admissions", "admittime"), ("mimiciv_icu.chartevents", "charttime"),
    ("mimiciv_hosp.labevents", "charttime"), ("mimiciv_hosp.patients", "dod")])
def test_times_are_shifted_into_2110_2214(q: Query, table: str, column: str) -> None:
    lo, hi = q(f"SELECT min(year({column})), max(year({column})) FROM {table}")[0]
    assert 2110 <= lo and hi <= 2214, (lo, hi)


@pytest.mark.parametrize(("table", "start"), [
    ("mimiciv_icu.chartevents", "charttime"), ("mimiciv_hosp.labevents", "charttime"),
    ("mimiciv_icu.outputevents", "charttime"), ("mimiciv_icu.datetimeevents", "charttime"),
    ("mimiciv_icu.inputevents", "starttime"), ("mimiciv_hosp.microbiologyevents", "chartdate")])
def test_storetime_is_never_before_the_event(q: Query, table: str, start: str) -> None:
    assert q(f"SELECT count(*) FROM {table} WHERE storetime < {start}") == [(0,)]


def test_microbiology_dates_are_midnight(q: Query) -> None:
    assert q("""SELECT count(*) FROM mimiciv_hosp.microbiologyevents
                WHERE chartdate <> date_trunc('day', chartdate) OR storedate <> date_trunc('day', storedate)""") == [(0,)]


def test_anchor_age_is_adult_and_capped_at_91(q: Query) -> None:
    ages = q("SELECT min(anchor_age), max(anchor_age), count(*) FILTER (anchor_age = 91) FROM mimiciv_hosp.patients")[0]
    assert ages[0] >= 18 and ages[1] == 91 and ages[2] > 0


def test_anchor_year_groups_are_real_bands(q: Query) -> None:
    groups = {r[0] for r in q("SELECT DISTINCT anchor_year_group FROM mimiciv_hosp.patients")}
    assert groups <= set(catalog.ANCHOR_YEAR_GROUPS) and len(groups) > 1


def test_icd_codes_have_no_dots_and_both_versions(q: Query) -> None:
    assert q("SELECT count(*) FROM mimiciv_hosp.diagnoses_icd WHERE icd_code LIKE '%.%'") == [(0,)]
    assert {r[0] for r in q("SELECT DISTINCT icd_version FROM mimiciv_hosp.diagnoses_icd")} == {9, 10}


ADMISSION_SHAPES = {
    "hospital readmissions": "SELECT count(*) FROM (SELECT subject_id FROM mimiciv_hosp.admissions GROUP BY 1 HAVING count(*) > 1)",
    "admissions with two ICU stays": "SELECT count(*) FROM (SELECT hadm_id FROM mimiciv_icu.icustays GROUP BY 1 HAVING count(*) > 1)",
    "ICU readmissions": """SELECT count(*) FROM (SELECT subject_id FROM mimiciv_icu.icustays
                           GROUP BY 1 HAVING count(DISTINCT hadm_id) > 1)""",
    "ward-only admissions": """SELECT count(*) FROM mimiciv_hosp.admissions a WHERE NOT EXISTS
                               (SELECT 1 FROM mimiciv_icu.icustays i WHERE i.hadm_id = a.hadm_id)""",
    "ICU stays shorter than 12 hours": "SELECT count(*) FROM mimiciv_icu.icustays WHERE los < 0.5",
}


@pytest.mark.parametrize("shape", list(ADMISSION_SHAPES))
def test_admission_shape_is_present(q: Query, shape: str) -> None:
    assert q(ADMISSION_SHAPES[shape])[0][0] > 0


def test_every_stay_has_heart_rate_except_the_deliberate_no_chart_stays(q: Query) -> None:
    no_chart = q("""SELECT count(*) FROM mimiciv_icu.icustays i
                    WHERE NOT EXISTS (SELECT 1 FROM mimiciv_icu.chartevents c WHERE c.stay_id = i.stay_id)""")[0][0]
    no_hr = q("""SELECT count(*) FROM mimiciv_icu.icustays i WHERE NOT EXISTS
                 (SELECT 1 FROM mimiciv_icu.chartevents c WHERE c.stay_id = i.stay_id AND c.itemid = 220045)""")[0][0]
    assert no_chart > 0
    assert no_hr == no_chart


def test_dictionaries_hold_real_item_ids_for_every_event(q: Query) -> None:
    for table in ("chartevents", "outputevents", "inputevents", "procedureevents", "datetimeevents", "ingredientevents"):
        missing = q(f"""SELECT DISTINCT e.itemid FROM mimiciv_icu.{table} e LEFT JOIN mimiciv_icu.d_items d
                        ON d.itemid = e.itemid AND d.linksto = '{table}' WHERE d.itemid IS NULL""")
        assert missing == [], (table, missing)
    assert q("""SELECT DISTINCT e.itemid FROM mimiciv_hosp.labevents e LEFT JOIN mimiciv_hosp.d_labitems d
                USING (itemid) WHERE d.itemid IS NULL""") == []
    labels = dict(q("SELECT itemid, label FROM mimiciv_icu.d_items"))
    assert labels[220045] == "Heart Rate"
    assert labels[223900] == "GCS - Verbal Response"
    assert labels[226732] == "O2 Delivery Device(s)"
    assert labels[221906] == "Norepinephrine"
    assert labels[227488] == "GU Irrigant Volume In"
    lab_labels = dict(q("SELECT itemid, label FROM mimiciv_hosp.d_labitems"))
    assert lab_labels[50912] == "Creatinine" and lab_labels[50821] == "pO2" and lab_labels[51265] == "Platelet Count"


CE = "mimiciv_icu.chartevents"

# Each query counts the rows (or stays) of one messy case of real data; every count must be positive.
MESSY_COUNTS = {
    "Fahrenheit temperatures": f"SELECT count(*) FROM {CE} WHERE itemid = 223761",
    "Celsius temperatures": f"SELECT count(*) FROM {CE} WHERE itemid = 223762",
    "FiO2 as a fraction": f"SELECT count(*) FROM {CE} WHERE itemid = 223835 AND valuenum <= 1",
    "FiO2 as a percent": f"SELECT count(*) FROM {CE} WHERE itemid = 223835 AND valuenum > 20",
    "FiO2 mistyped between 1 and 20": f"SELECT count(*) FROM {CE} WHERE itemid = 223835 AND valuenum > 1 AND valuenum < 20",
    "GCS verbal 'No Response-ETT'": f"SELECT count(*) FROM {CE} WHERE itemid = 223900 AND value = 'No Response-ETT'",
    "two heart rates at one charttime": f"""SELECT count(*) FROM (SELECT stay_id, charttime FROM {CE}
                                            WHERE itemid = 220045 GROUP BY ALL HAVING count(*) > 1)""",
    "admission weights": f"SELECT count(DISTINCT stay_id) FROM {CE} WHERE itemid = 226512",
    "daily weights": f"SELECT count(DISTINCT stay_id) FROM {CE} WHERE itemid = 224639",
    "stays without any weight": f"""SELECT count(*) FROM mimiciv_icu.icustays i WHERE NOT EXISTS (SELECT 1 FROM {CE} c
                                    WHERE c.stay_id = i.stay_id AND c.itemid IN (226512, 224639))""",
    "GU irrigant": "SELECT count(*) FROM mimiciv_icu.outputevents WHERE itemid = 227488",
    "labs without hadm_id": "SELECT count(*) FROM mimiciv_hosp.labevents WHERE hadm_id IS NULL",
    "cultures with only a chart date": "SELECT count(*) FROM mimiciv_hosp.microbiologyevents WHERE charttime IS NULL",
    "BASE prescriptions": "SELECT count(*) FROM mimiciv_hosp.prescriptions WHERE drug_type = 'BASE'",
    "creams": "SELECT count(*) FROM mimiciv_hosp.prescriptions WHERE lower(drug) LIKE '%cream%'",
    "phenylephrine without a patient weight":
        "SELECT count(*) FROM mimiciv_icu.inputevents WHERE itemid = 221749 AND patientweight IS NULL",
    "Fahrenheit values in the Celsius field": f"SELECT count(*) FROM {CE} WHERE itemid = 223762 AND valuenum > 50",
    "Celsius values in the Fahrenheit field": f"SELECT count(*) FROM {CE} WHERE itemid = 223761 AND valuenum < 70",
    "ventilator settings above 100": f"SELECT count(*) FROM {CE} WHERE itemid = 220339 AND valuenum > 100",
    "lab values '___' without a number": "SELECT count(*) FROM mimiciv_hosp.labevents WHERE valuenum IS NULL AND value = '___'",
    "epinephrine pushes without a rate": """SELECT count(*) FROM mimiciv_icu.inputevents
                                            WHERE itemid = 221289 AND rate IS NULL AND ordercategorydescription = 'Drug Push'""",
    "norepinephrine in mcg/min": "SELECT count(*) FROM mimiciv_icu.inputevents WHERE itemid = 221906 AND rateuom = 'mcg/min'",
}


@pytest.mark.parametrize("case", list(MESSY_COUNTS))
def test_messy_case_is_planted(q: Query, case: str) -> None:
    assert q(MESSY_COUNTS[case])[0][0] > 0


def test_oxygen_devices_include_every_classified_and_unclassified_string(q: Query) -> None:
    devices = {r[0] for r in q(f"SELECT DISTINCT value FROM {CE} WHERE itemid = 226732")}
    assert {"T-piece", "Other", "Trach mask ", "Bipap mask ", "CPAP mask ", "Venti mask ", "Medium conc mask ",
            "Tracheostomy tube", "Endotracheal tube", "High flow nasal cannula", "Nasal cannula", "None"} <= devices


def test_ventilator_modes_include_unclassified_and_non_invasive_ones(q: Query) -> None:
    modes = {r[0] for r in q(f"SELECT DISTINCT value FROM {CE} WHERE itemid IN (223849, 229314)")}
    assert {"SPONT", "Standby"} & modes and {"NIV", "DuoPaP", "NIV-ST"} & modes


def test_organisms_include_the_not_positive_ones_and_none(q: Query) -> None:
    orgs = {r[0] for r in q("SELECT DISTINCT org_itemid FROM mimiciv_hosp.microbiologyevents")}
    assert {90856, 90760} <= orgs and None in orgs


def test_prescription_routes_include_topical_eye_ear_and_missing(q: Query) -> None:
    routes = {r[0] for r in q("SELECT DISTINCT route FROM mimiciv_hosp.prescriptions")}
    assert {"TP", "OU", "BOTH EYES", "LEFT EAR", None} <= routes


def test_vasoactive_rates_come_in_every_unit_variant(q: Query) -> None:
    rates = {(r[0], r[1]) for r in q("SELECT DISTINCT itemid, rateuom FROM mimiciv_icu.inputevents")}
    assert {(221906, "mg/kg/min"), (221906, "mcg/kg/min"), (221749, "mcg/min"), (221749, "mcg/kg/min"),
            (222315, "units/min"), (222315, "units/hour"), (221289, "mcg/kg/min"), (221662, "mcg/kg/min"),
            (221653, "mcg/kg/min"), (221986, "mcg/kg/min")} <= rates


def test_blood_gas_specimens_include_arterial_and_another(q: Query) -> None:
    specimens = {r[0] for r in q("SELECT DISTINCT value FROM mimiciv_hosp.labevents WHERE itemid = 52033")}
    assert "ART." in specimens and specimens & {"VEN.", "MIX.", "CENTRAL VENOUS."}


# ---------------------------------------------------------------------------
# shapes of real MIMIC-IV (docs/data.md)
# ---------------------------------------------------------------------------
def test_icu_stays_are_recorded_to_the_second_and_charted_events_on_the_minute(q: Query) -> None:
    stays, with_seconds, out_with_seconds = q("""
        SELECT COUNT(*), COUNT(*) FILTER (WHERE SECOND(intime) <> 0), COUNT(*) FILTER (WHERE SECOND(outtime) <> 0)
        FROM mimiciv_icu.icustays""")[0]
    assert with_seconds > stays / 2 and out_with_seconds > stays / 2
    assert with_seconds < stays, "some ICU admissions fall on the minute, as from the ED"
    for table, column in (("mimiciv_icu.chartevents", "charttime"), ("mimiciv_icu.outputevents", "charttime"),
                          ("mimiciv_hosp.labevents", "charttime"), ("mimiciv_icu.inputevents", "starttime"),
                          ("mimiciv_hosp.admissions", "admittime")):
        assert q(f"SELECT COUNT(*) FROM {table} WHERE SECOND({column}) <> 0")[0][0] == 0, table


def test_a_stays_transfer_and_length_of_stay_carry_its_seconds(q: Query) -> None:
    assert q("""
        SELECT COUNT(*) FROM mimiciv_icu.icustays AS ie
        LEFT JOIN mimiciv_hosp.transfers AS tr ON tr.transfer_id = ie.stay_id
        WHERE tr.intime IS DISTINCT FROM ie.intime OR tr.outtime IS DISTINCT FROM ie.outtime
            OR ABS(ie.los - EPOCH(ie.outtime - ie.intime) / 86400.0) > 1e-9""")[0][0] == 0
    assert q("""
        SELECT COUNT(*) FROM mimiciv_icu.icustays AS ie
        INNER JOIN mimiciv_hosp.transfers AS tr ON tr.hadm_id = ie.hadm_id AND tr.intime = ie.outtime
        WHERE SECOND(ie.outtime) <> 0""")[0][0] > 0, "no ward transfer begins when an ICU stay ends"


def test_services_are_recorded_to_the_second(q: Query) -> None:
    assert q("SELECT COUNT(*) FILTER (WHERE SECOND(transfertime) <> 0) FROM mimiciv_hosp.services")[0][0] > 0


def test_specimen_ids_are_eight_digits_in_no_charting_order(q: Query) -> None:
    low, high, out_of_order = q("""
        SELECT MIN(specimen_id), MAX(specimen_id),
               COUNT(*) FILTER (WHERE next_specimen < specimen_id)
        FROM (
            SELECT specimen_id, LEAD(specimen_id) OVER (ORDER BY charttime, specimen_id) AS next_specimen
            FROM (SELECT DISTINCT specimen_id, charttime FROM mimiciv_hosp.labevents)
        )""")[0]
    assert 10_000_000 <= low and high <= 99_999_999
    assert out_of_order > 0


def test_gas_specimens_of_different_kinds_are_drawn_together(q: Query) -> None:
    pairs = q("""
        SELECT subject_id, charttime, LIST(DISTINCT value) AS kinds
        FROM mimiciv_hosp.labevents WHERE itemid = 52033
        GROUP BY subject_id, charttime
        HAVING COUNT(DISTINCT specimen_id) > 1 AND COUNT(DISTINCT value) > 1""")
    assert pairs, "no arterial and venous gas at one charttime"


def test_the_lowest_gcs_is_charted_twice_with_other_components(q: Query) -> None:
    assert q(f"""
        WITH assessed AS (
            SELECT stay_id, charttime,
                   SUM(valuenum) AS total,
                   MAX(CASE WHEN itemid = 223901 THEN valuenum END) AS motor
            FROM {CE} WHERE itemid IN (220739, 223900, 223901)
            GROUP BY stay_id, charttime HAVING COUNT(*) = 3
        )
        SELECT COUNT(*) FROM (
            SELECT stay_id FROM assessed
            QUALIFY total = MIN(total) OVER (PARTITION BY stay_id)
        ) GROUP BY stay_id HAVING COUNT(*) > 1""")


def test_chart_values_are_text_integers_without_a_decimal_point(q: Query) -> None:
    assert q(f"SELECT value FROM {CE} WHERE itemid = 220045 LIMIT 1")[0][0].isdigit()


# ---------------------------------------------------------------------------
# branch coverage of the concepts (m4-infra's SQL on a copy)
# ---------------------------------------------------------------------------
_MATERIALIZED: dict[int, Path] = {}


def _materialized(seed: int, mimic_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from m4.core.derived.materializer import materialize_all

    if seed not in _MATERIALIZED:
        folder = tmp_path_factory.mktemp(f"derived_seed{seed}")
        source = mimic_db if seed == 42 else synthesize("mimic-iv", folder / "src", patients=200, seed=seed)
        copy = folder / "mimic_iv.duckdb"
        shutil.copy(source, copy)
        materialize_all("mimic-iv", copy)
        _MATERIALIZED[seed] = copy
    return _MATERIALIZED[seed]


@pytest.fixture(scope="module", params=[42, 1234], ids=["seed42", "seed1234"])
def dq(request: pytest.FixtureRequest, mimic_db: Path, tmp_path_factory: pytest.TempPathFactory):
    con, query = _query(_materialized(request.param, mimic_db, tmp_path_factory))
    yield query
    con.close()


def _distinct(q: Query, table: str, column: str) -> set:
    return {r[0] for r in q(f"SELECT DISTINCT {column} FROM mimiciv_derived.{table} WHERE {column} IS NOT NULL")}


@pytest.mark.slow
def test_m4_materializes_every_concept_with_rows(dq: Query) -> None:
    for table in ("sofa", "sapsii", "apsiii", "oasis", "kdigo_stages", "ventilation", "suspicion_of_infection",
                  "sepsis3", "norepinephrine_equivalent_dose", "urine_output_rate", "creatinine_baseline",
                  "charlson", "meld", "first_day_gcs", "crrt", "first_day_sofa", "lods", "sirs", "rrt",
                  "vasoactive_agent", "antibiotic", "bg", "gcs", "vitalsign", "weight_durations"):
        assert dq(f"SELECT count(*) FROM mimiciv_derived.{table}")[0][0] > 0, table


@pytest.mark.slow
def test_each_sofa_component_takes_every_value(dq: Query) -> None:
    for component in ("respiration", "coagulation", "liver", "cardiovascular", "cns", "renal"):
        assert _distinct(dq, "sofa", component) == {0, 1, 2, 3, 4}, component
        assert _distinct(dq, "sofa", f"{component}_24hours") == {0, 1, 2, 3, 4}, component
        assert _distinct(dq, "first_day_sofa", component) == {0, 1, 2, 3, 4}, component


@pytest.mark.slow
def test_ventilation_reaches_all_statuses_and_the_14_hour_gap(dq: Query) -> None:
    assert _distinct(dq, "ventilation", "ventilation_status") == {
        "Tracheostomy", "InvasiveVent", "NonInvasiveVent", "HFNC", "SupplementalOxygen", "None"}
    gaps = dq("""SELECT count(*) FROM (
                   SELECT starttime - lag(endtime) OVER w AS gap,
                          ventilation_status = lag(ventilation_status) OVER w AS same
                   FROM mimiciv_derived.ventilation WINDOW w AS (PARTITION BY stay_id ORDER BY starttime))
                 WHERE same AND gap >= INTERVAL 14 HOUR""")[0][0]
    assert gaps > 0


@pytest.mark.slow
def test_suspicion_of_infection_branches(dq: Query) -> None:
    soi = "mimiciv_derived.suspicion_of_infection"
    assert _distinct(dq, "suspicion_of_infection", "positive_culture") == {0, 1}
    assert _distinct(dq, "suspicion_of_infection", "suspected_infection") == {0, 1}
    assert dq(f"SELECT count(*) FROM {soi} WHERE antibiotic_time < culture_time")[0][0] > 0
    assert dq(f"SELECT count(*) FROM {soi} WHERE antibiotic_time > culture_time")[0][0] > 0
    chartdate_only = dq(f"""SELECT count(*) FROM {soi} s JOIN mimiciv_hosp.microbiologyevents m
                            ON m.subject_id = s.subject_id AND m.charttime IS NULL
                            AND CAST(m.chartdate AS TIMESTAMP) = s.culture_time
                            WHERE s.suspected_infection = 1""")[0][0]
    assert chartdate_only > 0
    assert _distinct(dq, "sepsis3", "sepsis3") == {True}


@pytest.mark.slow
def test_kdigo_stage_3_by_creatinine_by_urine_output_and_by_crrt_within_48_hours(dq: Query) -> None:
    paths = dq("""SELECT max(aki_stage_creat), max(aki_stage_uo), max(aki_stage_crrt)
                  FROM mimiciv_derived.kdigo_stages k JOIN mimiciv_icu.icustays i USING (stay_id)
                  WHERE k.charttime BETWEEN i.intime AND i.intime + INTERVAL 48 HOUR""")
    assert paths == [(3, 3, 3)]
    stages = _distinct(dq, "kdigo_stages", "aki_stage")
    assert stages == {0, 1, 2, 3}


@pytest.mark.slow
def test_every_oasis_and_sapsii_component_scores_more_than_one_value(dq: Query) -> None:
    for column in ("preiculos_score", "age_score", "gcs_score", "heart_rate_score", "mbp_score", "resp_rate_score",
                   "temp_score", "urineoutput_score", "mechvent_score", "electivesurgery_score"):
        assert len(_distinct(dq, "oasis", column)) > 1, f"oasis.{column}"
    for column in ("age_score", "hr_score", "sysbp_score", "temp_score", "pao2fio2_score", "uo_score", "bun_score",
                   "wbc_score", "potassium_score", "sodium_score", "bicarbonate_score", "bilirubin_score",
                   "gcs_score", "comorbidity_score", "admissiontype_score"):
        assert len(_distinct(dq, "sapsii", column)) > 1, f"sapsii.{column}"
    assert _distinct(dq, "oasis", "preiculos_score") == {0, 1, 2, 3, 5}
    assert _distinct(dq, "sapsii", "admissiontype_score") == {0, 6, 8}


@pytest.mark.slow
def test_other_scores_vary(dq: Query) -> None:
    for table, column in (("apsiii", "apsiii"), ("lods", "lods"), ("sirs", "sirs"), ("meld", "meld"),
                          ("charlson", "charlson_comorbidity_index"), ("first_day_gcs", "gcs_min"),
                          ("norepinephrine_equivalent_dose", "norepinephrine_equivalent_dose"),
                          ("urine_output_rate", "uo_mlkghr_24hr")):
        assert len(_distinct(dq, table, column)) >= 4, f"{table}.{column}"
    assert _distinct(dq, "sirs", "sirs") >= {0, 1, 2, 3, 4}
    # Charlson comorbidities from ICD-9 and from ICD-10 codes
    for version in (9, 10):
        flagged = dq(f"""SELECT count(*) FROM mimiciv_derived.charlson c WHERE c.hadm_id IN
                         (SELECT hadm_id FROM mimiciv_hosp.diagnoses_icd WHERE icd_version = {version})
                         AND c.charlson_comorbidity_index > c.age_score""")[0][0]
        assert flagged > 0, version


@pytest.mark.slow
def test_creatinine_baseline_branches(dq: Query) -> None:
    rows = set(dq("""SELECT ckd, CASE WHEN scr_min IS NULL THEN 'none' WHEN scr_min <= 1.1 THEN 'low' ELSE 'high' END
                     FROM mimiciv_derived.creatinine_baseline"""))
    assert {(0, "low"), (0, "high"), (0, "none"), (1, "low"), (1, "high")} <= rows
    # an outpatient creatinine (no hadm_id) before an admission feeds KDIGO but not the baseline
    prior = dq("""SELECT count(*) FROM mimiciv_hosp.labevents l JOIN mimiciv_hosp.admissions a
                  ON a.subject_id = l.subject_id AND l.charttime < a.admittime
                  WHERE l.itemid = 50912 AND l.hadm_id IS NULL""")[0][0]
    assert prior > 0
