"""Task workspaces: the database each agent run sees, under each schema variant.

Instead of copying, pruning and compacting a whole database per task and per run (M4Bench),
the source and derived tables are exported once per data directory as read-only Parquet
(``prepare``), rewritten once under neutral names for the ``obfuscated`` and
``restructured`` variants; a task's ``Plan`` lists the relations it may see, ``mounts``
says which host folder holds exactly their files, and ``SETUP_SCRIPT`` (run inside the
container) creates a database of a few hundred kilobytes holding one view per relation.
Dropped relations are never created, named or mounted. ``rewrite_instruction`` adapts an
instruction to a transformed variant.

Modules: ``store`` (the store's layout), ``files`` (atomic read-only writes, the lock),
``export`` (native export and stamps), ``dictionary`` (neutral names), ``obfuscate`` and
``restructure`` (the transformed variants), ``prepare`` (the three in order), ``plan`` (what
a task sees), ``mounts`` (what its container binds), ``instruction`` (the instruction's
rewrite), ``setup_database`` (the standalone script).
"""

from __future__ import annotations

from pathlib import Path

from m4agent.workspaces.instruction import rewrite_instruction
from m4agent.workspaces.mounts import mount_folder, mounts
from m4agent.workspaces.plan import Plan, Relation, plan_for
from m4agent.workspaces.prepare import prepare
from m4agent.workspaces.store import NATIVE, OBFUSCATED, RESTRUCTURED, VARIANTS, data_root, dictionary_path

SETUP_SCRIPT: Path = Path(__file__).resolve().parent / "setup_database.py"

__all__ = [
    "NATIVE",
    "OBFUSCATED",
    "RESTRUCTURED",
    "SETUP_SCRIPT",
    "VARIANTS",
    "Plan",
    "Relation",
    "data_root",
    "dictionary_path",
    "mount_folder",
    "mounts",
    "plan_for",
    "prepare",
    "rewrite_instruction",
]
