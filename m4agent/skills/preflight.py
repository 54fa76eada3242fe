"""Preflight lint of a task tree (ours or any M4Bench-format ``benchmark/tasks``): nothing that an
agent reads may give the answer away. Each finding names its file and line.

The rules (M4Bench's ``preflight.py`` checks, stated once here):

- **instruction** (``instruction.md``): no schema hint: no ``mimiciv_`` prefix, no ``itemid``,
  no fenced SQL, no ``SELECT``.
- **skill** (``skills/``, the canonical skills): every skill folder holds only ``SKILL.md``;
  it opens with frontmatter naming ``name``, ``description``, ``tier`` and ``category`` and has
  an "M4Bench use" section; it holds no ``FROM``/``JOIN mimiciv_derived.<table>`` query, no
  table the task drops and no fenced SQL.
- **spec** (``operational-spec.md``): prose only: no fenced SQL, no ``SELECT ... FROM``, no
  ``FROM``/``JOIN schema.table``, no schema prefix (``mimiciv_``, ``eicu_crd``), no
  ``itemid``, no mimic-code or MIT-LCP reference, no number of five or more digits.
- **raw** (``task.toml``): a task named ``*-raw`` runs in raw mode, so its database loses the
  whole derived schema, not only the listed tables; a raw MIMIC-IV task's instruction says the
  derived tables were removed.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from m4agent.errors import M4AgentError

_I = re.IGNORECASE
FENCED_SQL = re.compile(r"^\s*```\s*sql\b", _I | re.MULTILINE)
INSTRUCTION_RULES = (
    (re.compile(r"\bmimiciv_", _I), "schema prefix `mimiciv_`"),
    (re.compile(r"\bitemid\b", _I), "`itemid`"),
    (FENCED_SQL, "fenced SQL"),
    (re.compile(r"\bSELECT\b", _I), "`SELECT`"),
)
DERIVED_QUERY = re.compile(r"\b(FROM|JOIN)\s+mimiciv_derived\.[A-Za-z0-9_]+", _I)
SPEC_RULES = (
    (FENCED_SQL, "fenced SQL"),
    (re.compile(r"\bSELECT\b.+\bFROM\b", _I), "SQL query (SELECT ... FROM)"),
    (re.compile(r"\b(FROM|JOIN)\s+[A-Za-z0-9_]+\.[A-Za-z0-9_]", _I), "schema-qualified FROM/JOIN"),
    (re.compile(r"\bmimiciv_|\beicu_crd\b", _I), "schema name"),
    (re.compile(r"\bitemid\b", _I), "`itemid`"),
    (re.compile(r"\bMIT-LCP\b|\bmimic-code\b", _I), "mimic-code reference"),
    (re.compile(r"\b[0-9]{5,}\b"), "number of five or more digits (an item id?)"),
)
USE_NOTE = re.compile(r"^#+\s*M4Bench use\b", _I | re.MULTILINE)
FRONTMATTER_KEYS = ("name", "description", "tier", "category")


@dataclass(frozen=True)
class Finding:
    """One leak: its rule (instruction, skill, spec, raw), file, 1-based line and what was found."""

    rule: str
    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: [{self.rule}] {self.message}"


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _scan(rule: str, path: Path, text: str, patterns: Iterable[tuple[re.Pattern[str], str]]) -> Iterator[Finding]:
    """A finding per pattern per line it matches (multi-line patterns are matched line by line)."""
    for number, line in enumerate(text.splitlines(), start=1):
        for pattern, what in patterns:
            if pattern.search(line):
                yield Finding(rule, path, number, f"{what} in {path.name}")


def lint_instruction(path: Path) -> list[Finding]:
    return list(_scan("instruction", path, path.read_text(), INSTRUCTION_RULES))


def lint_spec(path: Path) -> list[Finding]:
    text = path.read_text()
    if not text.strip():
        return [Finding("spec", path, 1, "operational-spec.md is empty")]
    return list(_scan("spec", path, text, SPEC_RULES))


def lint_skills(skills_dir: Path, drop_tables: Iterable[str]) -> list[Finding]:
    """Findings for a task's canonical ``skills/`` folder."""
    found: list[Finding] = []
    for extra in sorted(p for p in skills_dir.rglob("*") if not p.is_dir()):
        if extra.name != "SKILL.md" or extra.parent.parent != skills_dir:
            found.append(Finding("skill", extra, 1, "extra file in a canonical skill (only <skill>/SKILL.md)"))
    for skill in sorted(skills_dir.glob("*/SKILL.md")):
        text = skill.read_text()
        found += _frontmatter(skill, text)
        if not USE_NOTE.search(text):
            found.append(Finding("skill", skill, 1, "no \"M4Bench use\" section"))
        for pattern, what in ((DERIVED_QUERY, "derived-table query"), (FENCED_SQL, "fenced SQL")):
            found += [Finding("skill", skill, _line_of(text, m.start()), what) for m in pattern.finditer(text)]
        for table in sorted(set(drop_tables)):
            for m in re.finditer(re.escape(table) + r"\b", text):
                found.append(Finding("skill", skill, _line_of(text, m.start()), f"dropped table `{table}`"))
    return found


