"""Regenerate the source declarations and thin staging views from m4agent/data/schema.py.

Run after changing an official table definition:

    python scripts/generate_staging.py

Staging is mechanical (one view per source table, the official columns in
official order, nothing renamed or joined), so it is generated rather than
hand-written; the YAML it writes is the documentation a reviewer reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from m4agent.data.schema import EICU, MIMIC_IV, Table

ROOT = Path(__file__).resolve().parent.parent
STAGING = ROOT / "models" / "staging"

# Each source's database (why, as a YAML comment, and the expression): on DuckDB the data directory's
# files, on BigQuery PhysioNet's hosted datasets (docs/scale.md).
MIMIC_IV_DATABASE = (
    "DuckDB: the main database; BigQuery: PhysioNet's project unless var mimiciv_source_project says",
    "{{ target.database if target.type == 'duckdb' else var('mimiciv_source_project', 'physionet-data') }}",
)
SOURCES: dict[str, dict[str, Any]] = {
    "mimiciv_hosp": {
        "var": "mimiciv_hosp_schema",
        "database": MIMIC_IV_DATABASE,
        "description": "MIMIC-IV 3.1 hospital module (hosp/*.csv.gz), as PhysioNet ships it.",
    },
    "mimiciv_icu": {
        "var": "mimiciv_icu_schema",
        "database": MIMIC_IV_DATABASE,
        "description": "MIMIC-IV 3.1 ICU module (icu/*.csv.gz), as PhysioNet ships it.",
    },
    "eicu_crd": {
        "var": "eicu_schema",
        "database": (
            "DuckDB: the attached eicu database; BigQuery: PhysioNet's project unless var eicu_source_project says",
            "{{ 'eicu' if target.type == 'duckdb' else var('eicu_source_project', 'physionet-data') }}",
        ),
        "description": "eICU-CRD 2.0 (flat camelCase *.csv.gz, tables lower-cased), attached as database `eicu`.",
    },
}

# Primary keys of the source tables that have one (tested on staging).
PRIMARY_KEYS = {
    "mimiciv_hosp.patients": "subject_id",
    "mimiciv_hosp.admissions": "hadm_id",
    "mimiciv_hosp.d_labitems": "itemid",
    "mimiciv_hosp.labevents": "labevent_id",
    "mimiciv_hosp.microbiologyevents": "microevent_id",
    "mimiciv_icu.icustays": "stay_id",
    "mimiciv_icu.d_items": "itemid",
    "eicu_crd.patient": "patientunitstayid",
}

COLUMN_DOCS = {
    "subject_id": "Patient identifier (one per person).",
    "hadm_id": "Hospital admission identifier.",
    "stay_id": "ICU stay identifier (equals the stay's first ICU transfer_id).",
    "itemid": "Measurement item identifier (see d_items / d_labitems).",
    "charttime": "Time the observation was charted (MIMIC times are shifted into 2110-2214).",
    "storetime": "Time the observation was stored (on or after charttime).",
    "starttime": "Start of the event or order.",
    "endtime": "End of the event or order.",
    "value": "Value as charted (text for categorical items).",
    "valuenum": "Numeric value, when the item is numeric.",
    "valueuom": "Unit of measurement of the value.",
    "patientunitstayid": "eICU unit stay identifier (one ICU stay).",
    "patienthealthsystemstayid": "eICU hospital stay identifier.",
    "uniquepid": "eICU patient identifier, e.g. '002-33870'.",
}


def _source_yaml(source: str, tabs: list[Table]) -> str:
    spec = SOURCES[source]
    lines = ["version: 2", "", "sources:", f"  - name: {source}",
             f"    description: \"{spec['description']}\""]
    why, database = spec["database"]
    lines += [f"    # {why}", f"    database: \"{database}\""]
    lines.append(f"    schema: \"{{{{ var('{spec['var']}', '{source}') }}}}\"")
    lines.append("    tables:")
    for t in tabs:
        lines.append(f"      - name: {t.name}")
        lines.append(f"        description: \"{t.file_stem}.csv.gz, columns and types as in the official create script.\"")
        lines.append("        columns:")
        for c in t.columns:
            doc = COLUMN_DOCS.get(c.name, f"{c.name} as shipped by PhysioNet.")
            lines.append(f"          - name: {c.name}")
            lines.append(f"            description: \"{doc}\"")
            lines.append(f"            data_type: {c.type.lower()}")
            if c.not_null:
                lines.append("            data_tests: [not_null]" if t.qualified in PRIMARY_KEYS else "")
        lines = [x for x in lines if x != ""]
    return "\n".join(lines) + "\n"


def _staging_sql(t: Table) -> str:
    cols = ",\n        ".join(t.column_names)
    return (
        f"-- Thin staging view of {t.qualified}: the official columns in official order.\n"
        "WITH source AS (\n\n"
        f"    SELECT * FROM {{{{ source('{t.schema}', '{t.name}') }}}}\n\n"
        "),\n\n"
        "renamed AS (\n\n"
        "    SELECT\n"
        f"        {cols}\n"
        "    FROM source\n\n"
        ")\n\n"
        "SELECT * FROM renamed\n"
    )


def _models_yaml(source: str, tabs: list[Table]) -> str:
    lines = ["version: 2", "", "models:"]
    for t in tabs:
        name = f"stg_{source}__{t.name}"
        pk = PRIMARY_KEYS.get(t.qualified)
        grain = f"one row per {pk}" if pk else "one row per source row (no natural key)"
        lines.append(f"  - name: {name}")
        lines.append(f"    description: \"Staging view of {t.qualified}; {grain}. Rename/cast only.\"")
        lines.append("    columns:")
        for c in t.columns:
            doc = COLUMN_DOCS.get(c.name, f"{c.name} as shipped by PhysioNet.")
            lines.append(f"      - name: {c.name}")
            lines.append(f"        description: \"{doc}\"")
            if c.name == pk:
                lines.append("        data_tests: [unique, not_null]")
    return "\n".join(lines) + "\n"


def generated() -> dict[Path, str]:
    """Every file of ``models/staging`` with its text, by path under that folder (what ``main`` writes;
    tests/test_generated_staging.py holds the committed models to it)."""
    by_source: dict[str, list[Table]] = {}
    for t in [*MIMIC_IV.values(), *EICU.values()]:
        by_source.setdefault(t.schema, []).append(t)
    files: dict[Path, str] = {}
    for source, tabs in by_source.items():
        files[Path(source) / f"_{source}__sources.yml"] = _source_yaml(source, tabs)
        files[Path(source) / f"_{source}__models.yml"] = _models_yaml(source, tabs)
        for t in tabs:
            files[Path(source) / f"stg_{source}__{t.name}.sql"] = _staging_sql(t)
    return files


def main() -> None:
    for relative, text in generated().items():
        (STAGING / relative).parent.mkdir(parents=True, exist_ok=True)
        (STAGING / relative).write_text(text)


if __name__ == "__main__":
    main()
