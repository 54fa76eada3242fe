"""Create a task's database: one view per planned relation over the mounted Parquet files.

    python3 setup_database.py PLAN.json DATA_ROOT OUT.duckdb [PLAN.json DATA_ROOT OUT.duckdb ...]

Runs inside a container of the agent image (DATA_ROOT = the read-only data mount, ``/data``), so
the database is made by the image's own DuckDB and its views name the container's paths; the
harness builds one database per distinct plan at a campaign's start, in one process, and copies
it into each run's workspace. Tests and the workspace benchmark run it on the host the same way. It needs only the
standard library and ``duckdb``, and must stay so.

The database holds the plan's schemas and, for each relation, exactly
``CREATE VIEW "schema"."name" AS SELECT * FROM read_parquet('<DATA_ROOT>/<path>')``;
nothing else. Every name and path is checked before use: names are lower-case
identifiers, paths are ``<identifier>/<identifier>.parquet`` (so no glob character, quote
or ``..`` can reach the SQL), and DATA_ROOT must be an absolute path without glob
characters. The file is written under a temporary name and renamed, so OUT either does
not exist or is complete; an existing OUT is an error.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import duckdb

IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")
RELATIVE_PATH = re.compile(r"^[A-Za-z0-9_]+/[A-Za-z0-9_]+\.parquet$")
GLOB_OR_QUOTE = re.compile(r"[*?\[\]{}'\"\\]")
SUPPORTED_FORMAT = 1


class PlanError(ValueError):
    """The plan or the arguments are not safe to turn into SQL."""


def read_plan(path: Path) -> list[tuple[str, str, str]]:
    """``(schema, name, relative path)`` of every planned relation, validated."""
    doc = json.loads(path.read_text())
    if doc.get("format") != SUPPORTED_FORMAT:
        raise PlanError(f"plan format {doc.get('format')!r} is not {SUPPORTED_FORMAT}")
    relations = []
    seen = set()
    for entry in doc["relations"]:
        schema, name, rel = entry["schema"], entry["name"], entry["path"]
        if not (IDENTIFIER.match(schema) and IDENTIFIER.match(name)):
            raise PlanError(f"unsafe relation name {schema!r}.{name!r}")
        if not RELATIVE_PATH.match(rel):
            raise PlanError(f"unsafe relation path {rel!r}")
        if (schema, name) in seen:
            raise PlanError(f"relation {schema}.{name} planned twice")
        seen.add((schema, name))
        relations.append((schema, name, rel))
    return relations


def check_root(root: str) -> str:
    """DATA_ROOT without its trailing slash; it must be absolute, without glob characters or quotes."""
    if not root.startswith("/") or GLOB_OR_QUOTE.search(root):
        raise PlanError(f"DATA_ROOT {root!r} must be an absolute path without glob characters or quotes")
    return root.rstrip("/")


def create(plan: Path, root: str, out: Path) -> None:
    relations = read_plan(plan)
    root = check_root(root)
    if out.exists():
        raise PlanError(f"{out} exists; the database is created once, into a new file")
    partial = out.with_name(f".{out.name}.{os.getpid()}.partial")
    for leftover in (partial, partial.with_name(partial.name + ".wal")):
        leftover.unlink(missing_ok=True)
    con = duckdb.connect(str(partial))
    try:
        con.execute("BEGIN TRANSACTION")  # one commit for the whole catalog, not one per statement
        for schema in sorted({schema for schema, _, _ in relations}):
            con.execute(f'CREATE SCHEMA "{schema}"')
        for schema, name, rel in relations:
            con.execute(f'CREATE VIEW "{schema}"."{name}" AS SELECT * FROM read_parquet(\'{root}/{rel}\')')
        con.execute("COMMIT")
        con.execute("CHECKPOINT")
    finally:
        con.close()
    os.replace(partial, out)


def main(argv: list[str]) -> int:
    if not argv or len(argv) % 3:
        print("usage: setup_database.py PLAN.json DATA_ROOT OUT.duckdb [PLAN.json DATA_ROOT OUT.duckdb ...]",
              file=sys.stderr)
        return 2
    try:
        for start in range(0, len(argv), 3):  # many databases, one process: Python and DuckDB start once
            create(Path(argv[start]), argv[start + 1], Path(argv[start + 2]))
    except (PlanError, OSError, ValueError, KeyError, duckdb.Error) as exc:
        print(f"setup_database: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
