"""Loading agent CSVs into agent_outputs: text only, pandas' reading rules, reasons instead of crashes."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from m4agent.grading.loader import Run, load_runs, pandas_column_names
from m4agent.registry import Task

TASK = Task(name="t", family="f", mode="standard", dataset="mimic-iv", description="", drop_tables=(),
            reference="r", reference_model="ref_r", key_columns=("stay_id",), value_columns=("label", "score"),
            required_columns=("stay_id", "label", "score"), row_coverage_threshold=1.0,
            accuracy_threshold=1.0)


@pytest.mark.parametrize("header", ["a,b,a", "a,a,a.1,a", ",x,", "x,X, x"])
def test_column_names_follow_pandas(header):
    expected = list(pd.read_csv(io.StringIO(header + "\n" + "1," * header.count(",") + "1\n")).columns)
    assert pandas_column_names(header.split(",")) == expected


def _load(tmp_path: Path, content: bytes | str | None) -> tuple[tuple, list[tuple]]:
    path = tmp_path / "output.csv"
    if content is not None:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    con = duckdb.connect()
    load_runs(con, [Run("r1", TASK, path)], tmp_path / "rows")
    file_row = con.execute("SELECT file_exists, read_error, agent_rows, header FROM agent_outputs.output_files"
                           ).fetchone()
    slots = dict(con.execute("SELECT slot, column_name FROM agent_outputs.task_columns "
                             "WHERE slot IS NOT NULL").fetchall())
    assert [name for _, name in sorted(slots.items())] == ["stay_id", "label", "score"]
    header = file_row[3] or []
    cells = sorted(
        (row_number, slots[slot], value)
        for row_number, *values in con.execute("SELECT row_number, column_1, column_2, column_3 "
                                               "FROM agent_outputs.output_rows").fetchall()
        for slot, value in enumerate(values, start=1)
        if slots[slot] in header
    )
    con.close()
    return file_row, cells


def test_text_is_kept_verbatim(tmp_path):
    content = '\ufeffstay_id,label,score,extra\r\n1,None,007,x\r\n\r\n2,"two\nlines",,y\r\n3,"", 4 ,z\r\n'
    file_row, cells = _load(tmp_path, content)
    assert file_row == (True, None, 3, ["stay_id", "label", "score", "extra"])
    assert cells == [
        (1, "label", "None"), (1, "score", "007"), (1, "stay_id", "1"),
        (2, "label", "two\nlines"), (2, "score", None), (2, "stay_id", "2"),
        (3, "label", None), (3, "score", " 4 "), (3, "stay_id", "3"),
    ]


@pytest.mark.parametrize("content, reason", [
    (None, "output file not found"),
    ("", "no columns to parse"),
    ("\n\n", "no columns to parse"),
    (b"stay_id,label\n1,caf\xe9\n", "not UTF-8"),
    ("stay_id,label\n1,a\n2,b,c\n", "Expected Number of Columns: 2 Found: 3"),
])
def test_unreadable_files_get_a_reason(tmp_path, content, reason):
    (exists, error, rows, _), cells = _load(tmp_path, content)
    assert exists == (content is not None)
    assert reason in error
    assert rows is None and cells == []


def test_header_only_and_short_rows(tmp_path):
    file_row, cells = _load(tmp_path, "stay_id,label,score\n")
    assert file_row == (True, None, 0, ["stay_id", "label", "score"]) and cells == []
    file_row, cells = _load(tmp_path, "stay_id,label,score\n5\n")
    assert file_row[2] == 1 and (1, "label", None) in cells and (1, "stay_id", "5") in cells


@pytest.mark.parametrize("quoted_newline", [False, True])
def test_files_over_one_read_block_keep_every_row(tmp_path, quoted_newline):
    """Arrow reads a file in 16 MB blocks; without quotes it may split at any newline, with
    them a newline inside a quoted value (here in the last row, past the first block) stays
    in its cell. Either way the rows are pandas' rows."""
    lines = [f"{i},label {i},{i / 7}" for i in range(1, 700_001)]
    if quoted_newline:
        lines[-1] = '700000,"two\nlines",1.5'
    content = "stay_id,label,score\r\n" + "\r\n".join(lines) + "\r\n\r\n"
    assert len(content) > 16 << 20
    path = tmp_path / "output.csv"
    path.write_text(content, newline="")
    con = duckdb.connect()
    load_runs(con, [Run("r1", TASK, path)], tmp_path / "rows")
    expected = pd.read_csv(io.StringIO(content), dtype=str, keep_default_na=False)
    assert con.execute("SELECT agent_rows FROM agent_outputs.output_files").fetchone() == (len(expected),)
    assert len(expected) == 700_000
    picked = [1, 350_000, 699_999, 700_000]
    loaded = con.execute("SELECT row_number, column_1, column_2, column_3 FROM agent_outputs.output_rows "
                         "WHERE list_contains(?, row_number) ORDER BY row_number", [picked]).fetchall()
    assert loaded == [(row, *expected.iloc[row - 1][["stay_id", "label", "score"]]) for row in picked]


def test_a_new_batch_replaces_the_previous_ones_files(tmp_path):
    """The previous batch's files are moved aside and removed in the background; a folder left
    aside by an interrupted call is removed by the next one."""
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    first.write_text("stay_id,label,score\n1,a,1\n2,b,2\n")
    second.write_text("stay_id,label,score\n3,c,3\n")
    rows = tmp_path / "rows"
    left_aside = tmp_path / "rows.previous"
    left_aside.mkdir()
    (left_aside / "stale.parquet").write_bytes(b"left by an interrupted call")
    con = duckdb.connect()
    load_runs(con, [Run("r1", TASK, first)], rows)
    assert not left_aside.exists()  # removed before the first batch's files took their place
    load_runs(con, [Run("r2", TASK, second)], rows)
    assert con.execute("SELECT run_number, column_1 FROM agent_outputs.output_rows").fetchall() == [(1, "3")]
    for thread in threading.enumerate():
        if thread.name == "m4agent-remove-previous-batch":
            thread.join()
    assert not left_aside.exists()
    assert sorted(path.relative_to(rows).as_posix() for path in rows.rglob("*.parquet")) == \
        ["task=t/run_number=1/rows.parquet"]
