"""The loader on files written by hand exactly as PhysioNet publishes them, not by our exporter.

MIMIC-IV 3.1 ships ``hosp/<table>.csv.gz`` and ``icu/<table>.csv.gz``, eICU-CRD 2.0 one flat
folder of camelCase ``<table>.csv.gz``: gzip, a header row of the column names in the order
of the published DDL (mimic-code ``mimic-iv/buildmimic/postgres/create.sql``, eicu-code
``build-db/postgres``), comma separated, text holding a comma or a quote in double quotes
with the quote doubled, an empty unquoted field for NULL (mimic-code and eicu-code load
with ``CSV HEADER NULL ''``), timestamps as ``YYYY-MM-DD HH:MM:SS``. The rows below are typed
in that form; every other table file holds only its header (the loader needs every file).
The MIMIC-IV headers of those files come from the published DDL's facts
(tests/fixtures/mimic_code_ddl), not from m4agent/data/schema.py.
"""

from __future__ import annotations

import datetime as dt
import gzip
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from rich.console import Console
from support import ddl_facts

from m4agent.data.load import load
from m4agent.data.schema import EICU

MIMIC_FILES = {
    "hosp/patients.csv.gz": (
        "subject_id,gender,anchor_age,anchor_year,anchor_year_group,dod\n"
        "10000032,F,52,2180,2014 - 2016,2180-09-09\n"
        "10000048,M,23,2126,2008 - 2010,\n"
    ),
    "hosp/admissions.csv.gz": (
        "subject_id,hadm_id,admittime,dischtime,deathtime,admission_type,admit_provider_id,admission_location,"
        "discharge_location,insurance,language,marital_status,race,edregtime,edouttime,hospital_expire_flag\n"
        "10000032,22595853,2180-05-06 22:23:00,2180-05-07 17:15:00,,URGENT,P874LG,TRANSFER FROM HOSPITAL,"
        "HOME,Other,English,WIDOWED,WHITE,2180-05-06 19:17:00,2180-05-06 23:30:00,0\n"
    ),
    "hosp/diagnoses_icd.csv.gz": (
        "subject_id,hadm_id,seq_num,icd_code,icd_version\n"
        "10000032,22595853,1,5723,9\n"
        "10000032,22595853,2,0389,9\n"
    ),
    "hosp/labevents.csv.gz": (
        "labevent_id,subject_id,hadm_id,specimen_id,itemid,order_provider_id,charttime,storetime,value,valuenum,"
        "valueuom,ref_range_lower,ref_range_upper,flag,priority,comments\n"
        "1,10000032,,2704548,50931,P69FQC,2180-03-23 11:51:00,2180-03-23 15:56:00,___,95,mg/dL,70,100,,ROUTINE,"
        "\"IF FASTING, 70-100 NORMAL, >125 PROVISIONAL DIABETES.\"\n"
        "2,10000032,22595853,2704549,50912,,2180-05-06 22:25:00,2180-05-06 23:34:00,0.8,0.8,mg/dL,0.4,1.1,,STAT,"
        "\"Reported as \"\"<0.3\"\" by the lab\"\n"
        "3,10000032,22595853,2704549,51221,,2180-05-06 22:25:00,,\"\",,%,,,abnormal,STAT,\n"
    ),
    "hosp/microbiologyevents.csv.gz": (
        "microevent_id,subject_id,hadm_id,micro_specimen_id,order_provider_id,chartdate,charttime,spec_itemid,"
        "spec_type_desc,test_seq,storedate,storetime,test_itemid,test_name,org_itemid,org_name,isolate_num,"
        "quantity,ab_itemid,ab_name,dilution_text,dilution_comparison,dilution_value,interpretation,comments\n"
        "1,10000032,,7502187,,2180-03-23 00:00:00,,70012,BLOOD CULTURE,1,2180-03-28 00:00:00,"
        "2180-03-28 10:31:00,90201,\"Blood Culture, Routine\",,,,,,,,,,,NO GROWTH.\n"
    ),
    "hosp/prescriptions.csv.gz": (
        "subject_id,hadm_id,pharmacy_id,poe_id,poe_seq,order_provider_id,starttime,stoptime,drug_type,drug,"
        "formulary_drug_cd,gsn,ndc,prod_strength,form_rx,dose_val_rx,dose_unit_rx,form_val_disp,form_unit_disp,"
        "doses_per_24_hrs,route\n"
        "10000032,22595853,48770010,10000032-36,36,P874LG,2180-05-07 00:00:00,2180-05-07 22:00:00,MAIN,"
        "Sodium Chloride 0.9%  Flush,NACLFLUSH,,00409488820,10 mL Syringe,,3,mL,0.3,SYR,3,IV\n"
    ),
    "icu/icustays.csv.gz": (
        "subject_id,hadm_id,stay_id,first_careunit,last_careunit,intime,outtime,los\n"
        "10000032,29079034,39553978,Medical Intensive Care Unit (MICU),Medical Intensive Care Unit (MICU),"
        "2180-07-23 14:00:00,2180-07-23 23:50:47,0.4102662037037037\n"
    ),
    "icu/chartevents.csv.gz": (
        "subject_id,hadm_id,stay_id,caregiver_id,charttime,storetime,itemid,value,valuenum,valueuom,warning\n"
        "10000032,29079034,39553978,18704,2180-07-23 12:36:00,2180-07-23 14:45:00,226512,39.4,39.4,kg,0\n"
        "10000032,29079034,39553978,,2180-07-23 14:00:00,2180-07-23 14:18:00,223900,No Response-ETT,,,0\n"
        "10000032,29079034,39553978,18704,2180-07-23 14:00:00,,226732,\"Nasal cannula, Face tent\",,,\n"
    ),
}

