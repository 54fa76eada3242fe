"""What the metering proxy adds to a model request: latency per request, per streamed event, and CPU.

Three paths to the same scripted model server (``m4agent model-server``, over TLS), measured in
one run so the figures compare as ratios:

- ``direct``: the client speaks TLS to the server itself (no proxy at all);
- ``tunnel``: through the egress proxy's raw CONNECT tunnel (what the proxy did before metering);
- ``metered``: through the metering proxy: TLS ended with the campaign CA, each exchange framed,
  relayed, and read by the meter into ``wire.jsonl`` (the real ``MeterLog``).

Each path sends ``--requests`` streamed Anthropic Messages requests on one kept-alive connection
(the answer has ``--events`` text deltas, a long stream), then as many whole (not streamed)
requests. Timed: wall time per request to its last byte (median and p90); the latency the meter
adds per streamed event (the metered path's median stream time less the tunnel's, over the
events); and the CPU time of this process (client, proxy and meter; the server runs in its own
threads here too, so CPU figures are compared between paths, never read alone).

    python benchmarks/bench_metering.py [--requests 200] [--events 400]
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import ssl
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from m4agent.harness import ledger, metering
from m4agent.harness.egress import EgressProxy, Metering, policy_for
from m4agent.harness.wire.certs import MeteringCA, upstream_context
from m4agent.harness.wire.intercept import Meter
from m4agent.model_server import ScriptedModelServer, make_certificates, parse_script

HOST = "api.anthropic.com"
BODY = {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}


def _connect(path: str, folder: Path, server: ScriptedModelServer, server_ca: Path,
             proxy_ca: Path | None) -> http.client.HTTPSConnection:
    conn = http.client.HTTPSConnection(HOST, timeout=60)
    if path == "direct":
        raw = socket.create_connection(("127.0.0.1", server.port))
        trust = server_ca
    else:
        raw = socket.socket(socket.AF_UNIX)
        raw.connect(str(folder / "p.sock"))
        raw.sendall(f"CONNECT {HOST}:443 HTTP/1.1\r\n\r\n".encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += raw.recv(4096)
        assert answer.startswith(b"HTTP/1.1 200"), answer
        trust = proxy_ca if path == "metered" else server_ca
    assert trust is not None
    conn.sock = ssl.create_default_context(cafile=str(trust)).wrap_socket(raw, server_hostname=HOST)
    return conn


def _measure(conn: http.client.HTTPSConnection, requests: int, stream: bool) -> dict[str, Any]:
    walls = []
    for _ in range(requests):
        started = time.perf_counter()
        conn.request("POST", "/v1/messages", json.dumps({**BODY, "stream": stream}),
                     {"Content-Type": "application/json", "x-api-key": "sk-ant-bench"})
        response = conn.getresponse()
        while response.read1(65536) if stream else response.read():  # as a CLI reads: piece by piece
            if not stream:
                break
        walls.append(time.perf_counter() - started)
    walls.sort()
    return {"median_ms": statistics.median(walls) * 1000, "p90_ms": walls[int(len(walls) * 0.9)] * 1000}


def run(path: str, requests: int, events: int) -> dict[str, Any]:
    text = " ".join(["token"] * events)
    script = {"model": "claude-sonnet-4-5", "turns": [{"text": text, "usage": {"input": 10, "output": events}}]}
    with tempfile.TemporaryDirectory(prefix="m4b", dir="/tmp") as name:
        folder = Path(name)
        certs = make_certificates(folder / "certs", [HOST])
        with ScriptedModelServer(parse_script(script), certificates=certs) as server:
            policy = policy_for([], routes=[(HOST, "127.0.0.1", server.port)])
            ca = MeteringCA(folder / "ca") if path == "metered" else None
            log = metering.MeterLog(folder / "wire.jsonl", ["sk-ant-bench"],
                                    lambda usage, model: ledger.estimate(usage, "anthropic", model).usd)
            reading = Metering(ca, upstream_context(certs.ca), Meter(log.record, log.refusal)) if ca else None
            proxy = EgressProxy(folder / "p.sock", policy, folder / "egress.jsonl", metering=reading)
            if path != "direct":
                proxy.start()
            try:
                cpu = time.process_time()
                conn = _connect(path, folder, server, certs.ca, ca.ca_file if ca else None)
                streamed = _measure(conn, requests, stream=True)
                whole = _measure(conn, requests, stream=False)
                conn.close()
                cpu = time.process_time() - cpu
            finally:
                proxy.close()
            exchanges = log.close()["exchanges"] if ca else 0
    return {"path": path, "streamed": streamed, "whole": whole, "cpu_s": cpu, "exchanges_metered": exchanges}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per kind (streamed, whole) and path")
    parser.add_argument("--events", type=int, default=400, help="text deltas in each streamed answer")
    args = parser.parse_args()
    results = [run(path, args.requests, args.events) for path in ("direct", "tunnel", "metered")]
    base = {r["path"]: r for r in results}
    print(f"{args.requests} streamed ({args.events} events each) + {args.requests} whole requests per path")
    print(f"{'path':8} {'stream med ms':>14} {'p90':>8} {'whole med ms':>13} {'p90':>8} {'CPU s':>7}")
    for r in results:
        s, w = r["streamed"], r["whole"]
        print(f"{r['path']:8} {s['median_ms']:14.2f} {s['p90_ms']:8.2f} "
              f"{w['median_ms']:13.2f} {w['p90_ms']:8.2f} {r['cpu_s']:7.2f}")
    m, t, d = base["metered"], base["tunnel"], base["direct"]
    print(f"metered/tunnel: streamed request {m['streamed']['median_ms'] / t['streamed']['median_ms']:.2f}x, "
          f"whole request {m['whole']['median_ms'] / t['whole']['median_ms']:.2f}x, "
          f"CPU {m['cpu_s'] / t['cpu_s']:.2f}x; added per request "
          f"{m['whole']['median_ms'] - t['whole']['median_ms']:.2f} ms (whole), "
          f"{m['streamed']['median_ms'] - t['streamed']['median_ms']:.2f} ms (streamed), "
          f"{(m['streamed']['median_ms'] - t['streamed']['median_ms']) * 1000 / args.events:.2f} us per streamed "
          f"event; CPU added per request {(m['cpu_s'] - t['cpu_s']) * 1000 / (2 * args.requests):.2f} ms; "
          f"metered exchanges recorded: {m['exchanges_metered']}")
    print(f"tunnel/direct: whole request {t['whole']['median_ms'] / d['whole']['median_ms']:.2f}x")


if __name__ == "__main__":
    main()
