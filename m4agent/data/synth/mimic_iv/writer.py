"""Write a complete synthetic MIMIC-IV DuckDB database.

Tables are created from ``m4agent.data.schema.MIMIC_IV`` (official names, column
order, types and NOT NULLs), the dictionaries are filled from the catalog, and
patients are generated in chunks that are appended table by table, so memory
stays bounded by the chunk size whatever the number of patients.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb

from m4agent.data.schema import MIMIC_IV, create_table_sql
from m4agent.data.synth.mimic_iv import catalog as cat
from m4agent.data.synth.mimic_iv.buffers import TableBuffer
from m4agent.data.synth.mimic_iv.patients import Counters, PatientFactory
from m4agent.errors import M4AgentError

CHUNK_PATIENTS = 500
DUCKDB_MEMORY_LIMIT = "512MB"


def write_database(
    path: Path,
    *,
    patients: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """Create ``path`` (a new DuckDB file) holding ``patients`` synthetic MIMIC-IV patients.

    Returns the number of rows written per table. The same ``seed`` always
    gives identical table contents.
    """
    path = Path(path)
    if path.exists():
        raise M4AgentError(f"{path} already exists; remove it or synthesize into another data directory")
    if patients < 1:
        raise M4AgentError("--patients must be at least 1")
    if seed < 0:
        raise M4AgentError("--seed must be a non-negative integer")
    con = duckdb.connect(str(path))
    try:
        con.execute("SET enable_progress_bar = false")
        # written blocks need not stay cached: this caps DuckDB's share of the memory whatever the size
        con.execute(f"SET memory_limit = '{DUCKDB_MEMORY_LIMIT}'")
        for schema in sorted({t.schema for t in MIMIC_IV.values()}):
            con.execute(f"CREATE SCHEMA {schema}")
        for table in MIMIC_IV.values():
            con.execute(create_table_sql(table))
        counts = _write_dictionaries(con)
        buffers = {
            t.name: TableBuffer(t, value_from_valuenum=t.name in ("chartevents", "labevents"))
            for t in MIMIC_IV.values()
            if t.name not in ("d_items", "d_labitems")
        }
        factory = PatientFactory(buffers, patients, seed, Counters())
        for start in range(0, patients, CHUNK_PATIENTS):
            stop = min(start + CHUNK_PATIENTS, patients)
            for index in range(start, stop):
                factory.add_patient(index)
            for name, buffer in buffers.items():
                counts[name] = counts.get(name, 0) + buffer.flush(con)
            if progress is not None:
                progress(stop, patients)
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return counts


def _write_dictionaries(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    d_items = TableBuffer(MIMIC_IV["mimiciv_icu.d_items"])
    for itemid, label, abbreviation, linksto, category, unitname, param_type in cat.D_ITEMS:
        d_items.add(1, itemid=itemid, label=label, abbreviation=abbreviation, linksto=linksto,
                    category=category, unitname=unitname, param_type=param_type)
    d_labitems = TableBuffer(MIMIC_IV["mimiciv_hosp.d_labitems"])
    for itemid, label, fluid, category in cat.D_LABITEMS:
        d_labitems.add(1, itemid=itemid, label=label, fluid=fluid, category=category)
    return {"d_items": d_items.flush(con), "d_labitems": d_labitems.flush(con)}