EICU_FILES = {
    "patient.csv.gz": (
        "patientunitstayid,patienthealthsystemstayid,gender,age,ethnicity,hospitalid,wardid,apacheadmissiondx,"
        "admissionheight,hospitaladmittime24,hospitaladmitoffset,hospitaladmitsource,hospitaldischargeyear,"
        "hospitaldischargetime24,hospitaldischargeoffset,hospitaldischargelocation,hospitaldischargestatus,"
        "unittype,unitadmittime24,unitadmitsource,unitvisitnumber,unitstaytype,admissionweight,dischargeweight,"
        "unitdischargetime24,unitdischargeoffset,unitdischargelocation,unitdischargestatus,uniquepid\n"
        "141168,128919,Female,70,Caucasian,59,91,\"Rhythm disturbance (atrial, supraventricular)\",152.4,"
        "15:54:00,0,Direct Admit,2015,03:50:00,3596,Death,Expired,Med-Surg ICU,15:54:00,Direct Admit,1,admit,"
        "84.3,85.8,03:50:00,3596,Death,Expired,002-34851\n"
        "141178,128927,Female,> 89,,60,83,,,09:10:00,-14,,2015,16:34:00,4244,Home,Alive,Med-Surg ICU,"
        "09:24:00,Emergency Department,1,admit,,,19:08:00,585,Floor,Alive,002-33870\n"
    ),
    "nurseCharting.csv.gz": (
        "nursingchartid,patientunitstayid,nursingchartoffset,nursingchartentryoffset,nursingchartcelltypecat,"
        "nursingchartcelltypevallabel,nursingchartcelltypevalname,nursingchartvalue\n"
        "1,141168,-5,-5,Vital Signs,Heart Rate,Heart Rate,140\n"
        "2,141168,120,125,Scores,Glasgow coma score,GCS Total,Unable to score due to medication\n"
    ),
    "lab.csv.gz": (
        "labid,patientunitstayid,labresultoffset,labtypeid,labname,labresult,labresulttext,labmeasurenamesystem,"
        "labmeasurenameinterface,labresultrevisedoffset\n"
        "52307161,141168,2026,3,fibrinogen,177,177,mg/dL,mg/dL,2219\n"
        "52307162,141168,-120,1,sodium,,\"<1,000\",mmol/L,,-100\n"
    ),
}


def _write_gz(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode("utf-8")))


def _mimic_folder(root: Path) -> Path:
    for table, columns in ddl_facts.published_tables().items():
        schema, name = table.split(".")
        rel = f"{'hosp' if schema == 'mimiciv_hosp' else 'icu'}/{name}.csv.gz"
        _write_gz(root / rel, MIMIC_FILES.get(rel, ",".join(c["column"] for c in columns) + "\n"))
    return root


def _eicu_folder(root: Path) -> Path:
    for table in EICU.values():
        rel = f"{table.file_stem}.csv.gz"
        _write_gz(root / rel, EICU_FILES.get(rel, ",".join(table.column_names) + "\n"))
    return root


