"""CLI paths not exercised elsewhere, through the real ``m4agent`` command: `data synth` and its
--patients check, `reference build`'s missing-source messages and its closing line, `quickstart`,
the two usage errors of `grade`, and the human summary of one grade.

Each test asserts the exit code and the message (progress and messages go to standard error,
a grade's summary to standard output). Builds are the session's: quickstart's output
is the record of the shared harness build (tests/support/harness.py), and grading uses the
front door's small built data directory (tests/support/front_door.py); the other commands fail
before any build, or synthesize a few patients.
"""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path

import duckdb
import pytest
from support.front_door import built_data_dir, cli, traceback_free
from support.harness import PATIENTS, SEED, quickstart_record

TASK = "mimic-sofa-24h"


def _error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a command that failed with exit 1 and no traceback."""
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert traceback_free(done.stderr), done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, done.stderr
    return errors[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    return built_data_dir(tmp_path_factory)


@pytest.fixture(scope="module")
def reference_csv(built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cli_reference") / "sofa.csv"
    done = cli("reference", "export", TASK, "--out", str(out), "--data-dir", str(built.data_dir))
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A data directory with a 3-patient synthetic MIMIC-IV and eICU, and what `data synth --dataset eicu` printed."""
    data_dir = tmp_path_factory.mktemp("cli_synth") / "m4data"
    mimic = cli("data", "synth", "--patients", "3", "--seed", "1", "--data-dir", str(data_dir))
    assert mimic.returncode == 0, mimic.stderr
    eicu = cli("data", "synth", "--dataset", "eicu", "--patients", "3", "--seed", "1", "--data-dir", str(data_dir))
    return data_dir, eicu


# --- data synth ---------------------------------------------------------------------------------

def test_data_synth_exits_0_and_names_the_database_and_the_next_step(synthesized) -> None:
    data_dir, done = synthesized
    assert done.returncode == 0, done.stderr
    assert f"wrote {data_dir / 'eicu.duckdb'}; next: `m4agent reference build`" in " ".join(done.stderr.split())


def test_data_synth_writes_the_requested_number_of_patients(synthesized) -> None:
    data_dir, _ = synthesized
    con = duckdb.connect(str(data_dir / "eicu.duckdb"), read_only=True)
    try:
        stays = con.execute("SELECT count(DISTINCT uniquepid) FROM eicu_crd.patient").fetchone()[0]
    finally:
        con.close()
    assert stays == 3


def test_data_synth_refuses_fewer_than_one_patient(tmp_path: Path) -> None:
    line = _error_line(cli("data", "synth", "--patients", "0", "--data-dir", str(tmp_path / "d")))
    assert line == "error: --patients must be at least 1"


def test_data_synth_refusing_its_patients_creates_no_data_directory(tmp_path: Path) -> None:
    cli("data", "synth", "--patients", "-2", "--data-dir", str(tmp_path / "d"))
    assert not (tmp_path / "d").exists()


# --- reference build: missing sources, closing line -----------------------------------------------

def test_reference_build_names_a_missing_source_table_and_how_to_create_it(synthesized, tmp_path: Path) -> None:
    data_dir = tmp_path / "m4data"
    data_dir.mkdir()
    for name in ("mimic_iv.duckdb", "eicu.duckdb"):
        (data_dir / name).write_bytes((synthesized[0] / name).read_bytes())
    con = duckdb.connect(str(data_dir / "eicu.duckdb"))
    con.execute("DROP TABLE eicu_crd.lab")
    con.close()
    line = _error_line(cli("reference", "build", "--data-dir", str(data_dir)))
    assert line.startswith(f"error: source table eicu_crd.lab missing from {data_dir / 'eicu.duckdb'}; ")
    assert f"`m4agent data synth --dataset eicu --data-dir {data_dir}`" in line
    assert f"`m4agent data load --dataset eicu --src PATH --data-dir {data_dir}`" in line


def test_reference_build_without_databases_names_the_missing_one(tmp_path: Path) -> None:
    line = _error_line(cli("reference", "build", "--data-dir", str(tmp_path)))
    assert line.startswith(f"error: source database {tmp_path / 'mimic_iv.duckdb'} not found; ")
    assert "`m4agent data synth --dataset mimic-iv" in line


def test_reference_build_refuses_fewer_than_one_thread(tmp_path: Path) -> None:
    line = _error_line(cli("reference", "build", "--threads", "0", "--data-dir", str(tmp_path)))
    assert line == "error: --threads must be at least 1"


def test_reference_build_ends_with_its_time_and_dbt_log(built) -> None:
    text = " ".join(built.stderr.split())
    log = built.data_dir / "dbt" / "logs" / "dbt.log"
    assert built.returncode == 0
    assert "built in " in text and f"s (dbt's log: {log})" in text


