"""The ``with-skill-rawsql`` control: each task's reference SQL, compiled by dbt, as a skill.

``compile_references`` runs ``dbt compile`` once over ``models/marts/reference`` against an
empty scratch data directory (compiling reads no data) and reads the compiled SQL of each
model. Relation names are written as an agent's database spells them: dbt's
``"db"."schema"."table"`` becomes ``schema.table`` and a staging view
``stg_<source>__<table>`` becomes ``<source>.<table>``, and a narrow event model
``int_mimiciv_events__<table>_used`` (the rows of the items the value sets name, read once
per build for speed) becomes its source table, which an agent has and which gives the
same result (every query filters its own item ids); the mimic-code concepts keep their
``mimiciv_derived.<alias>`` names. ``wrap`` puts the SQL in a minimal skill that records
the model file and the sha256 of its sources (``model_sha256``), so a test can tell when the SQL is
out of date without dbt.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path

from m4agent.errors import M4AgentError
from m4agent.paths import PROJECT_ROOT
from m4agent.registry import Task

REFERENCE_DIR = PROJECT_ROOT / "models" / "marts" / "reference"
_RELATION = re.compile(r'"[A-Za-z0-9_]+"\."([A-Za-z0-9_]+)"\."([A-Za-z0-9_]+)"')
_STAGING = re.compile(r"^stg_([a-z0-9]+_[a-z0-9]+)__([a-z0-9_]+)$")
_NARROW_EVENTS = re.compile(r"^int_mimiciv_events__([a-z]+)_used$")
_EVENT_SOURCE = {"chartevents": "mimiciv_icu", "inputevents": "mimiciv_icu", "outputevents": "mimiciv_icu",
                 "procedureevents": "mimiciv_icu", "labevents": "mimiciv_hosp"}
_SHA = re.compile(r"^model source sha256: ([0-9a-f]{64})$", re.MULTILINE)
_FENCE_OPEN = "```sql\n"
_MACRO_DEFINITION = re.compile(r"\{%-?\s*macro\s+(\w+)")


def project_macros() -> dict[str, Path]:
    """Every macro of the project by name, and the file defining it."""
    return {name: path for path in sorted((PROJECT_ROOT / "macros").rglob("*.sql"))
            for name in _MACRO_DEFINITION.findall(path.read_text())}


def model_sources(model: str) -> list[Path]:
    """What the compiled SQL is rendered from: the reference model's SQL file and every project macro
    it calls, and those they call (its m4_reference_* macro and conventions, shared rules such as
    sofa_first_day and the organ scores). A concept the model reads is a relation name in the
    compiled SQL, not its text, so it is not among them."""
    macros = project_macros()
    files = [REFERENCE_DIR / f"{model}.sql"]
    text = files[0].read_text()
    while called := sorted({macros[name] for name in macros if re.search(rf"\b{name}\s*\(", text)} - set(files)):
        files.extend(called)
        text += "".join(path.read_text() for path in called)
    return files


def model_sha256(model: str) -> str:
    """sha256 of ``model_sources``: a change to any of them makes the rawsql skill out of date."""
    return hashlib.sha256(b"".join(path.read_bytes() for path in model_sources(model))).hexdigest()


def agent_relation_names(sql: str) -> str:
    """``sql`` with dbt's quoted three-part relations written as the agent's database names them."""
    def rename(match: re.Match[str]) -> str:
        schema, name = match.group(1), match.group(2)
        if staged := _STAGING.match(name):
            return f"{staged.group(1)}.{staged.group(2)}"
        if (narrow := _NARROW_EVENTS.match(name)) and narrow.group(1) in _EVENT_SOURCE:
            return f"{_EVENT_SOURCE[narrow.group(1)]}.{narrow.group(1)}"
        return f"{schema}.{name}"
    return _RELATION.sub(rename, sql)


def compile_references(models: Iterable[str]) -> dict[str, str]:
    """The compiled SQL of each model, relation names rewritten; runs ``dbt compile`` once."""
    from m4agent.dbt.runner import artefact_dir, invoke

    wanted = sorted(set(models))
    with tempfile.TemporaryDirectory(prefix="m4agent-skills-") as scratch:
        data_dir = Path(scratch)
        invoke(data_dir, ["compile", "--select", "path:models/marts/reference"], target="compile",
               progress="dbt compile")
        compiled_dir = artefact_dir(data_dir) / "compile" / "compiled" / "m4agent" / "models" / "marts" / "reference"
        found = {}
        for model in wanted:
            path = compiled_dir / f"{model}.sql"
            if not path.is_file():
                raise M4AgentError(f"dbt compile wrote no SQL for {model} ({path}); run `dbt compile "
                                   "--select path:models/marts/reference` to see why")
            found[model] = agent_relation_names(path.read_text()).strip() + "\n"
    return found


def _render(task: Task, sql: str, sha: str) -> str:
    model = task.reference_model
    return "\n".join([
        "---",
        f"name: {task.name}-reference-sql",
        f"description: The SQL of the reference that {task.name} is graded against, as dbt compiles it.",
        "tier: control",
        "category: reference-sql",
        "---",
        "",
        f"# Reference SQL for {task.name}",
        "",
        f"This is the SQL of m4agent's reference model `{model}` (models/marts/reference/{model}.sql),",
        "compiled by dbt. It names the tables of the full reference build; a table missing from",
        "your database must be derived from the source tables that remain.",
        "",
        f"model source sha256: {sha}",
        "",
        _FENCE_OPEN + sql.rstrip("\n"),
        "```",
        "",
    ])


def wrap(task: Task, sql: str) -> str:
    """The ``skills-rawsql`` SKILL.md of ``task`` around its compiled reference SQL."""
    return _render(task, sql, model_sha256(task.reference_model))


def read_wrapped(path: Path) -> tuple[str, str]:
    """(SQL, recorded model sha256) of an existing rawsql skill; an error says how to regenerate it."""
    text = path.read_text() if path.is_file() else ""
    sha = _SHA.search(text)
    start = text.find(_FENCE_OPEN)
    end = text.rfind("\n```")
    if sha is None or start < 0 or end <= start:
        raise M4AgentError(f"{path} is missing or not a rendered rawsql skill; run `m4agent tasks skills "
                           "--compile` to compile the references and write it")
    return text[start + len(_FENCE_OPEN):end] + "\n", sha.group(1)


def rewrap(task: Task, path: Path) -> str:
    """The rawsql skill rendered again around the SQL it already holds (no dbt needed)."""
    sql, sha = read_wrapped(path)
    return _render(task, sql, sha)


def outdated(tasks: Iterable[Task]) -> list[str]:
    """Tasks whose rawsql skill was compiled from another version of the reference model's SQL."""
    return sorted(t.name for t in tasks
                  if read_wrapped(t.folder / "skills-rawsql" / t.name / "SKILL.md")[1]
                  != model_sha256(t.reference_model))
