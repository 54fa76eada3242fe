"""The ground truth as M4Bench ships it: a gzipped CSV, reproducible byte for byte.

The benchmark's per-run baseline reads the truth the way the original harness
does (``<task>.csv.gz``), so the gzipped export must hold exactly the plain
export's text and grade the same. The one rendering of a reference in the
product (``reference_export.render_reference``, which ``m4agent reference export``
writes) holds M4Bench's text: unrounded, byte for byte what DuckDB -> pandas ->
``to_csv`` writes, on every column type a reference has; and grading's own
rendering of the references, in SQL, holds the same text cell for cell.
"""

from __future__ import annotations

import gzip

import duckdb
import pytest
from support import pandas_oracle
from support.perturb import perturbations, read_rows

from m4agent.dbt import duckdb_session
from m4agent.grading.grade import grade_runs
from m4agent.grading.loader import Run
from m4agent.reference_export import export, render_reference, write_csv
from m4agent.registry import all_tasks

TASK = "mimic-meld-24h"


@pytest.fixture()
def reference(tmp_path):
    """A DuckDB file with the task's reference table, rows out of key order."""
    task = all_tasks()[TASK]
    columns = [*task.key_columns, *[c for c in task.scored_columns if c not in task.key_columns]]
    path = tmp_path / "ref.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE SCHEMA reference")
    con.execute(f"CREATE TABLE reference.{task.reference_model} AS "
                f"SELECT (30000300 - i) AS {columns[0]}, "
                + ", ".join(f"CASE WHEN i % 7 = 0 THEN NULL ELSE i * 1.5 END AS {c}" for c in columns[1:])
                + " FROM range(1, 60) AS t(i)")
    yield con, task
    con.close()


def test_gzipped_truth_holds_the_plain_text_and_is_reproducible(reference, tmp_path):
    con, task = reference
    plain = pandas_oracle.export_truth(con, task, tmp_path / "truth.csv")
    zipped = pandas_oracle.export_truth(con, task, tmp_path / "truth.csv.gz")
    (tmp_path / "again").mkdir()
    again = pandas_oracle.export_truth(con, task, tmp_path / "again" / "truth.csv.gz")

    assert zipped.read_bytes()[:2] == b"\x1f\x8b"  # a gzip stream, not text named .gz
    assert gzip.decompress(zipped.read_bytes()) == plain.read_bytes()
    assert zipped.read_bytes() == again.read_bytes()  # mtime 0: same bytes on every export (gzip keeps the name)
    rows = read_rows(zipped)
    assert rows == read_rows(plain)
    assert rows[0][0] == task.key_columns[0] and len(rows) == 60
    keys = [int(row[0]) for row in rows[1:]]
    assert keys == sorted(keys)  # sorted by key, as M4Bench writes it


def test_outputs_grade_the_same_against_either_truth_file(reference, tmp_path):
    import random

    con, task = reference
    plain = pandas_oracle.export_truth(con, task, tmp_path / "truth.csv")
    zipped = pandas_oracle.export_truth(con, task, tmp_path / "truth.csv.gz")
    makers = perturbations(task, read_rows(zipped), random.Random(5))
    rewards = set()
    for index, make in enumerate(makers[:10]):
        output = tmp_path / f"out{index}.csv"
        output.write_text(make(), newline="")
        from_plain = pandas_oracle.grade(task, output, plain)
        assert pandas_oracle.grade(task, output, zipped) == from_plain
        rewards.add(from_plain["reward"])
    assert 1.0 in rewards and len(rewards) > 2  # the copies span exact and degraded outputs


# Every column type a reference has, with the values whose text differs between renderers:
# floats needing 17 digits, integers beside NULL, decimals, text needing quotes or looking like
# a missing value, and timestamp columns whose one format pandas chooses from all their values.
TYPED_COLUMNS = {
    "count_with_null": "CASE WHEN i % 4 = 0 THEN NULL ELSE i END::INTEGER",
    "big": "(i * 10000000000)::BIGINT",
    "amount": "(i / 8)::DECIMAL(18,3)",
    "ratio": "CASE WHEN i % 5 = 0 THEN NULL ELSE i / 3 + 0.1 + 0.2 END::DOUBLE",
    "whole": "(i * 2)::DOUBLE",
    "label": "CASE i % 4 WHEN 0 THEN 'a, \"quoted\" b' WHEN 1 THEN 'None' WHEN 2 THEN NULL ELSE 'NA' END",
    "flag": "CASE WHEN i % 3 = 0 THEN NULL ELSE i % 2 = 0 END",
    "at_second": "TIMESTAMP '2150-01-01 06:30:00' + INTERVAL (i * 61) SECOND",
    "at_midnight": "TIMESTAMP '2150-01-01' + INTERVAL (i) DAY",
    "with_ms": "TIMESTAMP '2150-01-01 06:30:00' + INTERVAL (i * 250) MILLISECOND",
    "with_us": "CASE WHEN i = 3 THEN TIMESTAMP '2150-01-01 06:30:00.000007' ELSE TIMESTAMP '2150-01-02 07:00:00' END",
    "day": "DATE '2150-01-01' + i::INTEGER",
}


