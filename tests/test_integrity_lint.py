"""The contamination lint and the egress verdict on real files: planted cases fire, clean ones do not.

Secret-shaped strings are assembled at run time from pieces, so this file holds
none verbatim (scanners of the repository need not learn about fake keys).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import duckdb
import pytest

from m4agent.errors import M4AgentError
from m4agent.harness.egress import EgressPolicy
from m4agent.harness.integrity import Violation, egress_verdict, lint_workspace

TRUTH = "stay_id,sofa\n1,3\n2,7\n"
BODY = "Abcdefghijklmnopqrstuvwxyz0123456789"  # the part of every fake secret after its prefix

FAKE_SECRETS = {
    "anthropic_key": "sk-" + "ant-" + BODY,
    "openai_key": "sk-" + "proj" + BODY,
    "google_key": "AI" + "za" + BODY,
    "github_token": "gh" + "p_" + BODY,
    "slack_token": "xo" + "xb-" + BODY,
    "private_key": "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    "token_field": '{"access' + '_token": "' + BODY + '"}',
}


def make_workspace(root: Path) -> Path:
    """A clean workspace as an agent leaves it: its database (real DuckDB, with a WAL name), notes, output."""
    workspace = root / "workspace"
    workspace.mkdir()
    with duckdb.connect(str(workspace / "database.duckdb")) as con:
        con.execute("CREATE TABLE t AS SELECT 1 AS a")
    (workspace / "database.duckdb.wal").write_bytes(b"")
    (workspace / "instruction.md").write_text("Write output.csv with one row per stay.\n")
    (workspace / "query.sql").write_text("SELECT stay_id, sofa FROM mimiciv_derived.sofa;\n")
    (workspace / "notes").mkdir()
    (workspace / "notes" / "plan.txt").write_text("skip stays without labs; sk-short is not a key\n")
    (workspace / "output.csv").write_text("stay_id,sofa\n1,3\n2,8\n")
    return workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path)


@pytest.fixture
def truth(tmp_path: Path) -> Path:
    path = tmp_path / "truth.csv"
    path.write_text(TRUTH)
    return path


def lint(workspace: Path, truth: Path | None = None, host_paths: tuple[str, ...] = ("/srv/m4data",),
         secrets: tuple[str, ...] = ("run-secret-value-42",)) -> list[Violation]:
    return lint_workspace(workspace, truth, host_paths, secrets)


def rules(violations: list[Violation]) -> set[tuple[str, str]]:
    return {(violation.path, violation.rule) for violation in violations}


# --------------------------------------------------------------------------- clean


def test_clean_workspace_has_no_violations(workspace: Path, truth: Path) -> None:
    assert lint(workspace, truth) == []


# --------------------------------------------------------------------------- secrets


@pytest.mark.parametrize("family", sorted(FAKE_SECRETS))
def test_secret_shaped_string_is_reported_by_family(workspace: Path, family: str) -> None:
    (workspace / "notes" / "scratch.md").write_text(f"found this: {FAKE_SECRETS[family]}\n")
    assert rules(lint(workspace)) == {("notes/scratch.md", f"secret:{family}")}


@pytest.mark.parametrize("family", sorted(set(FAKE_SECRETS) - {"private_key"}))
def test_secret_excerpt_does_not_repeat_the_secret(workspace: Path, family: str) -> None:
    (workspace / "leak.json").write_text(FAKE_SECRETS[family])
    (violation,) = lint(workspace)
    assert BODY[:8] not in violation.excerpt


def test_given_secret_value_is_reported_and_redacted(workspace: Path) -> None:
    (workspace / "env.txt").write_text("KEY=run-secret-value-42\n")
    (violation,) = lint(workspace)
    assert (violation.path, violation.rule) == ("env.txt", "secret_value")
    assert "run-secret-value-42" not in violation.excerpt


def test_file_without_a_text_extension_is_scanned_when_it_is_text(workspace: Path) -> None:
    (workspace / "creds").write_text(FAKE_SECRETS["github_token"])
    assert rules(lint(workspace)) == {("creds", "secret:github_token")}


# --------------------------------------------------------------------------- host paths


def test_host_path_is_reported(workspace: Path) -> None:
    (workspace / "explore.py").write_text("import duckdb\nduckdb.connect('/srv/m4data/mimic_iv.duckdb')\n")
    assert rules(lint(workspace)) == {("explore.py", "host_path")}


def test_host_path_is_matched_literally_not_as_a_pattern(workspace: Path) -> None:
    (workspace / "explore.py").write_text("open('/srvXm4data/a'); open('/srv/m4dataaa')\n")
    assert lint(workspace, host_paths=("/srv.m4data", "/srv/m4data*", "[/]srv")) == []


# --------------------------------------------------------------------------- databases


def test_extra_duckdb_file_is_reported(workspace: Path) -> None:
    with duckdb.connect(str(workspace / "copy.duckdb")) as con:
        con.execute("CREATE TABLE t AS SELECT 1 AS a")
    assert rules(lint(workspace)) == {("copy.duckdb", "database")}


def test_database_under_a_neutral_name_is_recognised_by_its_header(workspace: Path) -> None:
    with duckdb.connect(str(workspace / "blob.bin")) as con:
        con.execute("CREATE TABLE t AS SELECT 1 AS a")
    assert rules(lint(workspace)) == {("blob.bin", "database")}


def test_database_file_named_like_the_workspace_one_but_elsewhere_is_reported(workspace: Path) -> None:
    (workspace / "notes" / "database.duckdb").write_bytes(b"")
    assert rules(lint(workspace)) == {("notes/database.duckdb", "database")}


# --------------------------------------------------------------------------- truth copies


def test_output_identical_to_the_truth_is_reported(workspace: Path, truth: Path) -> None:
    (workspace / "output.csv").write_text(TRUTH)
    assert rules(lint(workspace, truth)) == {("output.csv", "truth_copy")}


def test_output_one_byte_different_from_the_truth_is_not_reported(workspace: Path, truth: Path) -> None:
    (workspace / "output.csv").write_text(TRUTH.replace("7", "8"))
    assert lint(workspace, truth) == []


# --------------------------------------------------------------------------- links and special files


def test_link_to_a_secret_file_is_reported_and_its_target_is_not_read(workspace: Path, tmp_path: Path) -> None:
    target = tmp_path / "auth.json"
    target.write_text(FAKE_SECRETS["token_field"] + " run-secret-value-42")
    (workspace / "auth.json").symlink_to(target)
    assert rules(lint(workspace)) == {("auth.json", "link")}


def test_link_to_a_folder_is_reported_and_not_walked(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.txt").write_text(FAKE_SECRETS["openai_key"])
    (workspace / "notes" / "elsewhere").symlink_to(outside)
    assert rules(lint(workspace)) == {("notes/elsewhere", "link")}


def test_link_excerpt_redacts_a_secret_in_its_target(workspace: Path) -> None:
    (workspace / "odd").symlink_to("/tmp/run-secret-value-42")
    (violation,) = lint(workspace)
    assert violation.rule == "link" and "run-secret-value-42" not in violation.excerpt


def test_fifo_in_the_workspace_does_not_block_the_lint(workspace: Path) -> None:
    os.mkfifo(workspace / "pipe.txt")
    result: list[list[Violation]] = []
    worker = threading.Thread(target=lambda: result.append(lint(workspace)), daemon=True)
    worker.start()
    worker.join(60)  # a guard: a lint that opened the FIFO would wait here for a writer forever
    assert result == [[]]


def test_too_many_files_is_reported_as_unscanned(workspace: Path) -> None:
    violations = lint_workspace(workspace, None, (), (), max_files=3)
    assert (".", "unscanned") in rules(violations)


def test_missing_workspace_says_so(tmp_path: Path) -> None:
    with pytest.raises(M4AgentError, match="does not exist"):
        lint(tmp_path / "nowhere")


# --------------------------------------------------------------------------- egress verdict


def write_log(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def event(allowed: bool, host: str = "api.openai.com", kind: str = "decision") -> str:
    return json.dumps({"event": kind, "conn": 1, "ts": "2026-12-01T10:00:00.000+00:00", "method": "CONNECT",
                       "host": host, "port": 443, "allowed": allowed, "reason": "test"})


def test_egress_verdict_allowed_only_is_clean(tmp_path: Path) -> None:
    log = write_log(tmp_path / "egress.jsonl", [event(True), event(True, kind="close")])
    assert egress_verdict(log) == (True, [])


def test_empty_egress_log_is_clean(tmp_path: Path) -> None:
    assert egress_verdict(write_log(tmp_path / "egress.jsonl", [])) == (True, [])


def test_egress_verdict_reports_a_denied_event_with_its_line(tmp_path: Path) -> None:
    log = write_log(tmp_path / "egress.jsonl", [event(True), event(False, host="example.org")])
    clean, violations = egress_verdict(log)
    assert not clean
    assert [(v["host"], v["line"]) for v in violations] == [("example.org", 2)]


@pytest.mark.parametrize("line", ['{"event": "decision", "allowed": tru', '["allowed", true]', '{"allowed": "yes"}'])
def test_egress_verdict_treats_a_malformed_line_as_a_violation(tmp_path: Path, line: str) -> None:
    clean, violations = egress_verdict(write_log(tmp_path / "egress.jsonl", [event(True), line]))
    assert not clean and violations[0]["malformed"] is True and violations[0]["line"] == 2


def test_egress_verdict_with_a_policy_reports_events_it_would_not_allow(tmp_path: Path) -> None:
    log = write_log(tmp_path / "egress.jsonl", [event(True, host="example.org")])
    clean, violations = egress_verdict(log, EgressPolicy(frozenset({"api.openai.com"})))
    assert not clean and violations[0]["host"] == "example.org"


def summary(refused: dict[str, int]) -> str:
    return json.dumps({"event": "summary", "ts": "2026-12-01T10:00:01.000+00:00", "allowed": not refused,
                       "connections": 3, "tunnels": 1, "refused": refused,
                       "not_logged": {"refusals": 1, "tunnel_lines": 0}})


def test_egress_verdict_puts_a_summary_that_counts_refusals_first(tmp_path: Path) -> None:
    lines = [event(True), event(False, host="example.org"), summary({"policy": 2})]
    clean, violations = egress_verdict(write_log(tmp_path / "egress.jsonl", lines))
    assert not clean
    assert [(v["event"], v["line"]) for v in violations] == [("summary", 3), ("decision", 2)]


def test_egress_verdict_holds_an_allowed_summary_clean_under_a_policy(tmp_path: Path) -> None:
    log = write_log(tmp_path / "egress.jsonl", [event(True), event(True, kind="close"), summary({})])
    assert egress_verdict(log, EgressPolicy(frozenset({"api.openai.com"}))) == (True, [])


def test_missing_egress_log_is_an_infrastructure_error(tmp_path: Path) -> None:
    with pytest.raises(M4AgentError, match="infrastructure"):
        egress_verdict(tmp_path / "egress.jsonl")
