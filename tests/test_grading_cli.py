"""`m4agent grade`: one CSV as JSON, and a results tree graded in one pass with result.json files."""

from __future__ import annotations

import json
import re
import shutil

import duckdb
import pytest
from fixtures.grading.fixture import graded_environment
from typer.testing import CliRunner

from m4agent.cli import app
from m4agent.grading import batch, grade
from m4agent.grading.loader import Run
from m4agent.grading.truth_cache import TRUTH_MODELS

runner = CliRunner()
KEYS = {"task", "run_id", "reward", "match_rates", "strict_pass", "checks", "key_precision", "key_recall",
        "key_f1", "agent_rows", "agent_unique_keys", "extra_keys", "duplicate_rows", "truth_rows", "errors"}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return tmp_path_factory.mktemp("grading_cli"), *graded_environment(tmp_path_factory.mktemp("grading_env"))


def _last_json(text: str) -> dict:
    return json.loads([line for line in text.splitlines() if line.startswith("{")][-1])


def test_grade_one_file_as_json(env):
    work, data_dir, tasks, truth = env
    output = work / "agent.csv"
    lines = truth["fx-meld"].read_text().splitlines()
    output.write_text("\n".join([lines[0], *lines[1:11], "99999999,1,2,3"]) + "\n")
    result = runner.invoke(app, ["grade", "fx-meld", str(output), "--data-dir", str(data_dir),
                                 "--tasks-dir", str(tasks["fx-meld"].path.parent.parent), "--json",
                                 "--expectations"])
    assert result.exit_code == 2, result.output  # a strict failure (exit codes: README)
    graded = _last_json(result.stdout)
    assert graded["expectations_pass"] is False
    assert graded["expectations_failed"] == ["strict:expect_column_values_to_be_in_set[test_row_coverage]",
                                             "strict:expect_column_values_to_be_in_set[test_score_accuracy[meld]]"]
    failed_checks = [check["name"] for check in graded["checks"] if not check["passed"]]
    assert failed_checks == ["test_row_coverage", "test_score_accuracy[meld]"]
    assert set(graded) >= KEYS
    assert graded["task"] == "fx-meld" and graded["run_id"] == "agent"
    assert graded["truth_rows"] == 40 and graded["agent_rows"] == 11
    assert graded["key_recall"] == pytest.approx(10 / 40)
    assert graded["key_precision"] == pytest.approx(10 / 11) and graded["extra_keys"] == 1
    assert graded["strict_pass"] is False
    assert [c["name"] for c in graded["checks"]][:4] == [
        "test_output_exists", "test_output_is_valid_csv", "test_has_required_columns", "test_row_coverage"]


def test_grade_results_root(env):
    work, data_dir, tasks, truth = env
    tasks_dir = tasks["fx-meld"].path.parent.parent
    root = work / "results"
    runs = {
        "a/good": ("fx-meld", truth["fx-meld"]),
        "a/vaso": ("fx-vaso", truth["fx-vaso"]),
        "b/no-output": ("fx-labels", None),
        "b/unknown-task": ("no-such-task", truth["fx-meld"]),
    }
    for name, (task, source) in runs.items():
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "run.json").write_text(json.dumps({"task": task}))
        if source:
            shutil.copy(source, folder / "output.csv")
    (root / "c" / "broken").mkdir(parents=True)
    (root / "c" / "broken" / "run.json").write_text("{not json")

    args = ["grade", "--results-root", str(root), "--data-dir", str(data_dir), "--tasks-dir", str(tasks_dir)]
    first = runner.invoke(app, args)
    assert first.exit_code == 2, first.output  # some runs fail their strict checks
    results = {name: json.loads((root / name / "result.json").read_text())
               for name in [*runs, "c/broken"]}
    assert results["a/good"]["reward"] == 1.0 and results["a/good"]["strict_pass"]
    assert results["a/vaso"]["reward"] == 1.0
    assert results["b/no-output"]["reward"] == 0.0 and "not found" in results["b/no-output"]["errors"][0]
    assert "unknown task" in results["b/unknown-task"]["errors"][0]
    assert "run.json" in results["c/broken"]["errors"][0]
    assert not list(root.rglob(".result.json.*")), "no temporary files left behind"

    (root / "a" / "good" / "output.csv").write_text("stay_id,meld\n")
    second = runner.invoke(app, args)  # everything graded: nothing to do, nothing rewritten
    assert second.exit_code == 0, second.output
    assert json.loads((root / "a" / "good" / "result.json").read_text())["reward"] == 1.0

    forced = runner.invoke(app, [*args, "--force", "--json", "--expectations"])
    assert forced.exit_code == 2, forced.output
    assert len([line for line in forced.stdout.splitlines() if line.startswith("{")]) == 5
    results = {name: json.loads((root / name / "result.json").read_text()) for name in [*runs, "c/broken"]}
    assert results["a/good"]["reward"] == 0.0  # now a header without rows
    # the Great Expectations suites validate every run of the campaign: a second verdict that
    # agrees with the dbt tests on a failing and a passing run; runs not graded fail both
    assert results["a/good"]["strict_pass"] is False and results["a/good"]["expectations_pass"] is False
    assert "strict:expect_column_values_to_be_in_set[test_output_is_valid_csv]" in results["a/good"]["expectations_failed"]
    assert results["a/vaso"]["strict_pass"] is True and results["a/vaso"]["expectations_pass"] is True
    assert results["a/vaso"]["expectations_failed"] == []
    for name in ("b/no-output", "b/unknown-task", "c/broken"):
        assert results[name]["strict_pass"] is False and results[name]["expectations_pass"] is False

    summary = runner.invoke(app, [*args, "--force", "--expectations"])
    assert summary.exit_code == 2, summary.output
    assert "the two verdicts agree on 5 of 5 runs" in summary.stdout


