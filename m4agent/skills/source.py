"""The ``meta.skill`` blocks of the reference models, grouped into one skill per task family.

A family's skill is defined by exactly one of its reference models (the block that has a
``name``); a family served by two models (``gcs`` and ``oasis``: MIMIC-IV and eICU) adds the
other model's block as a dataset section, labelled by its ``dataset``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from m4agent.errors import M4AgentError
from m4agent.paths import PROJECT_ROOT
from m4agent.registry import Task

REFERENCE_DIR = PROJECT_ROOT / "models" / "marts" / "reference"

# Sections a model's block may give per dataset, in the order a skill shows them.
DATASET_SECTIONS = ("formula", "items", "windows", "units", "missingness", "ties", "pitfalls")
REQUIRED_KEYS = ("name", "title", "description", "tier", "category", "definition", "items", "windows",
                 "units", "missingness", "ties", "pitfalls", "sources")


@dataclass(frozen=True)
class DatasetPart:
    """What one reference model says for its dataset: its label and its sections."""

    model: str
    dataset: str
    sections: dict[str, Any]


@dataclass(frozen=True)
class FamilySkill:
    """One family's skill: the defining block, the dataset parts (defining model first) and sources."""

    family: str
    block: dict[str, Any]
    parts: tuple[DatasetPart, ...]
    sources: tuple[str, ...]
    models: tuple[str, ...]
    includes: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        return str(self.block["name"])

    @property
    def sentinel_tasks(self) -> tuple[str, ...]:
        """M4Bench's sentinel tasks of this family (its operational-spec profile runs them)."""
        return tuple(self.block.get("operational_spec_tasks", ()))

    def sections_for(self, model: str) -> dict[str, Any]:
        """The sections that hold for ``model``'s dataset: its own, else the defining model's."""
        own = next((p.sections for p in self.parts if p.model == model), {})
        return {**self.parts[0].sections, **own}


LIST_KEYS = ("pitfalls", "sources", "includes", "operational_spec_tasks")


def model_blocks(reference_dir: Path = REFERENCE_DIR) -> dict[str, dict[str, Any]]:
    """``meta.skill`` of every reference model that has one, by model name; values type-checked."""
    blocks: dict[str, dict[str, Any]] = {}
    for yml in sorted(reference_dir.glob("*.yml")):
        doc = yaml.safe_load(yml.read_text()) or {}
        for model in doc.get("models", []):
            skill = ((model.get("config") or {}).get("meta") or {}).get("skill")
            if skill is not None:
                _check_types(yml, skill)
                blocks[model["name"]] = skill
    return blocks


def _check_types(yml: Path, skill: dict[str, Any]) -> None:
    """Text where text is meant: an unquoted ``: `` in YAML silently turns a line into a mapping."""
    for key, value in skill.items():
        if key == "review":
            continue
        items = value if key in LIST_KEYS and isinstance(value, list) else [value]
        if key in LIST_KEYS and not isinstance(value, list) or not all(isinstance(v, str) for v in items):
            raise M4AgentError(f"{yml}: meta.skill.{key} must be {'a list of texts' if key in LIST_KEYS else 'a text'}; "
                               "quote a value that holds ': '")


def family_skills(tasks: Mapping[str, Task], reference_dir: Path = REFERENCE_DIR) -> dict[str, FamilySkill]:
    """Every family's skill, by family, from the blocks of the models its tasks are graded against."""
    blocks = model_blocks(reference_dir)
    models_of: dict[str, set[str]] = {}
    for task in tasks.values():
        models_of.setdefault(task.family, set()).add(task.reference_model)
    skills: dict[str, FamilySkill] = {}
    for family, models in sorted(models_of.items()):
        missing = sorted(m for m in models if m not in blocks)
        if missing:
            raise M4AgentError(f"family {family!r}: reference model(s) {', '.join(missing)} have no meta.skill "
                               f"block; add one under config.meta in {reference_dir}/<model>.yml")
        defining = sorted(m for m in models if "name" in blocks[m])
        if len(defining) != 1:
            raise M4AgentError(f"family {family!r} needs exactly one meta.skill block with a name among "
                               f"{', '.join(sorted(models))}; found {len(defining)}")
        block = blocks[defining[0]]
        absent = [k for k in REQUIRED_KEYS if not block.get(k)]
        if absent:
            raise M4AgentError(f"{defining[0]}: meta.skill lacks {', '.join(absent)}; fill them in its YAML")
        ordered = [defining[0], *sorted(m for m in models if m != defining[0])]
        parts = tuple(DatasetPart(m, str(blocks[m].get("dataset", "")),
                                  {k: blocks[m][k] for k in DATASET_SECTIONS if blocks[m].get(k)})
                      for m in ordered)
        sources = tuple(s for m in ordered for s in blocks[m].get("sources", ()))
        skills[family] = FamilySkill(family, block, parts, sources, tuple(ordered),
                                     tuple(block.get("includes", ())))
    for skill in skills.values():
        unknown = [f for f in skill.includes if f not in skills]
        if unknown:
            raise M4AgentError(f"family {skill.family!r} includes unknown families {', '.join(unknown)}")
    return skills
