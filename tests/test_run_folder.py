"""The run folder's contract (m4agent.run_folder): the bytes of its JSON files, atomic writes, leftovers.

Every writer of a run folder (the harness's records, grading's results trees) goes through it, so the
bytes pinned here are those a campaign and `grade --results-root` leave on disk.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from m4agent import run_folder
from m4agent.run_folder import RESULT_FILE, remove_leftovers, write_json_atomic, zero_result

# A results tree's result.json as grading wrote it before run_folder existed: grading's field order,
# two-space indent, a closing newline.
RESULTS_TREE_ZERO = """{
  "task": "fx-meld",
  "run_id": "broken/run",
  "reward": 0.0,
  "match_rates": {},
  "strict_pass": false,
  "checks": [],
  "key_precision": 0.0,
  "key_recall": 0.0,
  "key_f1": 0.0,
  "agent_rows": 0,
  "agent_unique_keys": 0,
  "extra_keys": 0,
  "duplicate_rows": 0,
  "truth_rows": 0,
  "errors": [
    "output.csv not found"
  ]
}
"""


def test_results_tree_result_keeps_gradings_field_order(tmp_path: Path) -> None:
    write_json_atomic(tmp_path / RESULT_FILE, zero_result("broken/run", "fx-meld", "output.csv not found"),
                      sort_keys=False)
    assert (tmp_path / RESULT_FILE).read_text() == RESULTS_TREE_ZERO


def test_harness_records_are_written_with_sorted_keys(tmp_path: Path) -> None:
    write_json_atomic(tmp_path / "attempt.json", {"outcome": "scored", "number": 1, "extra": {"b": 1, "a": 2}})
    assert (tmp_path / "attempt.json").read_text() == (
        '{\n  "extra": {\n    "a": 2,\n    "b": 1\n  },\n  "number": 1,\n  "outcome": "scored"\n}\n')


def test_zero_result_with_expectations_says_no_suite_validated() -> None:
    result = zero_result("r", None, "not graded", expectations=True)
    assert (result["expectations_pass"], result["expectations_failed"]) == (False, ["not graded"])


def test_write_reaches_the_disk_before_it_replaces_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[set[str]] = []
    real_fsync = os.fsync

    def fsync_then_look(fd: int) -> None:
        real_fsync(fd)
        seen.append({entry.name for entry in os.scandir(tmp_path)})

    monkeypatch.setattr(run_folder.os, "fsync", fsync_then_look)
    (tmp_path / RESULT_FILE).write_text('{"old": true}\n')
    write_json_atomic(tmp_path / RESULT_FILE, {"new": True})
    assert len(seen) == 1
    [temporary] = seen[0] - {RESULT_FILE}
    assert temporary.startswith(".result.json.") and temporary.endswith(".tmp")
    assert (tmp_path / RESULT_FILE).read_text() == '{\n  "new": true\n}\n'


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    (tmp_path / RESULT_FILE).write_text('{"old": true}\n')
    with pytest.raises(TypeError):
        write_json_atomic(tmp_path / RESULT_FILE, {"unserialisable": object()})
    assert [p.name for p in tmp_path.iterdir()] == [RESULT_FILE]
    assert (tmp_path / RESULT_FILE).read_text() == '{"old": true}\n'


def test_a_link_in_the_results_place_is_replaced_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    target.write_text("kept")
    (tmp_path / RESULT_FILE).symlink_to(target)
    write_json_atomic(tmp_path / RESULT_FILE, {"reward": 1.0})
    assert target.read_text() == "kept" and not (tmp_path / RESULT_FILE).is_symlink()


def test_leftovers_of_the_harness_are_every_temporary(tmp_path: Path) -> None:
    for name in (".attempt.json.ab12.tmp", ".output.csv.copy.tmp", "notes.tmp", ".hidden"):
        (tmp_path / name).write_text("x")
    (tmp_path / ".folder.tmp").mkdir()
    assert sorted(remove_leftovers(tmp_path)) == [".attempt.json.ab12.tmp", ".output.csv.copy.tmp"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".folder.tmp", ".hidden", "notes.tmp"]


def test_leftovers_in_a_results_tree_are_only_those_of_the_named_files(tmp_path: Path) -> None:
    for name in (".result.json.ab12.tmp", ".result.json.cd34", ".agents_own.tmp"):
        (tmp_path / name).write_text("x")
    outside = tmp_path.parent / "outside.txt"
    outside.write_text("kept")
    (tmp_path / ".result.json.link.tmp").symlink_to(outside)
    assert sorted(remove_leftovers(tmp_path, (RESULT_FILE,))) == [
        ".result.json.ab12.tmp", ".result.json.cd34", ".result.json.link.tmp"]
    assert [p.name for p in tmp_path.iterdir()] == [".agents_own.tmp"] and outside.read_text() == "kept"


def test_many_writes_report_the_files_that_could_not_be_written(tmp_path: Path) -> None:
    (tmp_path / "ok").mkdir()
    (tmp_path / "blocked").mkdir()
    (tmp_path / "blocked" / RESULT_FILE).mkdir()  # a folder in the result's place
    failed = run_folder.write_json_each([(tmp_path / "ok" / RESULT_FILE, {"reward": 1.0}),
                                         (tmp_path / "blocked" / RESULT_FILE, {"reward": 0.5})], sort_keys=False)
    assert list(failed) == [tmp_path / "blocked" / RESULT_FILE] and isinstance(failed[tmp_path / "blocked" / RESULT_FILE],
                                                                                 IsADirectoryError)
    assert (tmp_path / "ok" / RESULT_FILE).read_text() == '{\n  "reward": 1.0\n}\n'
    assert list((tmp_path / "blocked").iterdir()) == [tmp_path / "blocked" / RESULT_FILE]
