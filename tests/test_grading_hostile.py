"""Grading a campaign of hostile run folders: links in and out, special files, pattern characters in
folder names, malformed run.json files, giant fields and malformed CSVs.

One campaign holds every case beside ordinary runs and is graded once. Every run folder must get
a result.json, with M4Bench's reward (its code under the pandas it pins, written down in
``fixtures/grading/malformed.py``) or a reason; no link out of a run folder is followed; the
campaign completes.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
from pathlib import Path

import pytest
from fixtures.grading.fixture import graded_environment
from fixtures.grading.malformed import EXPECTED, PANDAS_3_DIFFERS, cases
from support import golden

from m4agent.grading import csv_syntax, run_files
from m4agent.grading.results_tree import grade_results_root
from m4agent.grading.summary import failure_summary
from m4agent.run_folder import RESULT_FILE, remove_leftovers

TOLERANCE = 1e-6
PATTERN_FOLDERS = ["globdemo[1]", "*", "star*", "q?", "brace{a,b}", "[x]"]


def _run(root: Path, name: str, task: str | None = "fx-meld", output: bytes | Path | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    if task is not None:
        (folder / "run.json").write_text(json.dumps({"task": task}))
    if isinstance(output, Path):
        shutil.copy(output, folder / "output.csv")
    elif output is not None:
        (folder / "output.csv").write_bytes(output)
    return folder


def _altered(perfect: Path) -> bytes:
    """The perfect output with its first meld value off by 5, and a short row (DuckDB then reads it)."""
    lines = perfect.read_text().splitlines()
    fields = lines[2].split(",")
    fields[3] = str(float(fields[3]) + 5) if fields[3] else "99"
    return "\n".join([*lines[:2], ",".join(fields), *lines[3:], "30000999"]).encode() + b"\n"


def _build(root: Path, truth: dict[str, Path], outside: Path) -> None:
    """The campaign's run folders, and files outside it that links point at."""
    perfect = truth["fx-meld"]
    outside.mkdir()
    shutil.copy(perfect, outside / "truth-copy.csv")
    (outside / "run.json").write_text(json.dumps({"task": "fx-meld"}))

    _run(root, "ordinary/perfect", output=perfect)
    _run(root, "ordinary/vaso", task="fx-vaso", output=truth["fx-vaso"])
    # links and special files
    (_run(root, "links/absolute_to_truth") / "output.csv").symlink_to(perfect)
    (_run(root, "links/relative_outside") / "output.csv").symlink_to(Path("../../../outside/truth-copy.csv"))
    inside = _run(root, "links/inside_folder")
    shutil.copy(perfect, inside / "real.csv")
    (inside / "output.csv").symlink_to("real.csv")
    (_run(root, "links/to_dev_zero") / "output.csv").symlink_to("/dev/zero")
    (_run(root, "links/to_etc_passwd") / "output.csv").symlink_to("/etc/passwd")
    run_json_out = _run(root, "links/run_json_outside", task=None, output=perfect)
    (run_json_out / "run.json").symlink_to(outside / "run.json")
    (root / "links/linked_folder").symlink_to(outside, target_is_directory=True)
    (_run(root, "special/directory") / "output.csv").mkdir()
    os.mkfifo(_run(root, "special/fifo") / "output.csv")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(_run(root, "special/socket") / "output.csv"))
    try:
        os.mknod(_run(root, "special/device") / "output.csv", 0o600 | 0o020000, os.makedev(1, 5))
    except PermissionError:
        shutil.rmtree(root / "special/device")
    # pattern characters: each folder is graded on its own file, never on a neighbour's
    _run(root, "globdemo1", output=perfect)
    for name in PATTERN_FOLDERS:
        _run(root, f"patterns/{name}", output=_altered(perfect))
    _run(root, "patterns/plain", output=_altered(perfect))
    # malformed run.json
    for name, content in {
        "task_list": b'{"task": ["fx-meld"]}', "task_object": b'{"task": {"name": "fx-meld"}}',
        "top_list": b'["fx-meld"]', "top_string": b'"fx-meld"', "top_null": b"null", "task_number": b'{"task": 7}',
        "unknown_task": b'{"task": "no-such-task"}', "not_json": b"{not json", "not_utf8": b'{"task": "\xff"}',
        "deeply_nested": b"[" * 100_000 + b"]" * 100_000, "oversized": b'{"task": "fx-meld", "x": "' +
        b"y" * (2 << 20) + b'"}',
    }.items():
        (_run(root, f"run_json/{name}", task=None, output=perfect) / "run.json").write_bytes(content)
    (_run(root, "run_json/directory", task=None, output=perfect) / "run.json").mkdir()
    os.mkfifo(_run(root, "run_json/fifo", task=None, output=perfect) / "run.json")
    _run(root, "run_json/missing", task=None, output=perfect)
    # result.json in the way, and leftovers of an interrupted write
    result_link = _run(root, "results/result_json_link", output=perfect)
    (outside / "precious.json").write_text('{"keep": true}')
    (result_link / "result.json").symlink_to(outside / "precious.json")
    (_run(root, "results/result_json_directory", output=perfect) / "result.json").mkdir()
    leftover = _run(root, "results/leftover", output=perfect)
    (leftover / ".result.json.k2j4x9aa").write_text('{"reward": 1.0')
    # the malformed CSVs, with M4Bench's verdicts
    for name, content in cases(perfect).items():
        _run(root, f"malformed/{name}", output=content if isinstance(content, bytes) else content.encode())


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    base = tmp_path_factory.mktemp("grading_hostile")
    data_dir, tasks, truth = graded_environment(base)
    root = base / "campaign"
    _build(root, truth, base / "outside")
    results = grade_results_root(root, data_dir, tasks_dir=tasks["fx-meld"].path.parent.parent)
    return root, base / "outside", results


