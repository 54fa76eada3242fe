"""A 1 GB agent output is streamed, not loaded into memory, and scored by M4Bench's rules.

The file is written at test time (perfect rows followed by about a million
fabricated keys, each with a 1 KB note), so the expected scores follow from the
rules directly: every fabricated key counts against every column.
"""

from __future__ import annotations

import pytest
from fixtures.grading.fixture import graded_environment

from m4agent.grading.grade import grade_runs
from m4agent.grading.loader import Run

GIGABYTE = 1 << 30


@pytest.mark.slow
def test_one_gigabyte_output(tmp_path):
    data_dir, tasks, truth = graded_environment(tmp_path)
    task = tasks["fx-meld"]
    lines = truth["fx-meld"].read_text().splitlines()
    output = tmp_path / "huge.csv"
    note = "x" * 1000
    fabricated = 0
    with output.open("w") as handle:
        handle.write(lines[0] + ",note\n")
        for line in lines[1:]:
            handle.write(line + ",\n")
        while handle.tell() < GIGABYTE:
            block = "".join(f"{50_000_000 + fabricated + i},1,2,10.5,{note}\n" for i in range(10_000))
            handle.write(block)
            fabricated += 10_000
    assert output.stat().st_size >= GIGABYTE

    try:
        result = grade_runs([Run("huge", task, output)], data_dir)["huge"]
    finally:
        output.unlink()  # pytest keeps recent temporary folders; never keep a gigabyte
    truth_rows = len(lines) - 1
    assert result["errors"] == []
    assert result["agent_rows"] == truth_rows + fabricated
    assert result["extra_keys"] == fabricated
    assert result["match_rates"] == {"meld": round(truth_rows / (truth_rows + fabricated), 8)}
    assert result["reward"] == pytest.approx(truth_rows / (truth_rows + fabricated), abs=1e-8)
    assert result["key_precision"] == pytest.approx(truth_rows / (truth_rows + fabricated), abs=1e-8)
    assert result["key_recall"] == 1.0
    assert result["strict_pass"] is False
