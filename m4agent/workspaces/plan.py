"""The plan of a task's database: which relations it exposes, and which Parquet file each reads.

A plan is pure data. Its JSON form (``Plan.to_dict``, written by ``Plan.write``) is what
``setup_database.py`` reads inside the container, so it holds only what the agent may see:
the exposed relations' (neutral, for transformed variants) schema and table names and
their files' paths relative to the variant's data folder; never a dropped relation, never
a native name of a transformed variant.

What a task sees (M4Bench's rules, §1.3-1.4 of HARNESS.md):

- a standard MIMIC-IV task: ``mimiciv_hosp``, ``mimiciv_icu`` and ``mimiciv_derived``
  minus the task's ``drop_tables``;
- a raw MIMIC-IV task: no derived schema at all (and minus ``drop_tables``);
- an eICU task: ``eicu_crd``; eICU has no transformed variant.

Transformed variants map the same selection through the dictionary; the restructured
variant replaces the nine merged tables with the four merged ones (a dropped table that
was merged away is skipped, as M4Bench does: no task drops one).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from m4agent.errors import M4AgentError
from m4agent.registry import Task
from m4agent.workspaces.dictionary import MIMIC_SCHEMAS, merged_table, neutral_table
from m4agent.workspaces.export import DERIVED_SCHEMA, exported_relations, relation_path, stamp_digest
from m4agent.workspaces.files import digest, read_json
from m4agent.workspaces.restructure import merged_into
from m4agent.workspaces.store import (
    NATIVE,
    OBFUSCATED,
    RESTRUCTURED,
    check_variant,
    data_root,
    dictionary_path,
    stamp_path,
)

PLAN_FORMAT = 1
_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")


@dataclass(frozen=True)
class Relation:
    """One view of the task's database: ``schema.name`` reads ``<data root>/<path>``."""

    schema: str
    name: str
    path: str


@dataclass(frozen=True)
class Plan:
    """The relations a task's database exposes under one schema variant."""

    variant: str
    relations: tuple[Relation, ...]

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(r.path for r in self.relations)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form ``setup_database.py`` reads (the variant is left out: it needs none)."""
        return {
            "format": PLAN_FORMAT,
            "relations": [{"schema": r.schema, "name": r.name, "path": r.path} for r in self.relations],
        }

    @property
    def digest(self) -> str:
        """A hash of the plan's JSON: tasks with equal plans share one database template."""
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()

    def write(self, path: Path) -> Path:
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n")
        return path


def _selected_native(task: Task, data_dir: Path) -> list[str]:
    """The native MIMIC-IV relations the task may see."""
    if task.mode not in ("standard", "raw"):
        raise M4AgentError(f"task {task.name}: unknown mode {task.mode!r} (expected standard or raw)")
    drops = set()
    for entry in task.drop_tables:
        if entry.split(".", 1)[0] not in MIMIC_SCHEMAS or "." not in entry:
            raise M4AgentError(
                f"task {task.name}: drop_tables entry {entry!r} is not a MIMIC-IV schema.table"
            )
        drops.add(entry)
    relations = exported_relations(data_dir, "mimic-iv")
    has_derived = any(r.startswith(DERIVED_SCHEMA + ".") for r in relations)
    if task.mode == "standard" and not has_derived:
        raise M4AgentError(
            f"task {task.name} needs {DERIVED_SCHEMA}; run `m4agent reference build`, then prepare again"
        )
    return [
        r
        for r in relations
        if r not in drops and not (task.mode == "raw" and r.startswith(DERIVED_SCHEMA + "."))
    ]


def _require_current(data_dir: Path, variant: str) -> None:
    """Raise unless ``variant`` was derived from the native export as it is now."""
    obfuscated = read_json(stamp_path(data_dir, OBFUSCATED))
    current = obfuscated is not None and obfuscated.get("source") == stamp_digest(data_dir, "mimic-iv")
    if current and variant == RESTRUCTURED:
        restructured = read_json(stamp_path(data_dir, RESTRUCTURED))
        current = restructured is not None and restructured.get("source") == digest(obfuscated)
    if not current:
        raise M4AgentError(
            f"the {variant} variant of {data_dir} is missing or older than the native export; "
            f"call prepare(data_dir, {variant!r})"
        )


def _transformed(selected: list[str], variant: str, data_dir: Path) -> list[Relation]:
    _require_current(data_dir, variant)
    dictionary = read_json(dictionary_path(data_dir, variant))
    if dictionary is None:
        raise M4AgentError(
            f"the {variant} variant of {data_dir} has no dictionary; call prepare(data_dir, {variant!r})"
        )
    relations = []
    for native in selected:
        if variant == RESTRUCTURED and merged_into(native) is not None:
            continue
        schema, table = neutral_table(dictionary, native)
        relations.append(Relation(schema, table, f"{schema}/{table}.parquet"))
    if variant == RESTRUCTURED:
        for name in dictionary["restructured_tables"]:
            schema, table = merged_table(dictionary, name)
            relations.append(Relation(schema, table, f"{schema}/{table}.parquet"))
    return relations


def plan_for(task: Task, data_dir: str | Path, variant: str) -> Plan:
    """The plan of ``task``'s database under ``variant``; the variant must be prepared."""
    data_dir = Path(data_dir)
    check_variant(variant)
    if task.dataset == "eicu":
        if variant != NATIVE:
            raise M4AgentError(f"task {task.name} is an eICU task: it has only the native variant")
        if task.drop_tables:
            raise M4AgentError(f"task {task.name}: eICU tasks drop nothing, found {list(task.drop_tables)}")
        relations = [
            Relation(*r.split(".", 1), relation_path(r)) for r in exported_relations(data_dir, "eicu")
        ]
    elif task.dataset == "mimic-iv":
        selected = _selected_native(task, data_dir)
        if variant == NATIVE:
            relations = [Relation(*r.split(".", 1), relation_path(r)) for r in selected]
        else:
            relations = _transformed(selected, variant, data_dir)
    else:
        raise M4AgentError(f"task {task.name}: unknown dataset {task.dataset!r}")
    root = data_root(data_dir, variant)
    missing = [r.path for r in relations if not (root / r.path).exists()]
    if missing:
        raise M4AgentError(
            f"{len(missing)} file(s) of the {variant} variant are missing (e.g. {missing[0]}); "
            f"call prepare(data_dir, {variant!r})"
        )
    for r in relations:
        if not (_NAME.match(r.schema) and _NAME.match(r.name)):
            raise M4AgentError(f"relation {r.schema}.{r.name} has a name a view cannot safely take")
    return Plan(variant, tuple(sorted(relations, key=lambda r: (r.schema, r.name))))
