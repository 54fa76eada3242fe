"""The egress door under a hostile agent's floods: threads, records and the verdict stay bounded.

The proxy is a real ``EgressProxy`` on a real Unix socket in this process, so the
harness's thread count is this process's (``/proc/self/status``). The floods are what
an agent can do through the one door out: 1,500 connections that send nothing, and
thousands of denied requests from another process (``tests/support/egress_flood.py``,
the same script the container test runs inside an agent's container). Upstreams are
loopback servers in child processes, so their threads are not counted here.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import m4agent.harness.forwarder as forwarder_module
from m4agent.campaign_folder import RunSpec
from m4agent.harness import integrity, records
from m4agent.harness.egress import MAX_REFUSAL_LINES, RESOLVER_THREADS, EgressPolicy, EgressProxy, policy_for
from m4agent.harness.records import AttemptRecord, Outcome
from m4agent.reports.view import write_view

FLOOD_SCRIPT = Path(__file__).parent / "support" / "egress_flood.py"
FORWARDER = Path(forwarder_module.__file__)
IDLE_CONNECTIONS = 1500
DENIED_REQUESTS = 5000
HEAD_TIMEOUT_S = 2.0  # the fixture's, to keep the idle flood short
PROXY_THREADS = 1 + RESOLVER_THREADS  # the proxy's own bound: its event loop and its resolver pool
WAIT_S = 60.0  # a guard against hanging, never a measured bound
ECHO_SERVER = """
import asyncio

async def echo(reader, writer):
    while True:
        data = await reader.read(65536)
        if not data:
            break
        writer.write(data)
        await writer.drain()
    writer.close()

async def main():
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()

