"""The ground truth as M4Bench ships it: a gzipped CSV, reproducible byte for byte.

The benchmark's per-run baseline reads the truth the way the original harness
does (``<task>.csv.gz``), so the gzipped export must hold exactly the plain
export's text and grade the same.
"""

from __future__ import annotations

import gzip

import duckdb
import pytest
from support import pandas_oracle
from support.perturb import perturbations, read_rows

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
