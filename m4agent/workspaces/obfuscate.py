"""The obfuscated variant: the native MIMIC-IV export rewritten once under neutral names.

Each native relation (hosp, icu and derived alike) becomes
``DIR/workspaces/obfuscated/data/<ds_N>/<t_NNN>.parquet`` with every column renamed
through the dictionary (``m4agent.workspaces.dictionary``); values, types and column order
are unchanged. Where M4Bench keeps derived tables inside a database, here they are Parquet
like the rest, so a run's database only holds views.

The variant's stamp (``DIR/workspaces/obfuscated/stamp.json``) records the native export it
was made from and the dictionary's digest; the rewrite is skipped while both are unchanged
and every file is present.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from m4agent.dbt.duckdb_session import quote_identifier, sql_string
from m4agent.workspaces.dictionary import Dictionary, build_dictionary, neutral_table
from m4agent.workspaces.export import Progress, exported_relations, relation_path, stamp_digest
from m4agent.workspaces.files import (
    digest,
    parquet_columns,
    read_json,
    write_json,
    write_parquet,
)
from m4agent.workspaces.store import NATIVE, OBFUSCATED, data_root, dictionary_path, stamp_path

VARIANT_FORMAT = 1

Columns = dict[str, list[tuple[str, str]]]  # native relation -> [(column, DuckDB type)]


def native_columns(con: duckdb.DuckDBPyConnection, data_dir: Path) -> Columns:
    """The columns of every exported native MIMIC-IV relation, read from its Parquet file."""
    root = data_root(data_dir, NATIVE)
    return {
        relation: parquet_columns(con, root / relation_path(relation))
        for relation in exported_relations(data_dir, "mimic-iv")
    }


def dictionary_for(columns: Columns) -> Dictionary:
    return build_dictionary({relation: [name for name, _ in cols] for relation, cols in columns.items()})


def neutral_path(dictionary: Dictionary, relation: str) -> str:
    """Relative path of a native relation's file in a transformed variant's data folder."""
    schema, table = neutral_table(dictionary, relation)
    return f"{schema}/{table}.parquet"


def renamed_select(source: Path, columns: list[tuple[str, str]], dictionary: Dictionary) -> str:
    """SQL reading ``source`` with every column renamed through the dictionary."""
    names = dictionary["columns"]
    parts = ", ".join(f"{quote_identifier(name)} AS {quote_identifier(names[name])}" for name, _ in columns)
    return f"SELECT {parts} FROM read_parquet({sql_string(str(source))})"


def variant_stamp(source_digest: str, dictionary: Dictionary, files: list[str]) -> dict[str, object]:
    return {
        "format": VARIANT_FORMAT,
        "source": source_digest,
        "dictionary_sha256": digest(dictionary),
        "files": sorted(files),
    }


def prepare_obfuscated(data_dir: Path, progress: Progress | None = None) -> bool:
    """Rewrite the native MIMIC-IV export under neutral names unless already done; True when it wrote."""
    native_root = data_root(data_dir, NATIVE)
    root = data_root(data_dir, OBFUSCATED)
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    try:
        columns = native_columns(con, data_dir)
        dictionary = dictionary_for(columns)
        targets = {relation: neutral_path(dictionary, relation) for relation in columns}
        stamp = variant_stamp(stamp_digest(data_dir, "mimic-iv"), dictionary, list(targets.values()))
        stamp_file = stamp_path(data_dir, OBFUSCATED)
        if read_json(stamp_file) == stamp and all((root / p).exists() for p in targets.values()):
            return False
        stamp_file.unlink(missing_ok=True)
        write_json(dictionary_path(data_dir, OBFUSCATED), dictionary)
        for relation, target in targets.items():
            if progress:
                progress(f"obfuscate {relation}")
            source = native_root / relation_path(relation)
            write_parquet(con, renamed_select(source, columns[relation], dictionary), root / target)
    finally:
        con.close()
    remove_other_files(root, set(targets.values()))
    write_json(stamp_file, stamp)
    return True


def remove_other_files(root: Path, keep: set[str]) -> None:
    """Delete Parquet files under ``root`` that are not in ``keep`` (relative paths)."""
    for path in root.glob("*/*.parquet"):
        if path.relative_to(root).as_posix() not in keep:
            path.unlink()