def _frontmatter(path: Path, text: str) -> list[Finding]:
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---" or "---" not in (s.strip() for s in lines[1:]):
        return [Finding("skill", path, 1, "no frontmatter (--- name/description/tier/category ---)")]
    end = next(i for i, s in enumerate(lines[1:], start=1) if s.strip() == "---")
    keys = {s.split(":", 1)[0].strip() for s in lines[1:end] if ":" in s}
    return [Finding("skill", path, 1, f"frontmatter lacks `{key}`") for key in FRONTMATTER_KEYS if key not in keys]


def lint_raw_mode(toml_path: Path, config: dict[str, Any]) -> list[Finding]:
    meta = config.get("metadata", {})
    name, mode = str(meta.get("name", "")), str(meta.get("mode", ""))
    text = toml_path.read_text()
    at = re.search(r"^\s*mode\s*=", text, re.MULTILINE)
    line = _line_of(text, at.start()) if at else 1
    if name.endswith("-raw") and mode != "raw":
        return [Finding("raw", toml_path, line, f"{name} is a raw task but its mode is {mode!r}, so the "
                        "whole derived schema would not be dropped")]
    source = str(config.get("database", {}).get("source", meta.get("database", "")))
    instruction = toml_path.parent / "instruction.md"
    if mode == "raw" and source == "mimic-iv" and instruction.is_file() \
            and not re.search(r"\bremoved\b", instruction.read_text(), _I):
        return [Finding("raw", instruction, 1, f"{name} drops the whole derived schema but its instruction "
                        "does not say the derived tables were removed")]
    return []


def lint_tree(tasks_dir: Path) -> list[Finding]:
    """Every finding in the task tree ``tasks_dir`` (``<family>/<task>/task.toml``), sorted."""
    tomls = sorted(Path(tasks_dir).glob("*/*/task.toml"))
    if not tomls:
        raise M4AgentError(f"{tasks_dir} holds no <family>/<task>/task.toml; point the preflight at a task tree")
    found: list[Finding] = []
    for toml_path in tomls:
        folder = toml_path.parent
        config = tomllib.loads(toml_path.read_text())
        found += lint_raw_mode(toml_path, config)
        if (folder / "instruction.md").is_file():
            found += lint_instruction(folder / "instruction.md")
        if (folder / "operational-spec.md").exists():
            found += lint_spec(folder / "operational-spec.md")
        if (folder / "skills").is_dir():
            found += lint_skills(folder / "skills", config.get("database", {}).get("drop_tables", []))
    return sorted(found, key=lambda f: (str(f.path), f.line, f.message))


def doctor_check(tasks_dir: Path | None = None) -> dict[str, Any]:
    """``m4agent doctor``'s preflight line: ok, or the first findings with file and line."""
    from m4agent.registry import TASKS_DIR

    root = Path(tasks_dir or TASKS_DIR)
    try:
        found = lint_tree(root)
    except M4AgentError as exc:
        return {"name": "preflight", "ok": False, "detail": str(exc)}
    if not found:
        return {"name": "preflight", "ok": True, "detail": f"no leak in instructions, skills or specs under {root}"}
    shown = "; ".join(str(f) for f in found[:5]) + (f"; and {len(found) - 5} more" if len(found) > 5 else "")
    return {"name": "preflight", "ok": False, "detail": f"{len(found)} leak(s): {shown}"}
