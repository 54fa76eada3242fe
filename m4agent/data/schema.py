"""Official table definitions of MIMIC-IV 3.1 and eICU-CRD 2.0.

Column names, order and types follow the PhysioNet create scripts
(mimic-code ``mimic-iv/buildmimic/postgres/create.sql`` and eicu-code
``build-db/postgres``). Postgres types map to DuckDB as follows: ``FLOAT`` and
``DOUBLE PRECISION`` are 8-byte (``DOUBLE``), ``REAL`` is 4-byte (``FLOAT``),
``CHAR``/``VARCHAR``/``TEXT`` are ``VARCHAR`` and ``NUMERIC(p,s)`` is
``DECIMAL(p,s)``.

Every other module (loader, synthetic generator, dbt sources) reads the
schemas from here, so there is exactly one place that says what a table is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # DuckDB type
    not_null: bool = False


@dataclass(frozen=True)
class Table:
    schema: str
    name: str
    columns: tuple[Column, ...]
    file_stem: str  # file name without .csv.gz, relative to the dataset root

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def qualified(self) -> str:
        return f"{self.schema}.{self.name}"

    def duckdb_types(self) -> dict[str, str]:
        return {c.name: c.type for c in self.columns}


_PG_TO_DUCKDB = [
    (r"^(CHAR|VARCHAR)\(\d+\)$", "VARCHAR"),
    (r"^TEXT$", "VARCHAR"),
    (r"^INTEGER$|^INT$", "INTEGER"),
    (r"^BIGINT$", "BIGINT"),
    (r"^SMALLINT$", "SMALLINT"),
    (r"^FLOAT$|^DOUBLE$", "DOUBLE"),
    (r"^REAL$", "FLOAT"),
    (r"^TIMESTAMP$", "TIMESTAMP"),
    (r"^DATE$", "DATE"),
]


def _duckdb_type(pg_type: str) -> str:
    pg_type = pg_type.upper()
    m = re.match(r"^NUMERIC\((\d+),\s*(\d+)\)$", pg_type)
    if m:
        return f"DECIMAL({m.group(1)},{m.group(2)})"
    for pattern, duck in _PG_TO_DUCKDB:
        if re.match(pattern, pg_type):
            return duck
    raise ValueError(f"unmapped type {pg_type!r}")


def _table(schema: str, name: str, spec: str, file_stem: str) -> Table:
    """Build a table from ``"col TYPE [NN], ..."`` (Postgres spelling)."""
    cols = []
    for part in (p.strip() for p in spec.split(";") if p.strip()):
        bits = part.split()
        not_null = bits[-1] == "NN"
        if not_null:
            bits = bits[:-1]
        cols.append(Column(bits[0], _duckdb_type(bits[1]), not_null))
    return Table(schema, name, tuple(cols), file_stem)


# --------------------------------------------------------------------------
# MIMIC-IV 3.1 (hosp/ and icu/ folders)
# --------------------------------------------------------------------------
_MIMIC_HOSP = {
    "patients": "subject_id INTEGER NN; gender CHAR(1) NN; anchor_age SMALLINT; anchor_year SMALLINT NN; anchor_year_group VARCHAR(20) NN; dod DATE",
    "admissions": "subject_id INTEGER NN; hadm_id INTEGER NN; admittime TIMESTAMP NN; dischtime TIMESTAMP; deathtime TIMESTAMP; admission_type VARCHAR(40) NN; admit_provider_id VARCHAR(10); admission_location VARCHAR(60); discharge_location VARCHAR(60); insurance VARCHAR(255); language VARCHAR(25); marital_status VARCHAR(30); race VARCHAR(80); edregtime TIMESTAMP; edouttime TIMESTAMP; hospital_expire_flag SMALLINT",
    "diagnoses_icd": "subject_id INTEGER NN; hadm_id INTEGER NN; seq_num INTEGER NN; icd_code CHAR(7); icd_version SMALLINT",
    "labevents": "labevent_id INTEGER NN; subject_id INTEGER NN; hadm_id INTEGER; specimen_id INTEGER NN; itemid INTEGER NN; order_provider_id VARCHAR(10); charttime TIMESTAMP; storetime TIMESTAMP; value VARCHAR(200); valuenum DOUBLE; valueuom VARCHAR(20); ref_range_lower DOUBLE; ref_range_upper DOUBLE; flag VARCHAR(10); priority VARCHAR(7); comments TEXT",
    "d_labitems": "itemid INTEGER NN; label VARCHAR(50); fluid VARCHAR(50); category VARCHAR(50)",
    # spec_type_desc: mimic-code's create.sql says NOT NULL; here it is nullable, deliberately: the
    # original M4Bench loads PhysioNet's CSVs with no constraints, so a culture without a specimen
    # type loads there and must load here (the synthetic edge cases plant such cultures, which
    # suspicion_of_infection groups on). Listed in tests/test_schema_ddl.py.
    "microbiologyevents": "microevent_id INTEGER NN; subject_id INTEGER NN; hadm_id INTEGER; micro_specimen_id INTEGER NN; order_provider_id VARCHAR(10); chartdate TIMESTAMP NN; charttime TIMESTAMP; spec_itemid INTEGER NN; spec_type_desc VARCHAR(100); test_seq INTEGER NN; storedate TIMESTAMP; storetime TIMESTAMP; test_itemid INTEGER; test_name VARCHAR(100); org_itemid INTEGER; org_name VARCHAR(100); isolate_num SMALLINT; quantity VARCHAR(50); ab_itemid INTEGER; ab_name VARCHAR(30); dilution_text VARCHAR(10); dilution_comparison VARCHAR(20); dilution_value DOUBLE; interpretation VARCHAR(5); comments TEXT",
    # drug: mimic-code's create.sql says NOT NULL; here it is nullable, deliberately: the original
    # loads without constraints, and the antibiotic concept drops a row with a NULL drug (its name
    # patterns never match NULL) as m4-infra does, where NOT NULL would fail the whole load.
    # No reason was recorded when the schema was first written; listed in tests/test_schema_ddl.py.
    "prescriptions": "subject_id INTEGER NN; hadm_id INTEGER NN; pharmacy_id INTEGER NN; poe_id VARCHAR(25); poe_seq INTEGER; order_provider_id VARCHAR(10); starttime TIMESTAMP; stoptime TIMESTAMP; drug_type VARCHAR(20) NN; drug VARCHAR(255); formulary_drug_cd VARCHAR(50); gsn VARCHAR(255); ndc VARCHAR(25); prod_strength VARCHAR(255); form_rx VARCHAR(25); dose_val_rx VARCHAR(100); dose_unit_rx VARCHAR(50); form_val_disp VARCHAR(50); form_unit_disp VARCHAR(50); doses_per_24_hrs REAL; route VARCHAR(50)",
    "services": "subject_id INTEGER NN; hadm_id INTEGER NN; transfertime TIMESTAMP NN; prev_service VARCHAR(10); curr_service VARCHAR(10)",
    "transfers": "subject_id INTEGER NN; hadm_id INTEGER; transfer_id INTEGER NN; eventtype VARCHAR(10); careunit VARCHAR(255); intime TIMESTAMP; outtime TIMESTAMP",
}

_MIMIC_ICU = {
    "icustays": "subject_id INTEGER NN; hadm_id INTEGER NN; stay_id INTEGER NN; first_careunit VARCHAR(255); last_careunit VARCHAR(255); intime TIMESTAMP; outtime TIMESTAMP; los FLOAT",
    "chartevents": "subject_id INTEGER NN; hadm_id INTEGER NN; stay_id INTEGER NN; caregiver_id INTEGER; charttime TIMESTAMP NN; storetime TIMESTAMP; itemid INTEGER NN; value VARCHAR(200); valuenum FLOAT; valueuom VARCHAR(20); warning SMALLINT",
    "d_items": "itemid INTEGER NN; label VARCHAR(100) NN; abbreviation VARCHAR(50) NN; linksto VARCHAR(30) NN; category VARCHAR(50) NN; unitname VARCHAR(50); param_type VARCHAR(20) NN; lownormalvalue FLOAT; highnormalvalue FLOAT",
    "inputevents": "subject_id INTEGER NN; hadm_id INTEGER NN; stay_id INTEGER; caregiver_id INTEGER; starttime TIMESTAMP NN; endtime TIMESTAMP NN; storetime TIMESTAMP; itemid INTEGER NN; amount FLOAT; amountuom VARCHAR(20); rate FLOAT; rateuom VARCHAR(20); orderid INTEGER NN; linkorderid INTEGER; ordercategoryname VARCHAR(50); secondaryordercategoryname VARCHAR(50); ordercomponenttypedescription VARCHAR(100); ordercategorydescription VARCHAR(30); patientweight FLOAT; totalamount FLOAT; totalamountuom VARCHAR(50); isopenbag SMALLINT; continueinnextdept SMALLINT; statusdescription VARCHAR(20); originalamount FLOAT; originalrate FLOAT",
    "outputevents": "subject_id INTEGER NN; hadm_id INTEGER NN; stay_id INTEGER NN; caregiver_id INTEGER; charttime TIMESTAMP NN; storetime TIMESTAMP NN; itemid INTEGER NN; value FLOAT NN; valueuom VARCHAR(20)",
    "procedureevents": "subject_id INTEGER NN; hadm_id INTEGER NN; stay_id INTEGER NN; caregiver_id INTEGER; starttime TIMESTAMP NN; endtime TIMESTAMP NN; storetime TIMESTAMP NN; itemid INTEGER NN; value FLOAT; valueuom VARCHAR(20); location VARCHAR(100); locationcategory VARCHAR(50); orderid INTEGER; linkorderid INTEGER; ordercategoryname VARCHAR(50); ordercategorydescription VARCHAR(30); patientweight FLOAT; isopenbag SMALLINT; continueinnextdept SMALLINT; statusdescription VARCHAR(20); originalamount FLOAT; originalrate FLOAT",
    "datetimeevents": "subject_id INTEGER NN; hadm_id INTEGER NN; stay_id INTEGER NN; caregiver_id INTEGER; charttime TIMESTAMP NN; storetime TIMESTAMP; itemid INTEGER NN; value TIMESTAMP NN; valueuom VARCHAR(20); warning SMALLINT",
    "ingredientevents": "subject_id INTEGER NN; hadm_id INTEGER NN; stay_id INTEGER; caregiver_id INTEGER; starttime TIMESTAMP NN; endtime TIMESTAMP NN; storetime TIMESTAMP; itemid INTEGER NN; amount FLOAT; amountuom VARCHAR(20); rate FLOAT; rateuom VARCHAR(20); orderid INTEGER NN; linkorderid INTEGER; statusdescription VARCHAR(20); originalamount FLOAT; originalrate FLOAT",
}

MIMIC_IV: dict[str, Table] = {}
for _name, _spec in _MIMIC_HOSP.items():
    MIMIC_IV[f"mimiciv_hosp.{_name}"] = _table("mimiciv_hosp", _name, _spec, f"hosp/{_name}")
for _name, _spec in _MIMIC_ICU.items():
    MIMIC_IV[f"mimiciv_icu.{_name}"] = _table("mimiciv_icu", _name, _spec, f"icu/{_name}")


# --------------------------------------------------------------------------
# eICU-CRD 2.0 (flat folder, camelCase file names, lower-case tables)
# --------------------------------------------------------------------------
_EICU = {
    "patient": ("patient", "patientunitstayid INTEGER; patienthealthsystemstayid INTEGER; gender VARCHAR(25); age VARCHAR(10); ethnicity VARCHAR(50); hospitalid INTEGER; wardid INTEGER; apacheadmissiondx VARCHAR(1000); admissionheight NUMERIC(10,2); hospitaladmittime24 VARCHAR(8); hospitaladmitoffset INTEGER; hospitaladmitsource VARCHAR(30); hospitaldischargeyear SMALLINT; hospitaldischargetime24 VARCHAR(8); hospitaldischargeoffset INTEGER; hospitaldischargelocation VARCHAR(100); hospitaldischargestatus VARCHAR(10); unittype VARCHAR(50); unitadmittime24 VARCHAR(8); unitadmitsource VARCHAR(100); unitvisitnumber INTEGER; unitstaytype VARCHAR(15); admissionweight NUMERIC(10,2); dischargeweight NUMERIC(10,2); unitdischargetime24 VARCHAR(8); unitdischargeoffset INTEGER; unitdischargelocation VARCHAR(100); unitdischargestatus VARCHAR(10); uniquepid VARCHAR(10)"),
    "nursecharting": ("nurseCharting", "nursingchartid BIGINT; patientunitstayid INTEGER; nursingchartoffset INTEGER; nursingchartentryoffset INTEGER; nursingchartcelltypecat VARCHAR(255); nursingchartcelltypevallabel VARCHAR(255); nursingchartcelltypevalname VARCHAR(255); nursingchartvalue VARCHAR(255)"),
    "vitalperiodic": ("vitalPeriodic", "vitalperiodicid BIGINT; patientunitstayid INTEGER; observationoffset INTEGER; temperature NUMERIC(11,4); sao2 INTEGER; heartrate INTEGER; respiration INTEGER; cvp INTEGER; etco2 INTEGER; systemicsystolic INTEGER; systemicdiastolic INTEGER; systemicmean INTEGER; pasystolic INTEGER; padiastolic INTEGER; pamean INTEGER; st1 DOUBLE; st2 DOUBLE; st3 DOUBLE; icp INTEGER"),
    "vitalaperiodic": ("vitalAperiodic", "vitalaperiodicid INTEGER; patientunitstayid INTEGER; observationoffset INTEGER; noninvasivesystolic DOUBLE; noninvasivediastolic DOUBLE; noninvasivemean DOUBLE; paop DOUBLE; cardiacoutput DOUBLE; cardiacinput DOUBLE; svr DOUBLE; svri DOUBLE; pvr DOUBLE; pvri DOUBLE"),
    "lab": ("lab", "labid INTEGER; patientunitstayid INTEGER; labresultoffset INTEGER; labtypeid NUMERIC(3,0); labname VARCHAR(256); labresult NUMERIC(11,4); labresulttext VARCHAR(255); labmeasurenamesystem VARCHAR(255); labmeasurenameinterface VARCHAR(255); labresultrevisedoffset INTEGER"),
    "intakeoutput": ("intakeOutput", "intakeoutputid INTEGER; patientunitstayid INTEGER; intakeoutputoffset INTEGER; intaketotal NUMERIC(12,4); outputtotal NUMERIC(12,4); dialysistotal NUMERIC(12,4); nettotal NUMERIC(12,4); intakeoutputentryoffset INTEGER; cellpath VARCHAR(500); celllabel VARCHAR(255); cellvaluenumeric NUMERIC(12,4); cellvaluetext VARCHAR(255)"),
    "respiratorycare": ("respiratoryCare", "respcareid INTEGER; patientunitstayid INTEGER; respcarestatusoffset INTEGER; currenthistoryseqnum INTEGER; airwaytype VARCHAR(30); airwaysize VARCHAR(10); airwayposition VARCHAR(32); cuffpressure NUMERIC(5,1); ventstartoffset INTEGER; ventendoffset INTEGER; priorventstartoffset INTEGER; priorventendoffset INTEGER; apneaparams VARCHAR(80); lowexhmvlimit NUMERIC(11,4); hiexhmvlimit NUMERIC(11,4); lowexhtvlimit NUMERIC(11,4); hipeakpreslimit NUMERIC(11,4); lowpeakpreslimit NUMERIC(11,4); hirespratelimit NUMERIC(11,4); lowrespratelimit NUMERIC(11,4); sighpreslimit NUMERIC(11,4); lowironoxlimit NUMERIC(11,4); highironoxlimit NUMERIC(11,4); meanairwaypreslimit NUMERIC(11,4); peeplimit NUMERIC(11,4); cpaplimit NUMERIC(11,4); setapneainterval VARCHAR(80); setapneatv VARCHAR(80); setapneaippeephigh VARCHAR(80); setapnearr VARCHAR(80); setapneapeakflow VARCHAR(80); setapneainsptime VARCHAR(80); setapneaie VARCHAR(80); setapneafio2 VARCHAR(80)"),
    "apacheapsvar": ("apacheApsVar", "apacheapsvarid INTEGER; patientunitstayid INTEGER; intubated SMALLINT; vent SMALLINT; dialysis SMALLINT; eyes SMALLINT; motor SMALLINT; verbal SMALLINT; meds SMALLINT; urine DOUBLE; wbc DOUBLE; temperature DOUBLE; respiratoryrate DOUBLE; sodium DOUBLE; heartrate DOUBLE; meanbp DOUBLE; ph DOUBLE; hematocrit DOUBLE; creatinine DOUBLE; albumin DOUBLE; pao2 DOUBLE; pco2 DOUBLE; bun DOUBLE; glucose DOUBLE; bilirubin DOUBLE; fio2 DOUBLE"),
    "apachepredvar": ("apachePredVar", "apachepredvarid INTEGER; patientunitstayid INTEGER; sicuday SMALLINT; saps3day1 SMALLINT; saps3today SMALLINT; saps3yesterday SMALLINT; gender SMALLINT; teachtype SMALLINT; region SMALLINT; bedcount SMALLINT; admitsource SMALLINT; graftcount SMALLINT; meds SMALLINT; verbal SMALLINT; motor SMALLINT; eyes SMALLINT; age SMALLINT; admitdiagnosis VARCHAR(11); thrombolytics SMALLINT; diedinhospital SMALLINT; aids SMALLINT; hepaticfailure SMALLINT; lymphoma SMALLINT; metastaticcancer SMALLINT; leukemia SMALLINT; immunosuppression SMALLINT; cirrhosis SMALLINT; electivesurgery SMALLINT; activetx SMALLINT; readmit SMALLINT; ima SMALLINT; midur SMALLINT; ventday1 SMALLINT; oobventday1 SMALLINT; oobintubday1 SMALLINT; diabetes SMALLINT; managementsystem SMALLINT; var03hspxlos DOUBLE; pao2 DOUBLE; fio2 DOUBLE; ejectfx DOUBLE; creatinine DOUBLE; dischargelocation SMALLINT; visitnumber SMALLINT; amilocation SMALLINT; day1meds SMALLINT; day1verbal SMALLINT; day1motor SMALLINT; day1eyes SMALLINT; day1pao2 DOUBLE; day1fio2 DOUBLE"),
    "physicalexam": ("physicalExam", "physicalexamid INTEGER; patientunitstayid INTEGER; physicalexamoffset INTEGER; physicalexampath VARCHAR(255); physicalexamvalue VARCHAR(100); physicalexamtext VARCHAR(500)"),
    "apachepatientresult": ("apachePatientResult", "apachepatientresultsid INTEGER; patientunitstayid INTEGER; physicianspeciality VARCHAR(50); physicianinterventioncategory VARCHAR(50); acutephysiologyscore INTEGER; apachescore INTEGER; apacheversion VARCHAR(5); predictedicumortality VARCHAR(50); actualicumortality VARCHAR(50); predictediculos DOUBLE; actualiculos DOUBLE; predictedhospitalmortality VARCHAR(50); actualhospitalmortality VARCHAR(50); predictedhospitallos DOUBLE; actualhospitallos DOUBLE; preopmi INTEGER; preopcardiaccath INTEGER; ptcawithin24h INTEGER; unabridgedunitlos DOUBLE; unabridgedhosplos DOUBLE; actualventdays DOUBLE; predventdays DOUBLE; unabridgedactualventdays DOUBLE"),
    "treatment": ("treatment", "treatmentid INTEGER; patientunitstayid INTEGER; treatmentoffset INTEGER; treatmentstring VARCHAR(200); activeupondischarge VARCHAR(10)"),
    "medication": ("medication", "medicationid INTEGER; patientunitstayid INTEGER; drugorderoffset INTEGER; drugstartoffset INTEGER; drugivadmixture VARCHAR(6); drugordercancelled VARCHAR(6); drugname VARCHAR(220); drughiclseqno INTEGER; dosage VARCHAR(60); routeadmin VARCHAR(120); frequency VARCHAR(255); loadingdose VARCHAR(120); prn VARCHAR(6); drugstopoffset INTEGER; gtc INTEGER"),
    "infusiondrug": ("infusiondrug", "infusiondrugid INTEGER; patientunitstayid INTEGER; infusionoffset INTEGER; drugname VARCHAR(255); drugrate VARCHAR(255); infusionrate VARCHAR(255); drugamount VARCHAR(255); volumeoffluid VARCHAR(255); patientweight VARCHAR(255)"),
    "diagnosis": ("diagnosis", "diagnosisid INTEGER; patientunitstayid INTEGER; activeupondischarge VARCHAR(64); diagnosisoffset INTEGER; diagnosisstring VARCHAR(200); icd9code VARCHAR(100); diagnosispriority VARCHAR(10)"),
    "respiratorycharting": ("respiratoryCharting", "respchartid INTEGER; patientunitstayid INTEGER; respchartoffset INTEGER; respchartentryoffset INTEGER; respcharttypecat VARCHAR(255); respchartvaluelabel VARCHAR(255); respchartvalue VARCHAR(1000)"),
}

EICU: dict[str, Table] = {
    f"eicu_crd.{name}": _table("eicu_crd", name, spec, stem) for name, (stem, spec) in _EICU.items()
}

DATASETS: dict[str, dict[str, Table]] = {"mimic-iv": MIMIC_IV, "eicu": EICU}


def tables(dataset: str) -> dict[str, Table]:
    try:
        return DATASETS[dataset]
    except KeyError:
        raise ValueError(f"unknown dataset {dataset!r}; choose one of {', '.join(DATASETS)}") from None


def schemas(dataset: str) -> list[str]:
    return sorted({t.schema for t in tables(dataset).values()})


def create_table_sql(table: Table, name: str | None = None) -> str:
    cols = ", ".join(
        f'"{c.name}" {c.type}{" NOT NULL" if c.not_null else ""}' for c in table.columns
    )
    return f"CREATE TABLE {name or table.qualified} ({cols})"