@pytest.fixture()
def typed_reference(tmp_path):
    """A reference table holding every column type, rows out of key order."""
    task = all_tasks()[TASK]
    path = tmp_path / "typed.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE SCHEMA reference")
    con.execute(f"CREATE TABLE reference.{task.reference_model} AS SELECT (30000100 - i) AS {task.key_columns[0]}, "
                + ", ".join(f"{sql} AS {name}" for name, sql in TYPED_COLUMNS.items())
                + " FROM range(1, 40) AS t(i)")
    yield con, task
    con.close()


def test_rendered_reference_is_m4bench_ground_truth_byte_for_byte(typed_reference, tmp_path):
    con, task = typed_reference
    columns = [task.key_columns[0], *TYPED_COLUMNS]
    ours = write_csv(render_reference(con, f"reference.{task.reference_model}", columns, task.key_columns,
                                      significant_digits=None), tmp_path / "ours.csv")
    theirs = pandas_oracle.export_truth(con, task, tmp_path / "theirs.csv")
    assert ours.read_text().splitlines() == theirs.read_text().splitlines()
    assert ours.read_bytes() == theirs.read_bytes()


def test_rendered_reference_rounds_floats_only_when_asked(typed_reference):
    con, task = typed_reference
    columns = [task.key_columns[0], "ratio"]
    relation = f"reference.{task.reference_model}"
    exact = render_reference(con, relation, columns, task.key_columns, significant_digits=None)
    rounded = render_reference(con, relation, columns, task.key_columns)  # the export's 15 digits
    assert "0.6333333333333333" in {row[1] for row in exact}  # 1/3 + 0.1 + 0.2 as pandas writes it
    assert "0.633333333333333" in {row[1] for row in rounded}
    assert [row[0] for row in exact] == [row[0] for row in rounded]


def _reference_columns(con: duckdb.DuckDBPyConnection, model: str) -> tuple[str, list[str]]:
    """The qualified name of a built reference and its columns, in table order."""
    catalog = con.execute("SELECT table_catalog FROM information_schema.tables WHERE table_schema = 'reference' "
                          "AND table_name = ?", [model]).fetchone()[0]
    columns = [name for (name,) in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_catalog = ? AND table_schema = 'reference' "
        "AND table_name = ? ORDER BY ordinal_position", [catalog, model]).fetchall()]
    return f'"{catalog}".reference."{model}"', columns


@pytest.mark.slow
def test_grading_renders_every_reference_as_render_reference_does(harness_data_dir, tmp_path):
    """The truth grading compares with (int_grading__truth_rows, rendered in SQL) is the text of
    render_reference, unrounded, in every slot of every reference of a build (NULL for an empty cell)."""
    tasks = all_tasks()
    runs = [Run(name, task, export(name, harness_data_dir, tmp_path / f"{name}.csv")) for name, task in tasks.items()]
    grade_runs(runs, harness_data_dir)
    con = duckdb_session.connect(harness_data_dir, read_only=True)
    try:
        rendered = [task for (task,) in con.execute("SELECT DISTINCT task FROM grading.int_grading__truth_rows")
                    .fetchall()]
        differing = []
        for name in rendered:
            slots = con.execute("SELECT column_name, slot FROM agent_outputs.task_columns WHERE task = ? AND slot "
                                "IS NOT NULL AND role IN ('key', 'scored') ORDER BY slot", [name]).fetchall()
            in_sql = con.execute(f"SELECT {', '.join(f'column_{slot}' for _, slot in slots)} FROM "
                                 "grading.int_grading__truth_rows WHERE task = ? ORDER BY truth_row", [name]).fetchall()
            relation, columns = _reference_columns(con, tasks[name].reference_model)
            rows = render_reference(con, relation, columns, tasks[name].key_columns, significant_digits=None)[1:]
            positions = [columns.index(column) for column, _ in slots]
            ours = [tuple(row[i] or None for i in positions) for row in rows]
            if ours != in_sql:
                differing.append(name)
    finally:
        con.close()
    assert len(rendered) > 10 and differing == []
