"""m4agent/data/schema.py against mimic-code's published MIMIC-IV DDL, held as data.

tests/fixtures/mimic_code_ddl/create_sql_columns.csv holds the facts of mimic-code's
``create.sql`` (see its README). Every table we define must have the published columns in
the published order, with the published type (mapped to DuckDB by the rules below, written
here independently of schema.py's own mapping) and the published NOT NULL. Each deliberate
difference is listed once, in DELIBERATE_DIFFERENCES or OMITTED_TABLES, with its reason.
"""

from __future__ import annotations

import re

import pytest
from support import ddl_facts

from m4agent.data.schema import MIMIC_IV

PUBLISHED = ddl_facts.published_tables()

# Postgres type as mimic-code writes it -> the DuckDB type a column of that type must have.
_TYPE_RULES = (
    (r"(CHAR|VARCHAR)\(\d+\)|TEXT", "VARCHAR"),
    (r"TIMESTAMP(\(\d\))?", "TIMESTAMP"),
    (r"DATE", "DATE"),
    (r"SMALLINT", "SMALLINT"),
    (r"INTEGER", "INTEGER"),
    (r"BIGINT", "BIGINT"),
    (r"FLOAT|DOUBLE PRECISION", "DOUBLE"),  # Postgres FLOAT is 8 bytes
    (r"REAL", "FLOAT"),  # 4 bytes
)

# (table, column) -> why our schema differs from the published NOT NULL on purpose.
DELIBERATE_DIFFERENCES = {
    ("mimiciv_hosp.microbiologyevents", "spec_type_desc"):
        "NOT NULL dropped: the original M4Bench loads PhysioNet's CSVs without constraints, so a "
        "culture without a specimen type loads there and must here (the synthetic edge cases plant "
        "such cultures for suspicion_of_infection)",
    ("mimiciv_hosp.prescriptions", "drug"):
        "NOT NULL dropped: the original loads without constraints and the antibiotic concept drops a "
        "NULL-drug row as m4-infra does; NOT NULL would fail the whole load instead (no reason was "
        "recorded when the schema was first written)",
}

# Published tables we do not define: no concept, reference or task reads them.
OMITTED_TABLES = {
    "mimiciv_hosp.d_hcpcs", "mimiciv_hosp.d_icd_diagnoses", "mimiciv_hosp.d_icd_procedures",
    "mimiciv_hosp.drgcodes", "mimiciv_hosp.emar", "mimiciv_hosp.emar_detail", "mimiciv_hosp.hcpcsevents",
    "mimiciv_hosp.omr", "mimiciv_hosp.pharmacy", "mimiciv_hosp.poe", "mimiciv_hosp.poe_detail",
    "mimiciv_hosp.procedures_icd", "mimiciv_hosp.provider", "mimiciv_icu.caregiver",
}


def duckdb_type(pg_type: str) -> str:
    for pattern, duck in _TYPE_RULES:
        if re.fullmatch(pattern, pg_type.upper()):
            return duck
    raise AssertionError(f"no rule for the published type {pg_type!r}")


def test_ddl_facts_cover_the_published_tables() -> None:
    """The fixture holds the 31 MIMIC-IV tables of create.sql, positions numbered from 1 without gaps."""
    assert len(PUBLISHED) == 31
    for name, columns in PUBLISHED.items():
        assert [int(c["position"]) for c in columns] == list(range(1, len(columns) + 1)), name


def test_every_published_table_is_defined_or_omitted_on_purpose() -> None:
    assert set(PUBLISHED) - set(MIMIC_IV) == OMITTED_TABLES


def test_we_define_no_table_mimic_code_does_not_publish() -> None:
    assert set(MIMIC_IV) - set(PUBLISHED) == set()


@pytest.mark.parametrize("name", sorted(MIMIC_IV))
def test_columns_are_the_published_ones_in_order(name: str) -> None:
    assert MIMIC_IV[name].column_names == [c["column"] for c in PUBLISHED[name]]


@pytest.mark.parametrize("name", sorted(MIMIC_IV))
def test_column_types_map_from_the_published_types(name: str) -> None:
    ours = MIMIC_IV[name].duckdb_types()
    differing = {c["column"]: (c["pg_type"], ours[c["column"]]) for c in PUBLISHED[name]
                 if duckdb_type(c["pg_type"]) != ours[c["column"]]}
    assert differing == {}


@pytest.mark.parametrize("name", sorted(MIMIC_IV))
def test_not_null_is_the_published_one_except_the_listed_differences(name: str) -> None:
    ours = {c.name: c.not_null for c in MIMIC_IV[name].columns}
    differing = {c["column"] for c in PUBLISHED[name]
                 if (c["not_null"] == "1") != ours[c["column"]] and (name, c["column"]) not in DELIBERATE_DIFFERENCES}
    assert differing == set()


@pytest.mark.parametrize(("name", "column"), sorted(DELIBERATE_DIFFERENCES))
def test_each_listed_difference_is_still_a_difference(name: str, column: str) -> None:
    """A listed difference that no longer exists is removed from the list (it would excuse nothing)."""
    published = next(c for c in PUBLISHED[name] if c["column"] == column)
    ours = next(c for c in MIMIC_IV[name].columns if c.name == column)
    assert (published["not_null"] == "1") != ours.not_null


def test_type_rules_cover_every_published_type() -> None:
    assert {duckdb_type(c["pg_type"]) for cols in PUBLISHED.values() for c in cols} <= {
        "VARCHAR", "TIMESTAMP", "DATE", "SMALLINT", "INTEGER", "BIGINT", "DOUBLE", "FLOAT"}
