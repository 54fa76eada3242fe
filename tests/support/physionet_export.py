"""Write a source database back out in PhysioNet's own csv.gz layout.

The inverse of :mod:`m4agent.data.load`: MIMIC-IV tables go to ``hosp/`` and
``icu/``, eICU tables to flat camelCase files, each with a header line of the
official columns in official order, timestamps as ``YYYY-MM-DD HH:MM:SS``,
dates as ``YYYY-MM-DD``, an empty field for NULL and ``""`` for an empty
string. Test support: it feeds synthetic data through the real loader (the
round-trip test, the loader benchmark); the product never writes PhysioNet files.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from m4agent.data.schema import Table, tables
from m4agent.errors import M4AgentError


def _select_sql(table: Table) -> str:
    parts = []
    for column in table.columns:
        name = f'"{column.name}"'
        if column.type == "TIMESTAMP":
            # Whole seconds as PhysioNet writes them; keep fractions only if present.
            parts.append(
                f"CASE WHEN microsecond({name}) = 0 THEN strftime({name}, '%Y-%m-%d %H:%M:%S') "
                f"ELSE strftime({name}, '%Y-%m-%d %H:%M:%S.%f') END AS {name}"
            )
        elif column.type == "DATE":
            parts.append(f"strftime({name}, '%Y-%m-%d') AS {name}")
        else:
            parts.append(name)
    return f"SELECT {', '.join(parts)} FROM {table.qualified}"


def export(db_path: Path, dataset: str, out_dir: Path) -> Path:
    """Write every schema table of ``db_path`` as ``out_dir/<file_stem>.csv.gz``; returns ``out_dir``."""
    db_path = Path(db_path)
    if not db_path.is_file():
        raise M4AgentError(f"{db_path}: no such database; run `m4agent data synth` or `data load` first")
    out_dir = Path(out_dir)
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        con.execute("SET preserve_insertion_order = false")
        for table in tables(dataset).values():
            target = out_dir / f"{table.file_stem}.csv.gz"
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(target.name + ".part")
            path = str(tmp).replace("'", "''")
            try:
                con.execute(
                    f"COPY ({_select_sql(table)}) TO '{path}' "
                    "(FORMAT csv, HEADER true, DELIMITER ',', QUOTE '\"', ESCAPE '\"', "
                    "NULL '', COMPRESSION gzip)"
                )
            except duckdb.CatalogException as exc:
                tmp.unlink(missing_ok=True)
                raise M4AgentError(
                    f"{db_path}: has no table {table.qualified}; is it a {dataset} database?"
                ) from exc
            os.replace(tmp, target)
    finally:
        con.close()
    return out_dir