def _error(results: dict, run_id: str) -> str:
    result = results[run_id]
    assert result["reward"] == 0.0 and result["strict_pass"] is False, result
    return " | ".join(result["errors"])


def test_every_run_folder_gets_a_result(campaign):
    root, _, results = campaign
    folders = {path.parent.relative_to(root).as_posix() for path in [*root.rglob("run.json"),
                                                                     *root.rglob("output.csv")]
               if not path.parent.is_symlink()}
    assert set(results) == folders
    unwritten = {"results/result_json_directory"}
    assert {run_id for run_id in folders if not (root / run_id / "result.json").is_file()} == unwritten


def test_ordinary_runs_keep_their_scores(campaign):
    results = campaign[2]
    for run_id in ("ordinary/perfect", "ordinary/vaso", "globdemo1"):
        assert results[run_id]["reward"] == 1.0 and results[run_id]["strict_pass"], run_id


@pytest.mark.parametrize("run_id, reason", [
    ("links/absolute_to_truth", "output.csv is a link outside the run folder"),
    ("links/relative_outside", "output.csv is a link outside the run folder"),
    ("links/inside_folder", "output.csv is a link (links are not followed, even inside the run folder)"),
    ("links/to_dev_zero", "output.csv is a link outside the run folder"),
    ("links/to_etc_passwd", "output.csv is a link outside the run folder"),
    ("links/run_json_outside", "run.json is a link outside the run folder"),
    ("special/directory", "output.csv is a directory"),
    ("special/fifo", "output.csv is not a regular file (a named pipe)"),
    ("special/socket", "output.csv is not a regular file (a socket)"),
])
def test_links_and_special_files_score_zero_with_the_reason(campaign, run_id, reason):
    assert reason in _error(campaign[2], run_id)


def test_a_device_node_scores_zero(campaign):
    root, _, results = campaign
    if not (root / "special/device").exists():
        pytest.skip("no permission to create a device node")
    assert "is not a regular file (a character device)" in _error(results, "special/device")


def test_no_link_out_of_a_run_folder_is_followed(campaign):
    root, outside, results = campaign
    assert not any(run_id.startswith("links/linked_folder") for run_id in results)
    assert not (outside / "result.json").exists()  # the linked folder was not entered
    assert (outside / "precious.json").read_text() == '{"keep": true}'  # a result.json link is replaced
    assert not (root / "results/result_json_link/result.json").is_symlink()
    assert results["results/result_json_link"]["reward"] == 1.0
    passwd = json.dumps(results["links/to_etc_passwd"])
    assert "root:" not in passwd


def test_folder_names_are_never_patterns(campaign):
    results = campaign[2]
    plain = results["patterns/plain"]
    assert 0.0 < plain["reward"] < 1.0
    for name in PATTERN_FOLDERS:
        ours = results[f"patterns/{name}"]
        assert (ours["reward"], ours["agent_rows"], ours["strict_pass"]) == (
            plain["reward"], plain["agent_rows"], plain["strict_pass"]), name


@pytest.mark.parametrize("run_id, reason", [
    ("run_json/task_list", "run.json names no task"),
    ("run_json/task_object", "run.json names no task"),
    ("run_json/top_list", "run.json names no task"),
    ("run_json/top_string", "run.json names no task"),
    ("run_json/top_null", "run.json names no task"),
    ("run_json/task_number", "run.json names no task"),
    ("run_json/unknown_task", "run.json names unknown task 'no-such-task'"),
    ("run_json/not_json", "cannot read run.json: JSONDecodeError"),
    ("run_json/not_utf8", "cannot read run.json: UnicodeDecodeError"),
    ("run_json/deeply_nested", "cannot read run.json: RecursionError"),
    ("run_json/oversized", "run.json is larger than"),
    ("run_json/directory", "run.json is a directory"),
    ("run_json/fifo", "run.json is not a regular file (a named pipe)"),
    ("run_json/missing", "output.csv found but no run.json naming its task"),
])
def test_malformed_run_json_scores_zero_with_the_reason(campaign, run_id, reason):
    assert reason in _error(campaign[2], run_id)


