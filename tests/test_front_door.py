"""The front door (issue 22): what a newcomer meets, run as they run it, through the real command.

Each test is one problem the issue lists: exit codes, one-line errors for expected failures (read-only
folders, a file where a folder is meant, a locked database, missing data), the data directory chosen
and printed, partial builds, quiet output, campaign summaries, CLI conventions. One small data
directory (30 synthetic patients, the SOFA and MELD references) is built once per session and copied where a test
changes it.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.front_door import built_data_dir, cli, copy_data_dir, traceback_free

TASK = "mimic-sofa-24h"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    return built_data_dir(tmp_path_factory)


@pytest.fixture(scope="module")
def reference_csv(built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SOFA reference exported as CSV: an output that scores 1.0."""
    out = tmp_path_factory.mktemp("reference") / "sofa.csv"
    done = cli("reference", "export", TASK, "--out", str(out), "--data-dir", str(built.data_dir))
    assert done.returncode == 0, done.stderr
    return out


def _without_column(source: Path, dest: Path, column: str) -> Path:
    with open(source, newline="") as handle:
        rows = list(csv.DictReader(handle))
    fields = [f for f in rows[0] if f != column]
    with open(dest, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return dest


def _one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The error line of a failed command, after checking it failed with exit 1 and no traceback."""
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert traceback_free(done.stderr), done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, done.stderr
    return errors[0]


# --- exit codes ---------------------------------------------------------------------------------

def test_grade_exits_0_when_the_output_passes(built, reference_csv):
    done = cli("grade", TASK, str(reference_csv), "--data-dir", str(built.data_dir))
    assert done.returncode == 0, done.stderr
    assert "reward 1.000000, strict pass" in done.stdout


def test_grade_exits_2_on_a_strict_failure(built, reference_csv, tmp_path):
    output = _without_column(reference_csv, tmp_path / "no_renal.csv", "renal")
    done = cli("grade", TASK, str(output), "--data-dir", str(built.data_dir))
    assert done.returncode == 2, done.stderr
    assert "strict fail" in done.stdout and "renal" in done.stdout


def test_grade_no_fail_exits_0_on_a_strict_failure(built, reference_csv, tmp_path):
    output = _without_column(reference_csv, tmp_path / "no_renal.csv", "renal")
    done = cli("grade", TASK, str(output), "--data-dir", str(built.data_dir), "--no-fail", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["strict_pass"] is False


def test_grade_of_a_file_that_is_not_there_is_an_input_error_exit_1(built, tmp_path):
    line = _one_error_line(cli("grade", TASK, str(tmp_path / "absent.csv"), "--data-dir", str(built.data_dir)))
    assert "absent.csv does not exist" in line


def test_usage_error_exits_1_not_2():
    done = cli("grade", "--no-such-option")
    assert done.returncode == 1
    assert "No such option" in done.stderr


def test_exit_codes_are_in_the_help():
    done = cli("grade", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "2 `grade`, `run`: an output failed the strict checks" in text and "130 interrupted" in text
    assert "3 `run`, `campaign run`: runs left without a result" in text and "--no-fail" in text


def _leaf_commands() -> dict[str, object]:
    import typer

    from m4agent.cli import app

    found = {}

    def walk(command, path):
        subcommands = getattr(command, "commands", None)
        if subcommands is None:
            found[" ".join(path)] = command
        for name, sub in (subcommands or {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


def test_every_commands_help_ends_with_the_exit_codes():
    from m4agent.errors import EXIT_CODES_HELP

    commands = _leaf_commands()
    assert {"run", "campaign run", "grade", "doctor", "report"} <= set(commands)
    assert {name for name, command in commands.items() if command.epilog != EXIT_CODES_HELP} == set()


def test_readme_exit_code_table_is_the_one_every_help_prints():
    from m4agent.errors import EXIT_CODES

    table = README.read_text().split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = {int(m.group(1)): m.group(2) for m in re.finditer(r"^\| (\d+) \| (.+) \|$", table, re.M)}
    assert rows == {code: meaning for code, meaning in EXIT_CODES}


# --- one-line errors for expected failures ------------------------------------------------------

def test_synth_into_a_read_only_folder_is_one_line(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    line = _one_error_line(cli("data", "synth", "--patients", "5", "--data-dir", str(folder / "d"),
                               read_only=[folder]))
    assert "read-only" in line and str(folder / "d") in line


def test_quickstart_into_a_read_only_folder_is_one_line(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    line = _one_error_line(cli("quickstart", "--patients", "5", "--data-dir", str(folder),
                               read_only=[folder]))
    assert "read-only" in line
    assert not list(folder.iterdir()), "nothing written"


def test_data_dir_naming_a_file_is_one_line(tmp_path):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    line = _one_error_line(cli("data", "synth", "--patients", "5", "--data-dir", str(a_file)))
    assert "is a file" in line and str(a_file) in line


def test_export_into_a_read_only_folder_is_one_line(built, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    line = _one_error_line(cli("reference", "export", TASK, "--out", str(folder / "sofa.csv"),
                               "--data-dir", str(built.data_dir), read_only=[folder]))
    assert "read-only" in line and "--out" in line


def test_export_while_another_program_holds_the_database_names_it(built, tmp_path):
    data_dir = copy_data_dir(built.data_dir, tmp_path / "d")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; con = duckdb.connect(sys.argv[1]); print('open', flush=True); "
         "sys.stdin.read()", str(data_dir / "mimic_iv.duckdb")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        line = _one_error_line(cli("reference", "export", TASK, "--out", str(tmp_path / "s.csv"),
                                   "--data-dir", str(data_dir)))
    finally:
        holder.communicate("")
    assert "open in another program" in line and f"pid {holder.pid}" in line


def test_grade_on_a_read_only_data_dir_says_read_only_not_close_programs(built, reference_csv, tmp_path):
    data_dir = copy_data_dir(built.data_dir, tmp_path / "d")
    line = _one_error_line(cli("grade", TASK, str(reference_csv), "--data-dir", str(data_dir),
                               read_only=[data_dir]))
    assert "read-only" in line and "close other programs" not in line


def test_reference_build_on_a_read_only_data_dir_points_to_no_log(built, tmp_path):
    data_dir = copy_data_dir(built.data_dir, tmp_path / "d")
    line = _one_error_line(cli("reference", "build", "--data-dir", str(data_dir), read_only=[data_dir]))
    assert "read-only" in line and "dbt.log" not in line


def test_missing_dataset_says_how_to_create_it(tmp_path):
    line = _one_error_line(cli("reference", "build", "--data-dir", str(tmp_path)))
    assert "not found" in line and "m4agent data synth" in line


def test_missing_tasks_dir_is_named(built, reference_csv):
    line = _one_error_line(cli("grade", TASK, str(reference_csv), "--data-dir", str(built.data_dir),
                               "--tasks-dir", "/nonexistent/tasks"))
    assert "/nonexistent/tasks does not exist" in line


def test_select_matching_nothing_is_an_error_and_the_help_example_is_real(built):
    # selects nothing, so changes nothing: the shared data directory keeps dbt's saved parse
    line = _one_error_line(cli("reference", "build", "--data-dir", str(built.data_dir), "--select", "sofa+"))
    assert "matches no" in line
    helped = " ".join(cli("reference", "build", "--help").stdout.split())
    assert "'sofa+'" not in helped and "+ref_sofa_24h" in helped


# --- the data directory: chosen, printed, configurable --------------------------------------------

def test_every_data_command_prints_the_data_directory(built, reference_csv):
    done = cli("grade", TASK, str(reference_csv), "--data-dir", str(built.data_dir), "--json")
    assert f"data directory: {built.data_dir} (--data-dir)" in done.stderr


def _export(cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return cli("reference", "export", TASK, "--out", str(cwd / "s.csv"), cwd=cwd, env=env)


def test_a_command_run_from_a_subfolder_uses_the_projects_m4data(built, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "m4data").symlink_to(built.data_dir, target_is_directory=True)
    below = project / "runs" / "try1"
    below.mkdir(parents=True)
    done = _export(below)
    assert done.returncode == 0, done.stderr
    assert f"data directory: {project / 'm4data'} (the nearest m4data folder above {below})" in done.stderr


def test_environment_variable_chooses_the_data_directory(built, tmp_path):
    done = _export(tmp_path, env={"M4AGENT_DATA_DIR": str(built.data_dir)})
    assert done.returncode == 0, done.stderr
    assert f"data directory: {built.data_dir} ($M4AGENT_DATA_DIR)" in done.stderr


def test_project_config_file_chooses_the_data_directory(built, tmp_path):
    project = tmp_path / "project"
    (project / "data").mkdir(parents=True)
    (project / "data" / "here").symlink_to(built.data_dir, target_is_directory=True)
    (project / "m4agent.toml").write_text('data_dir = "data/here"\n')
    (project / "sub").mkdir()
    done = _export(project / "sub")
    assert done.returncode == 0, done.stderr
    assert f"(data_dir in {project / 'm4agent.toml'})" in done.stderr


def test_grading_without_a_data_directory_fails_instead_of_scoring_0(reference_csv, tmp_path):
    line = _one_error_line(cli("grade", TASK, str(reference_csv), cwd=tmp_path))
    assert str(tmp_path / "m4data") in line


# --- partial builds -----------------------------------------------------------------------------

def test_reference_build_with_only_mimic_iv_builds_and_says_what_it_skipped(built, tmp_path):
    data_dir = tmp_path / "mimic_only"
    data_dir.mkdir()
    (data_dir / "mimic_iv.duckdb").write_bytes((built.data_dir / "mimic_iv.duckdb").read_bytes())
    done = cli("reference", "build", "--select", "+ref_sofa_24h", "--data-dir", str(data_dir))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "skipping eicu" in done.stderr and "eicu-" in done.stderr
    assert not (data_dir / "eicu.duckdb").exists(), "no empty eICU database left in the data directory"
    exported = cli("reference", "export", TASK, "--out", str(tmp_path / "s.csv"), "--data-dir", str(data_dir))
    assert exported.returncode == 0, exported.stderr


# --- quiet output -------------------------------------------------------------------------------

def test_reference_build_is_quiet_and_ends_with_next_steps(built):
    text = built.stdout + built.stderr
    assert len(text.splitlines()) < 60, text[-3000:]
    assert " START " not in text and "agent_outputs" not in text
    assert "next steps" in text and "m4agent grade" in text


# --- campaigns: what was graded, skipped or not gradable -----------------------------------------

def _campaign(root: Path, reference_csv: Path) -> Path:
    for name, task in (("a", TASK), ("b", TASK)):
        (root / name).mkdir(parents=True)
        (root / name / "run.json").write_text(json.dumps({"task": task}))
        (root / name / "output.csv").write_bytes(reference_csv.read_bytes())
    (root / "c").mkdir()
    (root / "c" / "run.json").write_text(json.dumps({"task": "no-such-task"}))
    (root / "c" / "output.csv").write_bytes(reference_csv.read_bytes())
    return root


def test_campaign_mean_leaves_out_runs_naming_no_known_task(built, reference_csv, tmp_path):
    root = _campaign(tmp_path / "runs", reference_csv)
    done = cli("grade", "--results-root", str(root), "--data-dir", str(built.data_dir))
    assert done.returncode == 2, done.stderr  # the unknown task's run fails
    assert "graded 2 runs" in done.stdout and "mean reward 1.0000" in done.stdout
    assert "1 run folder(s) name no known task" in done.stdout


def test_regrading_a_graded_campaign_says_runs_were_skipped_and_how_to_force(built, reference_csv, tmp_path):
    root = _campaign(tmp_path / "runs", reference_csv)
    cli("grade", "--results-root", str(root), "--data-dir", str(built.data_dir))
    again = cli("grade", "--results-root", str(root), "--data-dir", str(built.data_dir))
    assert again.returncode == 0, again.stderr
    assert "3 run(s) already graded were skipped" in again.stdout and "--force" in again.stdout
    assert "mean reward 0.0000" not in again.stdout


def test_grading_an_empty_folder_explains_the_run_folder_format(built, tmp_path):
    line = _one_error_line(cli("grade", "--results-root", str(tmp_path), "--data-dir", str(built.data_dir)))
    assert "run.json" in line and "output.csv" in line


def test_output_without_run_json_is_reported_not_ignored(built, reference_csv, tmp_path):
    (tmp_path / "r1").mkdir()
    (tmp_path / "r1" / "output.csv").write_bytes(reference_csv.read_bytes())
    done = cli("grade", "--results-root", str(tmp_path), "--data-dir", str(built.data_dir))
    assert "name no known task" in done.stdout and "no run.json" in done.stdout
    assert json.loads((tmp_path / "r1" / "result.json").read_text())["errors"]


# --- CLI conventions ----------------------------------------------------------------------------

def test_version_is_printed():
    done = cli("--version")
    assert done.returncode == 0 and done.stdout.startswith("m4agent ")


def test_tasks_list_json_has_every_task():
    done = cli("tasks", "list", "--json")
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(records) == 28 and {"row_coverage_threshold", "accuracy_threshold"} <= records[0].keys()


def test_tasks_list_explains_cov_and_acc():
    text = cli("tasks", "list").stdout
    assert "cov: row coverage" in text and "acc: accuracy" in text


def test_tasks_show_renders_placeholders():
    human = cli("tasks", "show", TASK).stdout
    machine = json.loads(cli("tasks", "show", TASK, "--json").stdout)
    assert "{output_path}" not in human and "{output_path}" not in machine["instruction"]
    assert "./output.csv" in machine["instruction"]


# --- the README as a front door -----------------------------------------------------------------

README = Path(__file__).resolve().parent.parent / "README.md"


def _code_blocks(text: str) -> list[str]:
    parts = text.split("```")
    return [block.split("\n", 1)[1] if "\n" in block else block for block in parts[1::2]]


def test_readme_first_command_installs_the_tool_without_dev_extras():
    first = _code_blocks(README.read_text())[0]
    assert "pip install -e ." in first and "[dev]" not in first and "m4agent quickstart" in first


def test_readme_second_command_is_the_test_script():
    assert _code_blocks(README.read_text())[1].strip() == "scripts/test"


def test_readme_documents_exit_codes_and_the_original_repository_variable():
    text = README.read_text()
    assert "M4_ORIGINAL_REPO" in text and "130" in text and "--no-fail" in text


def test_tests_have_no_default_path_to_the_original_repository(monkeypatch):
    import importlib

    import original_ground_truth

    monkeypatch.delenv("M4_ORIGINAL_REPO", raising=False)
    reloaded = importlib.reload(original_ground_truth)
    try:
        assert reloaded.ORIGINAL_REPO is None and not reloaded.mirror_available()
    finally:
        monkeypatch.undo()
        importlib.reload(original_ground_truth)


def test_unknown_task_is_one_line(built, reference_csv):
    line = _one_error_line(cli("grade", "no-such-task", str(reference_csv), "--data-dir", str(built.data_dir)))
    assert "unknown task" in line
