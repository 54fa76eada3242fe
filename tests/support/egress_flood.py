"""A hostile agent's flood of the egress door, as a script: idle connections, or denied requests.

Standard library only and Python 3.8+, so the same file runs from a test on the host
(against the proxy's Unix socket) and inside an agent container (against the
forwarder's loopback port, embedded in a ``shell`` agent's script)::

    python3 egress_flood.py --unix PATH idle --connections 1500 --hold 2
    python3 egress_flood.py --tcp 127.0.0.1:18080 denied --requests 5000 --threads 8

``idle`` opens that many connections, sends nothing, holds them ``--hold`` seconds
and closes them; ``denied`` sends requests no policy allows (``--requests`` of them,
or as many as fit in ``--seconds``), each on its own connection, and reads every
answer to its end. Each prints one JSON line: what it did and the answers' statuses.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import time

DENIED_REQUEST = b"CONNECT flood.example.invalid:443 HTTP/1.1\r\nHost: flood.example.invalid:443\r\n\r\n"


def _connect(args: argparse.Namespace) -> socket.socket:
    """A blocking connection (a full accept queue waits rather than failing)."""
    if args.unix:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(args.unix)
    else:
        host, _, port = args.tcp.rpartition(":")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.connect((host, int(port)))
    return sock


def idle(args: argparse.Namespace) -> dict:
    held, failed = [], 0
    for _ in range(args.connections):
        try:
            held.append(_connect(args))
        except OSError:
            failed += 1
    time.sleep(args.hold)
    for sock in held:
        sock.close()
    return {"connected": len(held), "failed": failed}


def denied(args: argparse.Namespace) -> dict:
    lock = threading.Lock()
    tally = {"sent": 0, "statuses": {}}
    deadline = time.monotonic() + args.seconds if args.seconds else None

    def take() -> bool:
        with lock:
            if (args.requests and tally["sent"] >= args.requests) or \
                    (deadline is not None and time.monotonic() >= deadline):
                return False
            tally["sent"] += 1
            return True

    def worker() -> None:
        while take():
            try:
                sock = _connect(args)
                sock.settimeout(30)
                with sock:
                    sock.sendall(DENIED_REQUEST)
                    answer = b""
                    while True:
                        chunk = sock.recv(4096)
                        if not chunk:
                            break
                        answer += chunk
                status = answer[9:12].decode("ascii", "replace") or "none"
            except OSError:
                status = "error"
            with lock:
                tally["statuses"][status] = tally["statuses"].get(status, 0) + 1

    workers = [threading.Thread(target=worker) for _ in range(args.threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    return tally


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--unix", help="the proxy's Unix socket")
    target.add_argument("--tcp", help="HOST:PORT of the forwarder")
    modes = parser.add_subparsers(dest="mode", required=True)
    idle_mode = modes.add_parser("idle")
    idle_mode.add_argument("--connections", type=int, default=1500)
    idle_mode.add_argument("--hold", type=float, default=2.0)
    denied_mode = modes.add_parser("denied")
    denied_mode.add_argument("--requests", type=int, default=0, help="how many (0: as many as --seconds allow)")
    denied_mode.add_argument("--seconds", type=float, default=0.0)
    denied_mode.add_argument("--threads", type=int, default=8)
    args = parser.parse_args(argv)
    if args.mode == "denied" and not (args.requests or args.seconds):
        parser.error("denied needs --requests or --seconds")
    result = idle(args) if args.mode == "idle" else denied(args)
    print(json.dumps({"mode": args.mode, **result}, sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