@pytest.fixture(scope="module")
def mimic(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    root = tmp_path_factory.mktemp("physionet_mimic")
    db = load("mimic-iv", _mimic_folder(root / "mimiciv" / "3.1"), root / "data", console=Console(quiet=True))
    con = duckdb.connect(str(db), read_only=True)
    yield con
    con.close()


@pytest.fixture(scope="module")
def eicu(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    root = tmp_path_factory.mktemp("physionet_eicu")
    db = load("eicu", _eicu_folder(root / "eicu-crd" / "2.0"), root / "data", console=Console(quiet=True))
    con = duckdb.connect(str(db), read_only=True)
    yield con
    con.close()


def _one(con: duckdb.DuckDBPyConnection, sql: str) -> tuple:
    rows = con.execute(sql).fetchall()
    assert len(rows) == 1, rows
    return rows[0]


def _type(con: duckdb.DuckDBPyConnection, table: str, column: str) -> str:
    schema, name = table.split(".")
    return _one(con, "SELECT data_type FROM information_schema.columns WHERE table_schema = ? AND "
                     f"table_name = '{name}' AND column_name = '{column}'".replace("?", f"'{schema}'"))[0]


# -- MIMIC-IV ----------------------------------------------------------------------------------

def test_mimic_every_row_written_is_loaded(mimic: duckdb.DuckDBPyConnection) -> None:
    counts = {rel: mimic.execute(f"SELECT count(*) FROM mimiciv_{rel.split('/')[0]}.{rel.split('/')[1][:-7]}")
              .fetchone()[0] for rel in MIMIC_FILES}
    assert counts == {rel: text.count("\n") - 1 for rel, text in MIMIC_FILES.items()}


@pytest.mark.parametrize(("table", "column", "expected"), [
    ("mimiciv_hosp.patients", "dod", "DATE"),
    ("mimiciv_hosp.patients", "anchor_age", "SMALLINT"),
    ("mimiciv_hosp.admissions", "admittime", "TIMESTAMP"),
    ("mimiciv_hosp.diagnoses_icd", "icd_code", "VARCHAR"),
    ("mimiciv_hosp.labevents", "valuenum", "DOUBLE"),
    ("mimiciv_hosp.prescriptions", "doses_per_24_hrs", "FLOAT"),
    ("mimiciv_hosp.prescriptions", "ndc", "VARCHAR"),
    ("mimiciv_icu.icustays", "los", "DOUBLE"),
    ("mimiciv_icu.chartevents", "warning", "SMALLINT"),
])
def test_mimic_columns_have_the_official_types(mimic: duckdb.DuckDBPyConnection, table: str, column: str,
                                               expected: str) -> None:
    assert _type(mimic, table, column) == expected


def test_mimic_empty_field_is_null(mimic: duckdb.DuckDBPyConnection) -> None:
    assert _one(mimic, "SELECT dod FROM mimiciv_hosp.patients WHERE subject_id = 10000048") == (None,)
    assert _one(mimic, "SELECT deathtime FROM mimiciv_hosp.admissions") == (None,)
    assert _one(mimic, "SELECT hadm_id, flag FROM mimiciv_hosp.labevents WHERE labevent_id = 1") == (None, None)


def test_mimic_quoted_empty_field_is_an_empty_string(mimic: duckdb.DuckDBPyConnection) -> None:
    assert _one(mimic, "SELECT value, valuenum FROM mimiciv_hosp.labevents WHERE labevent_id = 3") == ("", None)


def test_mimic_quoted_text_keeps_its_commas_and_quotes(mimic: duckdb.DuckDBPyConnection) -> None:
    comments = dict(mimic.execute("SELECT labevent_id, comments FROM mimiciv_hosp.labevents").fetchall())
    assert comments == {1: "IF FASTING, 70-100 NORMAL, >125 PROVISIONAL DIABETES.",
                        2: 'Reported as "<0.3" by the lab', 3: None}
    assert _one(mimic, "SELECT test_name FROM mimiciv_hosp.microbiologyevents") == ("Blood Culture, Routine",)
    assert _one(mimic, "SELECT value FROM mimiciv_icu.chartevents WHERE itemid = 226732") == (
        "Nasal cannula, Face tent",)


def test_mimic_timestamps_and_dates_are_read_to_the_second(mimic: duckdb.DuckDBPyConnection) -> None:
    assert _one(mimic, "SELECT intime, outtime FROM mimiciv_icu.icustays") == (
        dt.datetime(2180, 7, 23, 14, 0, 0), dt.datetime(2180, 7, 23, 23, 50, 47))
    assert _one(mimic, "SELECT dod FROM mimiciv_hosp.patients WHERE subject_id = 10000032") == (dt.date(2180, 9, 9),)
    assert _one(mimic, "SELECT chartdate, charttime FROM mimiciv_hosp.microbiologyevents") == (
        dt.datetime(2180, 3, 23, 0, 0), None)


def test_mimic_codes_keep_their_leading_zeros(mimic: duckdb.DuckDBPyConnection) -> None:
    codes = [r[0] for r in mimic.execute("SELECT icd_code FROM mimiciv_hosp.diagnoses_icd ORDER BY seq_num").fetchall()]
    assert codes == ["5723", "0389"]
    assert _one(mimic, "SELECT ndc FROM mimiciv_hosp.prescriptions") == ("00409488820",)


def test_mimic_numbers_and_text_in_one_value_column(mimic: duckdb.DuckDBPyConnection) -> None:
    rows = mimic.execute("SELECT value, valuenum, valueuom FROM mimiciv_icu.chartevents ORDER BY itemid").fetchall()
    assert rows == [("No Response-ETT", None, None), ("39.4", 39.4, "kg"), ("Nasal cannula, Face tent", None, None)]
    assert _one(mimic, "SELECT los FROM mimiciv_icu.icustays") == (0.4102662037037037,)


def test_mimic_double_spaces_inside_text_are_kept(mimic: duckdb.DuckDBPyConnection) -> None:
    assert _one(mimic, "SELECT drug, gsn FROM mimiciv_hosp.prescriptions") == ("Sodium Chloride 0.9%  Flush", None)


# -- eICU-CRD ----------------------------------------------------------------------------------

def test_eicu_every_row_written_is_loaded(eicu: duckdb.DuckDBPyConnection) -> None:
    tables = {"patient.csv.gz": "patient", "nurseCharting.csv.gz": "nursecharting", "lab.csv.gz": "lab"}
    counts = {rel: eicu.execute(f"SELECT count(*) FROM eicu_crd.{name}").fetchone()[0] for rel, name in tables.items()}
    assert counts == {rel: text.count("\n") - 1 for rel, text in EICU_FILES.items()}


def test_eicu_age_is_text_and_keeps_the_over_89_band(eicu: duckdb.DuckDBPyConnection) -> None:
    ages = dict(eicu.execute("SELECT patientunitstayid, age FROM eicu_crd.patient").fetchall())
    assert ages == {141168: "70", 141178: "> 89"}
    assert _type(eicu, "eicu_crd.patient", "age") == "VARCHAR"


def test_eicu_offsets_are_signed_integers(eicu: duckdb.DuckDBPyConnection) -> None:
    offsets = [r[0] for r in eicu.execute(
        "SELECT nursingchartoffset FROM eicu_crd.nursecharting ORDER BY nursingchartid").fetchall()]
    assert offsets == [-5, 120]
    assert _one(eicu, "SELECT hospitaladmitoffset FROM eicu_crd.patient WHERE patientunitstayid = 141178") == (-14,)


def test_eicu_numeric_columns_are_decimals_and_empty_is_null(eicu: duckdb.DuckDBPyConnection) -> None:
    heights = dict(eicu.execute("SELECT patientunitstayid, admissionheight FROM eicu_crd.patient").fetchall())
    assert heights == {141168: Decimal("152.40"), 141178: None}
    results = dict(eicu.execute("SELECT labid, labresult FROM eicu_crd.lab").fetchall())
    assert results == {52307161: Decimal("177.0000"), 52307162: None}


def test_eicu_quoted_text_keeps_its_commas(eicu: duckdb.DuckDBPyConnection) -> None:
    assert _one(eicu, "SELECT labresulttext FROM eicu_crd.lab WHERE labid = 52307162") == ("<1,000",)
    assert _one(eicu, "SELECT apacheadmissiondx FROM eicu_crd.patient WHERE patientunitstayid = 141168") == (
        "Rhythm disturbance (atrial, supraventricular)",)


def test_eicu_text_values_in_a_value_column_load_as_text(eicu: duckdb.DuckDBPyConnection) -> None:
    values = [r[0] for r in eicu.execute(
        "SELECT nursingchartvalue FROM eicu_crd.nursecharting ORDER BY nursingchartid").fetchall()]
    assert values == ["140", "Unable to score due to medication"]