def test_a_result_that_cannot_be_written_is_reported(campaign):
    result = campaign[2]["results/result_json_directory"]
    assert result["reward"] == 1.0 and "result.json could not be written" in result["errors"][-1]


def test_leftovers_of_an_interrupted_write_are_removed(campaign):
    root = campaign[0]
    assert not list(root.rglob(".result.json.*"))
    graded_before = root / "ordinary/perfect"
    (graded_before / ".result.json.zz9plural").write_text("{")  # as grading named them before run_folder
    (graded_before / ".result.json.zz9plural.tmp").write_text("{")
    assert sorted(remove_leftovers(graded_before, (RESULT_FILE,))) == [".result.json.zz9plural",
                                                                        ".result.json.zz9plural.tmp"]


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_malformed_csvs_get_m4bench_verdict(campaign, case):
    ours, theirs = campaign[2][f"malformed/{case}"], EXPECTED[case]
    assert abs(ours["reward"] - theirs.reward) <= TOLERANCE, (ours["reward"], theirs, ours["errors"])
    assert ours["strict_pass"] == theirs.strict_pass, (theirs, ours["checks"], ours["errors"])
    if theirs.reward == 0.0:
        assert ours["errors"] or any(not check["passed"] for check in ours["checks"])


def test_failures_are_summarised_by_kind(campaign):
    summary = dict(failure_summary(campaign[2]))
    assert summary["CSV read failed: output.csv is a link outside the run folder"] == 4
    assert summary["run.json names no task (a string under '...')"] == 6
    assert summary["run.json is a link outside the run folder"] == 1


def test_recorded_verdicts_are_m4bench_code_except_where_pandas_versions_differ():
    """EXPECTED (written under pandas 2.3.1) is what M4Bench's own code gives, recorded in
    tests/fixtures/golden/malformed_verdicts.json under the pandas of provenance.json: equal
    everywhere under 2.3.1, and elsewhere except the cases pandas 3 reads differently."""
    recorded = golden.malformed_verdicts()
    assert set(recorded) == set(EXPECTED)
    differing = {case for case, verdict in recorded.items()
                 if (verdict["reward"], verdict["strict_pass"]) != (round(EXPECTED[case].reward, 6),
                                                                    EXPECTED[case].strict_pass)}
    if golden.provenance()["pandas"] == "2.3.1":
        assert differing == set()
    else:
        assert differing <= PANDAS_3_DIFFERS


def test_open_in_folder_opens_a_regular_file_and_refuses_the_rest(tmp_path):
    (tmp_path / "ok.csv").write_text("a\n1\n")
    handle, size = run_files.open_in_folder(tmp_path, "ok.csv")
    with handle:
        assert (handle.read(), size) == (b"a\n1\n", 4)
    (tmp_path / "up").symlink_to("../elsewhere.csv")
    with pytest.raises(run_files.UnsafeFile, match="up is a link outside the run folder"):
        run_files.open_in_folder(tmp_path, "up")
    with pytest.raises(run_files.MissingFile):
        run_files.open_in_folder(tmp_path, "absent.csv")
    with pytest.raises(run_files.UnsafeFile, match="is larger than 2 bytes"):
        run_files.open_in_folder(tmp_path, "ok.csv", max_bytes=2)


@pytest.mark.parametrize("content, header, index_columns", [
    (b"\xef\xbb\xbf\n \t\r\na,b\n1,2\n", ["a", "b"], 0),
    (b'"a\n""x""",b\n1,2,\n', ['a\n"x"', "b"], 1),
    (b"a\x00z,b\n1,2\n", ["a", "b"], 0),
    (b'a"b,"c"d\n1,2\n', ['a"b', "cd"], 0),
])
def test_preamble_follows_pandas_tokenizer(content, header, index_columns):
    preamble = csv_syntax.read_preamble(content)
    assert (preamble.header, preamble.index_columns) == (header, index_columns)
    assert content[preamble.data_offset:].lstrip(b"\n").startswith(b"1,2")


@pytest.mark.parametrize("data, unclosed", [
    (b'1,"a\n2,3\n', True), (b'1,"a""\n', True), (b'1,"a"""\n', False), (b'1,a"b\n', False),
    (b'1,"x"y,"z\n', True), (b"1,2\n", False),
])
def test_unclosed_quotes_are_found(data, unclosed):
    assert (csv_syntax.unclosed_quote(data, 0) is not None) == unclosed


if sys.platform != "linux":  # FIFOs, sockets and device nodes as made here
    pytestmark = pytest.mark.skip(reason="Linux only")
