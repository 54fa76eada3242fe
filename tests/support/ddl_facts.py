"""mimic-code's published MIMIC-IV DDL as data: one row per column of ``create.sql``.

``tests/fixtures/mimic_code_ddl/create_sql_columns.csv`` holds the facts of
MIT-LCP/mimic-code ``mimic-iv/buildmimic/postgres/create.sql`` (schema, table,
column position, column, Postgres type, NOT NULL), so the test of
:mod:`m4agent.data.schema` against the published DDL runs without mimic-code.
:func:`columns_of_create_sql` is how the CSV was made (see the fixture's README).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

DDL_CSV = Path(__file__).resolve().parent.parent / "fixtures" / "mimic_code_ddl" / "create_sql_columns.csv"
FIELDS = ("schema", "table", "position", "column", "pg_type", "not_null")

_CREATE = re.compile(r"CREATE TABLE (\w+)\.(\w+)\s*\((.*?)\);", re.S)
_COLUMN = re.compile(r"^(\w+)\s+(.+?)(\s+NOT NULL)?$")


def columns_of_create_sql(sql: str) -> list[dict[str, str]]:
    """Every column of every CREATE TABLE in ``sql``, in file order, as CSV rows."""
    rows = []
    for schema, table, body in _CREATE.findall(sql):
        lines = [line.strip().rstrip(",") for line in body.splitlines()]
        columns = [line for line in lines if line and not line.startswith("--")]
        for position, line in enumerate(columns, start=1):
            match = _COLUMN.match(line)
            assert match, f"{schema}.{table}: cannot read column {line!r}"
            name, pg_type, not_null = match.groups()
            rows.append({"schema": schema, "table": table, "position": str(position), "column": name,
                         "pg_type": " ".join(pg_type.split()), "not_null": "1" if not_null else "0"})
    return rows


def write_csv(rows: list[dict[str, str]], path: Path = DDL_CSV) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def read_csv(path: Path = DDL_CSV) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def published_tables(path: Path = DDL_CSV) -> dict[str, list[dict[str, str]]]:
    """``schema.table`` -> its columns in the published order."""
    out: dict[str, list[dict[str, str]]] = {}
    for row in read_csv(path):
        out.setdefault(f"{row['schema']}.{row['table']}", []).append(row)
    return out
