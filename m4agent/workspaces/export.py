"""The native export: every source and derived table once per data directory, as Parquet.

``DIR/workspaces/native/data/<schema>/<table>.parquet`` (ZSTD, read-only) for
``mimiciv_hosp`` and ``mimiciv_icu`` (the tables of ``m4agent.data.schema``),
``mimiciv_derived`` (every table or view dbt built there in ``DIR/mimic_iv.duckdb``)
and ``eicu_crd`` (from ``DIR/eicu.duckdb``). The ``reference``, staging and value-set
schemas are never exported: no workspace may see them.

A stamp per dataset, ``DIR/workspaces/native/stamps/<dataset>.json``, records what the
export was made from: the database file's size and modification time in nanoseconds (and
its write-ahead log's, when there is one), the export format's version, and the list of
exported relations with its SHA-256. An export whose stamp matches the database as it is
now, and whose files are all present, is skipped; anything else re-exports the dataset
(each file written under a temporary name and renamed) and removes files of relations
that no longer exist. The stamp is written last, so an interrupted export is redone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import duckdb

from m4agent.data.schema import tables
from m4agent.dbt.duckdb_session import quote_identifier, sql_string
from m4agent.errors import M4AgentError
from m4agent.paths import database_path
from m4agent.workspaces.files import read_json, write_json, write_parquet
from m4agent.workspaces.store import NATIVE, data_root, stamp_path

EXPORT_FORMAT = 2  # bump when the export's settings change, so existing stamps expire
DATASETS = ("mimic-iv", "eicu")
DERIVED_SCHEMA = "mimiciv_derived"

Progress = Callable[[str], None]


def relation_path(relation: str) -> str:
    """Path of a native relation (``schema.table``) relative to the native data folder."""
    schema, table = relation.split(".", 1)
    return f"{schema}/{table}.parquet"


def _file_state(path: Path) -> dict[str, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _connect_source(db: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    # Rows of a relation have no order; letting DuckDB write them as its threads finish is ~20% faster.
    con.execute("SET preserve_insertion_order = false")
    try:
        con.execute(f"ATTACH {sql_string(str(db))} AS src (READ_ONLY)")
    except duckdb.Error as exc:
        con.close()
        raise M4AgentError(
            f"cannot open {db} read-only ({exc}); wait for the program writing it (a dbt build?) to finish"
        ) from exc
    return con


def source_relations(con: duckdb.DuckDBPyConnection, dataset: str) -> list[str]:
    """The relations to export from the attached database ``src``, sorted, as ``schema.table``."""
    present = {
        f"{schema}.{name}"
        for schema, name in con.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'src' "
            "UNION SELECT schema_name, view_name FROM duckdb_views() WHERE database_name = 'src' AND NOT internal"
        ).fetchall()
    }
    wanted = sorted(tables(dataset))
    missing = [name for name in wanted if name not in present]
    if missing:
        raise M4AgentError(
            f"{dataset} database lacks {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}; "
            f"load or synthesize it first (`m4agent data synth --dataset {dataset}` or `m4agent data load`)"
        )
    if dataset == "mimic-iv":
        wanted += sorted(name for name in present if name.startswith(DERIVED_SCHEMA + "."))
    return sorted(wanted)


def _stamp(db: Path, relations: list[str]) -> dict[str, object]:
    listing = "\n".join(relations)
    return {
        "format": EXPORT_FORMAT,
        "database": _file_state(db),
        "wal": _file_state(db.with_name(db.name + ".wal")),
        "relations": relations,
        "relations_sha256": hashlib.sha256(listing.encode()).hexdigest(),
    }


def export_dataset(data_dir: Path, dataset: str, progress: Progress | None = None) -> bool:
    """Export ``dataset`` unless its stamp says the database is unchanged; True when it wrote."""
    db = database_path(data_dir, dataset)
    if not db.exists():
        raise M4AgentError(f"{db} does not exist; synthesize or load {dataset} first")
    root = data_root(data_dir, NATIVE)
    stamp_file = stamp_path(data_dir, NATIVE, dataset)
    con = _connect_source(db)
    try:
        relations = source_relations(con, dataset)
        stamp = _stamp(db, relations)
        files = [root / relation_path(r) for r in relations]
        if read_json(stamp_file) == stamp and all(f.exists() for f in files):
            return False
        stamp_file.unlink(missing_ok=True)
        for relation, target in zip(relations, files, strict=True):
            if progress:
                progress(f"export {relation}")
            schema, table = relation.split(".", 1)
            write_parquet(con, f"SELECT * FROM src.{quote_identifier(schema)}.{quote_identifier(table)}", target)
    finally:
        con.close()
    schemas = {r.split(".", 1)[0] for r in relations}
    keep = set(files)
    for schema in schemas:
        for stale in (root / schema).glob("*.parquet"):
            if stale not in keep:
                stale.unlink()
    write_json(stamp_file, stamp)
    return True


def export_native(data_dir: Path, progress: Progress | None = None) -> dict[str, bool]:
    """Export every dataset whose database exists; which of them were (re)written."""
    present = [d for d in DATASETS if database_path(data_dir, d).exists()]
    if not present:
        raise M4AgentError(
            f"no database in {data_dir}; run `m4agent quickstart --data-dir {data_dir}` "
            "or `m4agent data synth` then `m4agent reference build`"
        )
    return {dataset: export_dataset(data_dir, dataset, progress) for dataset in present}


def exported_relations(data_dir: Path, dataset: str) -> list[str]:
    """The native relations of ``dataset`` in the export, from its stamp."""
    stamp = read_json(stamp_path(data_dir, NATIVE, dataset))
    if not stamp:
        raise M4AgentError(
            f"the {dataset} data of {data_dir} is not exported; call "
            "m4agent.workspaces.prepare(data_dir, 'native') first"
        )
    return list(stamp["relations"])


def stamp_digest(data_dir: Path, dataset: str) -> str:
    """A digest of the export's stamp: what a transformed variant records it was made from."""
    stamp = read_json(stamp_path(data_dir, NATIVE, dataset))
    return hashlib.sha256(repr(stamp).encode()).hexdigest()