asyncio.run(main())
"""


def threads_of(pid: int | str = "self") -> int:
    """The kernel's count of a process's threads (every thread, not only Python's)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError(f"no Threads line in /proc/{pid}/status")


def threads_settled(at_most: int) -> int:
    """This process's thread count once it has come down to ``at_most`` (a joined thread leaves the
    kernel's count a moment after ``join`` returns), or the count when WAIT_S has passed."""
    deadline = time.monotonic() + WAIT_S
    while threads_of() > at_most and time.monotonic() < deadline:
        time.sleep(0.01)
    return threads_of()


def lines_of(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def summary_of(log: Path) -> dict[str, Any]:
    (summary,) = [event for event in lines_of(log) if event["event"] == "summary"]
    return summary


def answer_to(path: Path, request: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(WAIT_S)
        client.connect(str(path))
        client.sendall(request)
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
        return answer


@pytest.fixture(scope="module")
def short_dir() -> Iterator[Path]:
    """A folder for Unix sockets (a socket path must fit in 107 bytes; pytest's tmp_path may not)."""
    folder = Path(tempfile.mkdtemp(prefix="m4f-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def echo_port() -> Iterator[int]:
    """A loopback echo server in a child process (one thread there, none here)."""
    process = subprocess.Popen([sys.executable, "-c", ECHO_SERVER], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield int(process.stdout.readline())
    finally:
        process.terminate()
        process.wait(WAIT_S)


# --------------------------------------------------------------------------- idle connections


@dataclass
class IdleFlood:
    threads_before: int
    threads_during: int
    threads_after: int
    tunnel_echo: bytes  # what a tunnel opened after the head deadline carried back
    log: Path


@pytest.fixture(scope="module")
def idle_flood(short_dir: Path, echo_port: int, tmp_path_factory: pytest.TempPathFactory) -> IdleFlood:
    """1,500 connections that send nothing, held past the head deadline; then one honest tunnel."""
    log = tmp_path_factory.mktemp("idle") / "egress.jsonl"
    before = threads_of()
    proxy = EgressProxy(short_dir / "idle.sock", EgressPolicy(extra=(("127.0.0.1", echo_port),)), log,
                        head_timeout=HEAD_TIMEOUT_S).start()
    held: list[socket.socket] = []
    try:
        for _ in range(IDLE_CONNECTIONS):
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            client.connect(str(proxy.socket_path))  # blocking: a full accept queue waits, it does not fail
            held.append(client)
        during = threads_of()
        time.sleep(HEAD_TIMEOUT_S + 1.0)  # every slot the flood held is cut at its head deadline
        during = max(during, threads_of())
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as honest:
            honest.settimeout(WAIT_S)
            honest.connect(str(proxy.socket_path))
            honest.sendall(f"CONNECT 127.0.0.1:{echo_port} HTTP/1.1\r\n\r\nstill served".encode())
            echoed = b""
            while not echoed.endswith(b"still served"):
                chunk = honest.recv(4096)
                if not chunk:
                    break
                echoed += chunk
    finally:
        for client in held:
            client.close()
        proxy.close()
    return IdleFlood(before, during, threads_settled(before), echoed, log)


def test_an_idle_connection_flood_does_not_grow_the_harness_threads(idle_flood: IdleFlood) -> None:
    assert idle_flood.threads_during - idle_flood.threads_before <= PROXY_THREADS
    assert idle_flood.threads_after <= idle_flood.threads_before


def test_an_idle_connection_flood_is_refused_counted_and_a_violation(idle_flood: IdleFlood) -> None:
    summary = summary_of(idle_flood.log)
    # each connection either waited in one of the 64 slots until its head deadline or was refused at once
    assert summary["refused"]["head_timeout"] >= 64 and summary["refused"]["capacity"] > 0
    assert summary["refused"]["head_timeout"] + summary["refused"]["capacity"] == IDLE_CONNECTIONS
    clean, violations = integrity.egress_verdict(idle_flood.log, EgressPolicy())
    assert not clean and violations[0]["event"] == "summary"


def test_the_proxy_serves_a_tunnel_again_once_the_head_deadline_has_cut_the_idle_flood(
        idle_flood: IdleFlood) -> None:
    assert idle_flood.tunnel_echo.startswith(b"HTTP/1.1 200 ")
    assert idle_flood.tunnel_echo.endswith(b"still served")


# --------------------------------------------------------------------------- denied requests


@dataclass
class DeniedFlood:
    threads_before: int
    threads_peak: int
    client: dict[str, Any]  # what the flooding process saw
    log: Path
    policy: EgressPolicy


@pytest.fixture(scope="module")
def denied_flood(short_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> DeniedFlood:
    """5,000 CONNECTs to a host no policy allows, eight at a time, from another process."""
    log = tmp_path_factory.mktemp("denied") / "egress.jsonl"
    policy = policy_for(["openai"])
    before = peak = threads_of()
    with EgressProxy(short_dir / "denied.sock", policy, log) as proxy:
        flood = subprocess.Popen([sys.executable, str(FLOOD_SCRIPT), "--unix", str(proxy.socket_path), "denied",
                                  "--requests", str(DENIED_REQUESTS), "--threads", "8"],
                                 stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + WAIT_S * 3
        while flood.poll() is None and time.monotonic() < deadline:
            peak = max(peak, threads_of())
            time.sleep(0.01)
        out, _ = flood.communicate(timeout=WAIT_S)
    return DeniedFlood(before, peak, json.loads(out), log, policy)


def test_a_denied_request_flood_does_not_grow_the_harness_threads(denied_flood: DeniedFlood) -> None:
    assert denied_flood.threads_peak - denied_flood.threads_before <= PROXY_THREADS


def test_a_denied_request_flood_keeps_the_egress_log_within_its_line_budget(denied_flood: DeniedFlood) -> None:
    events = lines_of(denied_flood.log)
    assert len([e for e in events if e["event"] == "decision"]) == MAX_REFUSAL_LINES
    assert denied_flood.log.stat().st_size < (MAX_REFUSAL_LINES + 1) * 400  # a decision line is ~200 bytes


def test_a_denied_request_flood_is_answered_counted_in_full_and_a_violation(denied_flood: DeniedFlood) -> None:
    assert denied_flood.client["statuses"] == {"403": DENIED_REQUESTS}
    summary = summary_of(denied_flood.log)
    assert summary["refused"] == {"policy": DENIED_REQUESTS}
    assert summary["not_logged"]["refusals"] == DENIED_REQUESTS - MAX_REFUSAL_LINES
    clean, violations = integrity.egress_verdict(denied_flood.log, denied_flood.policy)
    assert not clean and violations[0]["event"] == "summary"


def _flooded_run(folder: Path, flood: DeniedFlood) -> tuple[Path, AttemptRecord]:
    """A run folder (outside any campaign) whose one attempt holds the flood's log and the record run.py makes."""
    spec = RunSpec(task="mimic-sofa-24h", task_digest="d", condition="no-skill", schema="native", agent="null",
                   agent_version="1", model="default", trial=1)
    run = folder / "run"
    records.write_run(run, spec)
    attempt = records.new_attempt(run)
    shutil.copyfile(flood.log, attempt / "egress.jsonl")
    _, denied = integrity.egress_verdict(attempt / "egress.jsonl", flood.policy)
    record = AttemptRecord(number=1, outcome=Outcome.POLICY_VIOLATION, reason="egress")
    record.add_violations({"rule": "egress", **event} for event in denied)
    records.finish_attempt(attempt, record)
    return run, record


def test_a_denied_request_flood_leaves_a_bounded_attempt_record(denied_flood: DeniedFlood, tmp_path: Path) -> None:
    run, record = _flooded_run(tmp_path, denied_flood)
    attempt_json = run / "attempts" / "0001" / records.ATTEMPT_FILE
    assert attempt_json.stat().st_size < 16 * 1024
    [kept] = records.attempts(run)
    assert len(kept.violations) == records.MAX_VIOLATIONS_PER_RULE
    assert kept.violation_counts == {"egress": MAX_REFUSAL_LINES + 1}  # the lines written, and the summary
    assert kept.violations[0]["refused"] == {"policy": DENIED_REQUESTS}


def test_the_view_page_of_a_flooded_attempt_is_bounded(denied_flood: DeniedFlood, tmp_path: Path) -> None:
    run, _ = _flooded_run(tmp_path, denied_flood)
    page = write_view(run)
    assert page.stat().st_size < 100 * 1024
    text = page.read_text()
    assert f"policy {DENIED_REQUESTS}" in text and "counted, not logged" in text
    assert (run / "attempts" / "0001" / "trajectory.json").stat().st_size < 100 * 1024


# --------------------------------------------------------------------------- every spelling, budget spent

SPELLINGS = [
    (b"GET http://example.invalid/ HTTP/1.1\r\nHost: example.invalid\r\n\r\n", 403),
    (b"POST /v1/responses HTTP/1.1\r\nHost: api.openai.com\r\n\r\n", 403),  # plain HTTP to an allowed host
    (b"CONNECT example.invalid:443 HTTP/1.1\r\n\r\n", 403),
    (b"CONNECT api.openai.com:80 HTTP/1.1\r\n\r\n", 403),  # an allowed host on another port
    (b"CONNECT api.openai.com.example.invalid:443 HTTP/1.1\r\n\r\n", 403),
    (b"CONNECT 127.0.0.1:443 HTTP/1.1\r\n\r\n", 403),
    (b"CONNECT [::1]:443 HTTP/1.1\r\n\r\n", 403),
    (b"CONNECT 2130706433:443 HTTP/1.1\r\n\r\n", 403),  # 127.0.0.1 as one decimal number
    (b"CONNECT api.openai.com:443@example.invalid:443 HTTP/1.1\r\n\r\n", 400),
    (b"connect api.openai.com:443 HTTP/1.1\r\n\r\n", 400),
]


def test_every_spelling_is_still_refused_and_counted_once_the_refusal_lines_are_spent(
        short_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "egress.jsonl"
    with EgressProxy(short_dir / "spent.sock", policy_for(["openai"]), log, max_refusal_lines=5) as proxy:
        for _ in range(10):
            answer_to(proxy.socket_path, b"CONNECT example.invalid:443 HTTP/1.1\r\n\r\n")
        answers = [answer_to(proxy.socket_path, request)[:12] for request, _ in SPELLINGS]
    assert answers == [f"HTTP/1.1 {status}".encode() for _, status in SPELLINGS]
    assert len([e for e in lines_of(log) if e["event"] == "decision"]) == 5
    summary = summary_of(log)
    assert sum(summary["refused"].values()) == 10 + len(SPELLINGS)
    assert summary["refused"]["malformed"] == 2 and summary["refused"]["plain_http"] == 2
    assert integrity.egress_verdict(log, policy_for(["openai"]))[0] is False


# --------------------------------------------------------------------------- the forwarder


def test_the_forwarder_takes_a_connection_flood_on_one_thread_and_keeps_relaying(
        short_dir: Path, tmp_path: Path) -> None:
    ready = tmp_path / "forwarder.ready"
    log = tmp_path / "egress.jsonl"
    with EgressProxy(short_dir / "fwd.sock", EgressPolicy(), log, head_timeout=HEAD_TIMEOUT_S) as proxy:
        forwarder = subprocess.Popen([sys.executable, str(FORWARDER), "--listen", "127.0.0.1:0", "--socket",
                                      str(proxy.socket_path), "--ready", str(ready)], stdout=subprocess.PIPE, text=True)
        held: list[socket.socket] = []
        try:
            assert forwarder.stdout is not None and forwarder.stdout.readline().strip() == "ready"
            port = int(ready.read_text().strip().rpartition(":")[2])
            for _ in range(IDLE_CONNECTIONS):
                held.append(socket.create_connection(("127.0.0.1", port), timeout=WAIT_S))
            time.sleep(0.5)
            threads = threads_of(forwarder.pid)
            for client in held:
                client.close()
            time.sleep(HEAD_TIMEOUT_S + 1.0)
            with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as client:
                client.sendall(b"CONNECT example.invalid:443 HTTP/1.1\r\n\r\n")
                answer = client.recv(12)
            alive = forwarder.poll() is None
        finally:
            for client in held:
                client.close()
            forwarder.terminate()
            forwarder.wait(WAIT_S)
    assert threads == 1
    assert alive and answer == b"HTTP/1.1 403"


def test_open_tunnels_cost_the_harness_no_threads(short_dir: Path, echo_port: int, tmp_path: Path) -> None:
    before = threads_of()
    policy = EgressPolicy(extra=(("127.0.0.1", echo_port),))
    with EgressProxy(short_dir / "tunnels.sock", policy, tmp_path / "egress.jsonl") as proxy:
        tunnels = []
        try:
            for _ in range(60):
                client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                client.settimeout(WAIT_S)
                client.connect(str(proxy.socket_path))
                client.sendall(f"CONNECT 127.0.0.1:{echo_port} HTTP/1.1\r\n\r\n".encode())
                assert client.recv(39).startswith(b"HTTP/1.1 200 ")
                tunnels.append(client)
            during = threads_of()
        finally:
            for client in tunnels:
                client.close()
    assert during - before <= PROXY_THREADS
