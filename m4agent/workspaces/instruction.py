"""A task instruction rewritten for a transformed schema variant (M4Bench's rewrite).

Native instructions pass unchanged. For ``obfuscated`` and ``restructured``:

1. "MIMIC-IV" is removed ("a MIMIC-IV clinical ..." becomes "a clinical ...");
2. qualified native table names (``mimiciv_hosp.prescriptions``) become their neutral names
   (a table merged away in the restructured variant becomes the table it went into), then
   native schema names become ``ds_N``;
3. the six event and item tables M4Bench names in backticks (chartevents, labevents,
   inputevents, outputevents, procedureevents, d_items) become their bare neutral names;
4. a "Schema Dictionary" section is appended: each schema, M4Bench's 14 key tables (those
   the data has) and 47 key columns as *description -> neutral name*, never the native name,
   plus, for ``restructured``, the merged tables with their discriminators.

Clinical content is untouched: this probes memorised schema names, not memorised values.
The descriptions are ours; which tables and columns are listed, and in what order, are
M4Bench's.
"""

from __future__ import annotations

import re
from pathlib import Path

from m4agent.errors import M4AgentError
from m4agent.registry import Task
from m4agent.workspaces.dictionary import Dictionary
from m4agent.workspaces.files import read_json
from m4agent.workspaces.restructure import merged_into
from m4agent.workspaces.store import NATIVE, RESTRUCTURED, check_variant, dictionary_path

SCHEMA_DESCRIPTIONS = {
    "mimiciv_derived": "computed clinical concepts",
    "mimiciv_hosp": "hospital-wide records",
    "mimiciv_icu": "intensive care unit records",
}

KEY_TABLES = {
    "mimiciv_hosp.patients": "patients and their demographics",
    "mimiciv_hosp.admissions": "hospital admissions",
    "mimiciv_icu.icustays": "ICU stays",
    "mimiciv_icu.chartevents": "observations charted at the bedside",
    "mimiciv_hosp.labevents": "laboratory results",
    "mimiciv_icu.inputevents": "drugs and fluids given",
    "mimiciv_icu.outputevents": "outputs measured (urine, drains)",
    "mimiciv_icu.procedureevents": "procedures",
    "mimiciv_icu.d_items": "definitions of charted items",
    "mimiciv_hosp.d_labitems": "definitions of laboratory tests",
    "mimiciv_hosp.services": "hospital services a patient was under",
    "mimiciv_hosp.diagnoses_icd": "coded diagnoses",
    "mimiciv_hosp.procedures_icd": "coded procedures",
    "mimiciv_hosp.transfers": "movements between wards and units",
}

KEY_COLUMNS = {
    "subject_id": "patient identifier",
    "hadm_id": "hospital admission identifier",
    "stay_id": "ICU stay identifier",
    "itemid": "item (measurement) code",
    "charttime": "time the observation was charted",
    "starttime": "time the event started",
    "endtime": "time the event ended",
    "storetime": "time the value was recorded",
    "value": "value as text",
    "valuenum": "value as a number",
    "valueuom": "unit of the value",
    "intime": "time the patient entered the unit",
    "outtime": "time the patient left the unit",
    "admittime": "time of hospital admission",
    "dischtime": "time of hospital discharge",
    "label": "readable name of an item",
    "category": "category of an item",
    "gender": "sex of the patient",
    "anchor_age": "age of the patient in years",
    "los": "length of stay in days",
    "admission_type": "kind of admission",
    "hospital_expire_flag": "died in hospital (1) or not (0)",
    "icd_code": "ICD diagnosis or procedure code",
    "icd_version": "ICD revision (9 or 10)",
    "rate": "rate of an infusion",
    "rateuom": "unit of the rate",
    "amount": "amount given",
    "amountuom": "unit of the amount",
    "patientweight": "weight of the patient in kg",
    "curr_service": "service the patient is under",
    "seq_num": "order of priority",
    "flag": "abnormal-result flag",
    "specimen_id": "specimen identifier",
    "labevent_id": "laboratory result identifier",
    "caregiver_id": "identifier of the clinician",
    "warning": "warning marker",
    "ref_range_lower": "lower bound of the normal range",
    "ref_range_upper": "upper bound of the normal range",
    "abbreviation": "short name of an item",
    "linksto": "table an item's events are in",
    "unitname": "unit an item is measured in",
    "param_type": "kind of parameter",
    "fluid": "fluid a test is run on",
    "dod": "date of death",
    "deathtime": "time of death",
    "first_careunit": "first unit of the stay",
    "last_careunit": "last unit of the stay",
}

