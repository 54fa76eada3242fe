"""The grading slice of the dbt project, which grading runs dbt on.

dbt loads every node of its project on each call: here 1,052 nodes (references,
seeds and their 887 tests), and the graph and selection over them. That costs
about half a second a call, on one core, to build the 28 nodes grading needs.
Grading therefore runs dbt on a project that holds only those nodes.

The slice is made of links to this project's files, under
``DIR/dbt/grading_project``:

- ``models/grading`` links to the grading models and their YAML (sources,
  docs, tests);
- every macro path of the root project is linked;
- ``profiles.yml`` is linked;
- ``dbt_project.yml`` is written from the root one: the same name, profile and
  vars, with the root's settings for ``models/grading`` as the settings of all
  its models.

Nothing is copied, so an edit to a grading model or macro is what the next call
runs. ``dbt build --select path:models/grading`` at the root builds the same
models, and so does a user's plain ``dbt test``. Where links cannot be made,
grading uses the root project.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from m4agent.paths import PROJECT_ROOT

MODELS = Path("models") / "grading"


def slice_settings(root_settings: dict[str, Any]) -> dict[str, Any]:
    """The slice's dbt_project.yml from the root's: its models are the root's ``models/grading``."""
    name = root_settings["name"]
    model_settings = root_settings.get("models", {}).get(name, {}).get(MODELS.name, {})
    return {
        "name": name,
        "version": root_settings.get("version", "0.1.0"),
        "config-version": root_settings.get("config-version", 2),
        "profile": root_settings["profile"],
        "model-paths": [MODELS.as_posix()],
        "macro-paths": root_settings.get("macro-paths", ["macros"]),
        "seed-paths": [],
        "test-paths": [],
        "analysis-paths": [],
        "snapshot-paths": [],
        "target-path": "target",
        "vars": root_settings.get("vars", {}),
        "models": {name: {key: value for key, value in model_settings.items() if key.startswith("+")}},
    }


def _link(link: Path, target: Path) -> None:
    """Make ``link`` point at ``target`` (replacing another link there)."""
    if link.is_symlink() and Path(os.readlink(link)) == target:
        return
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink():
        link.unlink()
    link.symlink_to(target, target_is_directory=target.is_dir())


def grading_project(data_dir: Path, root: Path = PROJECT_ROOT) -> Path:
    """The folder of the grading slice of ``root`` for this data directory, assembled on first use
    (and mended when the root's settings change); ``root`` itself where links cannot be made."""
    project = data_dir / "dbt" / "grading_project"
    root_settings = yaml.safe_load((root / "dbt_project.yml").read_text())
    settings = yaml.safe_dump(slice_settings(root_settings), sort_keys=False)
    try:
        _link(project / MODELS, root / MODELS)
        for macros in root_settings.get("macro-paths", ["macros"]):
            _link(project / macros, root / macros)
        _link(project / "profiles.yml", root / "profiles.yml")
    except OSError:
        return root
    written = project / "dbt_project.yml"
    if not written.exists() or written.read_text() != settings:  # an unchanged file keeps dbt's saved parse
        written.write_text(settings)
    return project
