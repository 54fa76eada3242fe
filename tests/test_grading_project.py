"""The grading slice of the dbt project: links to the grading models and the macros, nothing else."""

from __future__ import annotations

import json
import shutil

import yaml

from m4agent import dbt_runner
from m4agent.grading.project import MODELS, grading_project
from m4agent.paths import PROJECT_ROOT


def test_the_slice_links_the_grading_models_macros_and_profile(tmp_path):
    project = grading_project(tmp_path)
    assert project == tmp_path / "dbt" / "grading_project"
    assert (project / MODELS).resolve() == (PROJECT_ROOT / MODELS).resolve()
    assert (project / "macros").resolve() == (PROJECT_ROOT / "macros").resolve()
    assert (project / "profiles.yml").resolve() == (PROJECT_ROOT / "profiles.yml").resolve()
    settings = yaml.safe_load((project / "dbt_project.yml").read_text())
    root = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text())
    assert settings["name"] == root["name"] and settings["profile"] == root["profile"]
    assert settings["vars"] == root["vars"]
    assert settings["model-paths"] == ["models/grading"] and settings["seed-paths"] == []
    # the root's settings of models/grading are the settings of every model of the slice
    assert settings["models"] == {root["name"]: root["models"][root["name"]]["grading"]}


def test_dbt_sees_exactly_the_grading_models(tmp_path):
    project = grading_project(tmp_path)
    listed = dbt_runner.invoke(tmp_path, ["ls", "--vars", json.dumps({"m4_grading": True}), "--resource-type",
                                          "model", "--output", "path", "--quiet"],
                               project_dir=project, target="grading")
    assert sorted(listed) == sorted(path.relative_to(PROJECT_ROOT).as_posix()
                                    for path in (PROJECT_ROOT / MODELS).rglob("*.sql"))


def test_assembling_again_keeps_the_settings_file_and_follows_a_moved_root(tmp_path):
    root = tmp_path / "root"
    for name in ("dbt_project.yml", "profiles.yml"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PROJECT_ROOT / name, root / name)
    (root / MODELS).mkdir(parents=True)
    (root / "macros").mkdir()
    data_dir = tmp_path / "data"
    project = grading_project(data_dir, root=root)
    written = (project / "dbt_project.yml").stat().st_mtime_ns
    assert grading_project(data_dir, root=root) == project
    assert (project / "dbt_project.yml").stat().st_mtime_ns == written  # unchanged: dbt keeps its saved parse

    moved = tmp_path / "moved"
    shutil.copytree(root, moved)
    settings = yaml.safe_load((moved / "dbt_project.yml").read_text())
    settings["vars"]["eicu_schema"] = "eicu_elsewhere"
    (moved / "dbt_project.yml").write_text(yaml.safe_dump(settings))
    grading_project(data_dir, root=moved)
    assert (project / MODELS).resolve() == (moved / MODELS).resolve()
    assert (project / "macros").resolve() == (moved / "macros").resolve()
    assert yaml.safe_load((project / "dbt_project.yml").read_text())["vars"]["eicu_schema"] == "eicu_elsewhere"