# --- quickstart ---------------------------------------------------------------------------------

def test_quickstart_exits_0_after_synthesizing_both_datasets(harness_data_dir: Path) -> None:
    code, _, stderr = quickstart_record(harness_data_dir)
    text = " ".join(stderr.split())
    assert code == 0
    for dataset, db in (("mimic-iv", "mimic_iv.duckdb"), ("eicu", "eicu.duckdb")):
        assert f"synthesized {dataset} ({PATIENTS} patients) -> {harness_data_dir / db}" in text


def test_quickstart_ends_with_where_it_wrote_and_next_steps(harness_data_dir: Path) -> None:
    _, _, stderr = quickstart_record(harness_data_dir)
    text = " ".join(stderr.split())
    assert f"databases and references in {harness_data_dir}" in text
    assert text.index("done in") < text.index("next steps:") and "m4agent grade mimic-sofa-24h sofa.csv" in text


def test_quickstart_builds_every_reference(harness_data_dir: Path) -> None:
    from m4agent.registry import all_tasks

    con = duckdb.connect(str(harness_data_dir / "mimic_iv.duckdb"), read_only=True)
    try:
        built = {name for (name,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'reference'").fetchall()}
    finally:
        con.close()
    mimic = {t.reference_model for t in all_tasks().values() if t.dataset == "mimic-iv"}
    assert mimic <= built
    assert SEED == 7  # the harness's data set: the seed quickstart was given


def test_quickstart_refuses_fewer_than_one_patient(tmp_path: Path) -> None:
    line = _error_line(cli("quickstart", "--patients", "0", "--data-dir", str(tmp_path / "q")))
    assert line == "error: --patients must be at least 1"
    assert not (tmp_path / "q").exists()


# --- grade: usage errors and the summary of one grade ------------------------------------------------

def test_grade_with_a_task_but_no_output_is_a_usage_error(built) -> None:
    line = _error_line(cli("grade", TASK, "--data-dir", str(built.data_dir)))
    assert line == "error: usage: m4agent grade TASK OUTPUT.csv, or m4agent grade --results-root DIR"


def test_grade_with_a_file_and_a_results_root_is_a_usage_error(built, reference_csv, tmp_path: Path) -> None:
    line = _error_line(cli("grade", TASK, str(reference_csv), "--results-root", str(tmp_path),
                           "--data-dir", str(built.data_dir)))
    assert line == "error: give either TASK OUTPUT.csv or --results-root DIR, not both"


def _rows(path: Path) -> int:
    with path.open(newline="") as handle:
        return sum(1 for _ in csv.reader(handle)) - 1


def test_grade_summary_first_line_names_task_run_reward_and_verdict(built, reference_csv) -> None:
    done = cli("grade", TASK, str(reference_csv), "--data-dir", str(built.data_dir))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"{TASK} run sofa: reward 1.000000, strict pass"


def test_grade_summary_second_line_gives_the_key_metrics_and_row_counts(built, reference_csv) -> None:
    done = cli("grade", TASK, str(reference_csv), "--data-dir", str(built.data_dir))
    rows = _rows(reference_csv)
    assert done.stdout.splitlines()[1] == (
        f"keys: precision 1.0000, recall 1.0000, F1 1.0000; agent rows {rows}, unique keys {rows}, "
        f"extra 0, duplicates 0; truth rows {rows}")


def test_grade_summary_lists_each_scored_column_with_its_match_rate(built, reference_csv) -> None:
    from m4agent.registry import all_tasks

    done = cli("grade", TASK, str(reference_csv), "--data-dir", str(built.data_dir))
    table = [line.split() for line in done.stdout.splitlines()[2:] if line.strip()]
    assert table[0] == ["column", "match", "rate"]
    assert table[1:] == [[column, "1.000000"] for column in all_tasks()[TASK].scored_columns]


def test_grade_summary_of_a_failing_output_names_the_failed_check(built, reference_csv, tmp_path: Path) -> None:
    with reference_csv.open(newline="") as handle:
        rows = list(csv.reader(handle))
    shortened = tmp_path / "half.csv"
    with shortened.open("w", newline="") as handle:
        csv.writer(handle).writerows(rows[: 1 + (len(rows) - 1) // 2])
    done = cli("grade", TASK, str(shortened), "--data-dir", str(built.data_dir))
    assert done.returncode == 2, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{TASK} run half: reward ") and lines[0].endswith(", strict fail")
    assert any(line.startswith("failed ") and "coverage" in line for line in lines), done.stdout