def _mark_truth_tables(data_dir) -> None:
    """Comment the truth tables: a table dbt builds again is created anew, without the comment."""
    con = duckdb.connect(str(data_dir / "mimic_iv.duckdb"))
    for model in TRUTH_MODELS:
        con.execute(f"COMMENT ON TABLE grading.{model} IS 'kept'")
    con.close()


def _kept_truth_tables(data_dir) -> set[str]:
    con = duckdb.connect(str(data_dir / "mimic_iv.duckdb"), read_only=True)
    kept = {name for (name,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'grading' AND comment = 'kept'").fetchall()}
    con.close()
    return kept & set(TRUTH_MODELS)


def test_truth_is_rendered_again_only_when_the_reference_changes(tmp_path_factory):
    data_dir, tasks, truth = graded_environment(tmp_path_factory.mktemp("truth_cache"))
    output = tmp_path_factory.mktemp("truth_cache_run") / "agent.csv"
    shutil.copy(truth["fx-meld"], output)
    args = ["grade", "fx-meld", str(output), "--data-dir", str(data_dir),
            "--tasks-dir", str(tasks["fx-meld"].path.parent.parent), "--json"]

    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert _last_json(first.stdout)["reward"] == 1.0
    _mark_truth_tables(data_dir)

    again = runner.invoke(app, args)  # same task, same reference, same SQL: the truth is reused
    assert again.exit_code == 0, again.output
    assert _kept_truth_tables(data_dir) == set(TRUTH_MODELS)
    assert _last_json(again.stdout)["reward"] == 1.0

    con = duckdb.connect(str(data_dir / "mimic_iv.duckdb"))
    changed = con.execute("UPDATE reference.ref_meld_24h SET meld = meld + 5 "
                          "WHERE stay_id IN (SELECT stay_id FROM reference.ref_meld_24h ORDER BY stay_id LIMIT 4)"
                          ).fetchone()[0]
    con.close()
    assert changed == 4
    rebuilt = runner.invoke(app, args)  # the reference changed: rendered again, and the output no longer matches
    assert rebuilt.exit_code == 0, rebuilt.output
    assert _kept_truth_tables(data_dir) == set()
    assert _last_json(rebuilt.stdout)["match_rates"]["meld"] == pytest.approx(36 / 40)


def _corrupting_loader(monkeypatch, bad: set[str]) -> list[list[str]]:
    """The real loader, then the Parquet file of each run in `bad` overwritten with bytes that are not
    Parquet (dbt's grading models then fail on the batch, as on a run the SQL cannot grade); the batches
    loaded, in order."""
    real_load = batch.load_runs
    batches: list[list[str]] = []

    def load_and_corrupt(con, runs, rows_dir):
        real_load(con, runs, rows_dir)
        batches.append([run.run_id for run in runs])
        for number, run in enumerate(runs, start=1):
            if run.run_id in bad:
                (rows_dir / f"task={run.task.name}" / f"run_number={number}" / "rows.parquet").write_bytes(b"not a parquet file")

    monkeypatch.setattr(batch, "load_runs", load_and_corrupt)
    return batches


def _copies(env) -> list[Run]:
    _, _, tasks, truth = env
    names = ["fx-meld", "fx-vaso", "fx-labels", "fx-meld", "fx-vaso"]
    return [Run(f"run{index}", tasks[name], truth[name]) for index, name in enumerate(names)]


def test_a_run_dbt_fails_on_scores_zero_and_the_others_keep_their_scores(env, monkeypatch):
    runs = _copies(env)
    batches = _corrupting_loader(monkeypatch, {"run3"})
    results = grade.grade_runs(runs, env[1])
    # one pass, then halves: [run0, run1] passes, [run2, run3, run4] fails, [run2] passes, [run3, run4]
    # fails, [run3] fails and [run4] passes
    assert batches == [[run.run_id for run in runs], ["run0", "run1"], ["run2", "run3", "run4"], ["run2"],
                       ["run3", "run4"], ["run3"], ["run4"]]
    failed = results["run3"]
    assert failed["reward"] == 0.0 and not failed["strict_pass"] and failed["task"] == "fx-meld"
    assert failed["errors"][0].startswith("grading failed: dbt build")
    # the grading model that read the file (a staged view or an intermediate model), DuckDB's reason
    assert re.search(r"(stg_agent_outputs|int_grading)__", failed["errors"][0]) and "magic bytes" in failed["errors"][0]
    assert {run_id: result["reward"] for run_id, result in results.items() if run_id != "run3"} == {
        "run0": 1.0, "run1": 1.0, "run2": 1.0, "run4": 1.0}


def test_runs_at_fault_in_different_halves_are_each_found(env, monkeypatch):
    _corrupting_loader(monkeypatch, {"run0", "run4"})
    results = grade.grade_runs(_copies(env), env[1])
    assert {run_id: result["reward"] for run_id, result in results.items()} == {
        "run0": 0.0, "run1": 1.0, "run2": 1.0, "run3": 1.0, "run4": 0.0}
    assert all(results[run_id]["errors"][0].startswith("grading failed") for run_id in ("run0", "run4"))


def test_runs_at_fault_side_by_side_or_a_single_run_raise_the_error(env, monkeypatch):
    runs = _copies(env)
    batches = _corrupting_loader(monkeypatch, {"run0", "run1"})
    with pytest.raises(batch.GradingRunFailed, match="(stg_agent_outputs|int_grading)__"):
        grade.grade_runs(runs, env[1])
    assert batches == [[run.run_id for run in runs], ["run0", "run1"], ["run0"], ["run1"]]  # no wider search
    with pytest.raises(batch.GradingRunFailed):
        grade.grade_runs(runs[:1], env[1])