BACKTICKED_TABLES = (
    "mimiciv_icu.chartevents",
    "mimiciv_hosp.labevents",
    "mimiciv_icu.inputevents",
    "mimiciv_icu.outputevents",
    "mimiciv_icu.procedureevents",
    "mimiciv_icu.d_items",
)


def _neutral(dictionary: Dictionary, relation: str, variant: str) -> str:
    """Neutral ``ds.t`` of a native relation as the variant has it (merged tables followed)."""
    merged = merged_into(relation) if variant == RESTRUCTURED else None
    return dictionary["restructured_tables"][merged] if merged else dictionary["tables"][relation]


def _rename(text: str, dictionary: Dictionary, variant: str) -> str:
    text = re.sub(r"\b([Aa]) MIMIC-IV clinical", r"\1 clinical", text)
    text = re.sub(r"MIMIC-IV ?|mimic-iv ?", "", text)
    for relation in sorted(dictionary["tables"], key=len, reverse=True):
        text = re.sub(
            rf"(?<![\w.]){re.escape(relation)}(?!\w)", _neutral(dictionary, relation, variant), text
        )
    for schema in sorted(dictionary["schemas"], key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(schema)}(?!\w)", dictionary["schemas"][schema], text)
    for relation in BACKTICKED_TABLES:
        if relation in dictionary["tables"]:
            bare = relation.split(".", 1)[1]
            text = text.replace(f"`{bare}`", f"`{_neutral(dictionary, relation, variant).split('.', 1)[1]}`")
    return text


def dictionary_section(dictionary: Dictionary, restructured: bool) -> str:
    """The "Schema Dictionary" appended to a transformed instruction (Markdown)."""
    columns, tables = dictionary["columns"], dictionary["tables"]
    if restructured:
        lead = "Schemas, tables and columns here have neutral names, and some tables are merged. This maps what each holds to its name."
    else:
        lead = "Schemas, tables and columns here have neutral names. This maps what each holds to its name."
    lines = ["", "", "---", "", "## Schema Dictionary", "", lead, "", "### Schemas", ""]
    lines += ["| What it holds | Name in the database |", "|---|---|"]
    for native in sorted(dictionary["schemas"]):
        lines.append(f"| {SCHEMA_DESCRIPTIONS.get(native, 'schema')} | `{dictionary['schemas'][native]}` |")
    lines += ["", "### Key Tables", "", "| What it holds | Name in the database |", "|---|---|"]
    lines += [f"| {text} | `{tables[rel]}` |" for rel, text in KEY_TABLES.items() if rel in tables]
    if restructured:
        merged, disc = dictionary["restructured_tables"], dictionary["restructured_columns"]
        lines += [
            "",
            "### Restructured Tables",
            "",
            "| What it holds | Name in the database | How to tell rows apart |",
            "|---|---|---|",
            f"| bedside and laboratory observations | `{merged['observations']}` | `{disc['source']}` is 'chart' or 'lab' |",
            f"| patients, admissions and ICU stays in one table | `{merged['encounters']}` | one row per ICU stay, "
            "per admission without a stay, and per patient without an admission |",
            f"| fluids and drugs in, outputs out | `{merged['flows']}` | `{disc['direction']}` is 'in' or 'out' |",
            f"| definitions of charted items and laboratory tests | `{merged['item_reference']}` "
            f"| `{disc['item_type']}` is 'chart' or 'lab' |",
            "",
            "The tables these were merged from are not in this database, although the key tables "
            "above name them; use the merged tables. `DESCRIBE schema.table` lists a table's columns.",
        ]
    lines += ["", "### Key Columns", "", "| What it holds | Name in the database |", "|---|---|"]
    lines += [f"| {text} | `{columns[name]}` |" for name, text in KEY_COLUMNS.items() if name in columns]
    if restructured:
        disc = dictionary["restructured_columns"]
        lines += [
            f"| which source an observation came from | `{disc['source']}` |",
            f"| direction of a flow | `{disc['direction']}` |",
            f"| kind of item definition | `{disc['item_type']}` |",
        ]
    return "\n".join(lines) + "\n"


def rewrite_instruction(text: str, task: Task, variant: str, data_dir: str | Path) -> str:
    """``text`` (an assembled instruction of ``task``) as the agent reads it under ``variant``."""
    check_variant(variant)
    if variant == NATIVE:
        return text
    if task.dataset != "mimic-iv":
        raise M4AgentError(f"task {task.name} is an eICU task: it has only the native variant")
    dictionary = read_json(dictionary_path(Path(data_dir), variant))
    if dictionary is None:
        raise M4AgentError(
            f"the {variant} variant of {data_dir} is not prepared; call prepare(data_dir, {variant!r})"
        )
    return _rename(text, dictionary, variant).rstrip("\n") + dictionary_section(
        dictionary, variant == RESTRUCTURED
    )
