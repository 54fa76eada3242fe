#!/usr/bin/env python3
"""The in-container half of the egress door: relay 127.0.0.1:PORT to the proxy's Unix socket.

The agent's container has Docker network ``none``: no interface but loopback, no DNS.
The only way out is the host-side egress proxy (``m4agent.harness.egress``), whose
Unix socket is bind-mounted into the container. Agent CLIs speak HTTP proxies over
TCP, not Unix sockets, so this script listens on a loopback TCP port (the one
``HTTPS_PROXY`` names) and relays every accepted connection, byte for byte, to a new
connection on that socket. It makes no decision and reads nothing: the proxy decides
and logs.

It runs inside the container with the image's ``python3`` (mounted read-only from the
harness), so it uses the standard library only and must stay importable on older
Pythons (3.8+). The host-side proxy imports ``relay`` from here, so both halves copy
bytes with the same code::

    python3 forwarder.py --listen 127.0.0.1:18080 --socket /run/m4agent-egress/proxy.sock \
        [--ready /tmp/forwarder.ready]

When listening, it prints one line ``ready`` to stdout and, with ``--ready FILE``,
writes the address it listens on (``127.0.0.1:18080``) to FILE (atomically), so a
caller can wait for either. A connection whose socket cannot be reached is closed
without an answer; the forwarder itself keeps running.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import threading
import time

DEFAULT_IDLE_TIMEOUT_S = 330.0  # longer than the proxy's, so the proxy decides when a tunnel idles out
SEND_TIMEOUT_S = 60.0
_CHUNK = 65536


def relay(
    left: socket.socket,
    right: socket.socket,
    *,
    idle_timeout: float,
    stop: threading.Event | None = None,
    tick: float = 0.25,
) -> tuple:
    """Copy bytes both ways between two connected sockets until both directions have ended.

    Each direction has a thread of its own, so a peer that sends while it is being sent to
    (a full-duplex stream) never blocks the other direction. A side that reaches end of
    stream has its direction closed (the other side gets a write shutdown, so half-closed
    protocols keep working); the relay ends when both directions are done, on an error
    (reset, broken pipe), after ``idle_timeout`` seconds without a byte either way, or when
    ``stop`` is set (checked every ``tick``). Returns ``(bytes left->right, bytes
    right->left, why)`` with why one of ``closed``, ``reset``, ``idle timeout``,
    ``stopped``. Closing the sockets is the caller's job.
    """
    sent = {"up": 0, "down": 0}
    state = {"last": time.monotonic(), "why": ""}
    lock = threading.Lock()
    finished = threading.Event()  # a direction failed, or the relay must stop: end both

    def send_all(target: socket.socket, data: bytes) -> None:
        # the sockets time out every tick (a timeout is per socket, shared by both directions), so a
        # send is retried until it completes, the relay ends, or SEND_TIMEOUT_S passes without progress
        view, since = memoryview(data), time.monotonic()
        while view:
            try:
                count = target.send(view)
            except socket.timeout:  # noqa: UP041  (an OSError, not TimeoutError, before 3.10)
                if finished.is_set() or time.monotonic() - since > SEND_TIMEOUT_S:
                    raise OSError("send timed out") from None
                continue
            view, since = view[count:], time.monotonic()

    def pump(source: socket.socket, target: socket.socket, key: str) -> None:
        try:
            while not finished.is_set():
                try:
                    data = source.recv(_CHUNK)
                except socket.timeout:  # noqa: UP041  (an OSError, not TimeoutError, before 3.10)
                    continue
                if not data:
                    try:
                        target.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    return
                send_all(target, data)
                with lock:
                    sent[key] += len(data)
                    state["last"] = time.monotonic()
        except OSError:
            with lock:
                state["why"] = state["why"] or "reset"
            finished.set()

    for sock in (left, right):
        sock.settimeout(tick)
    threads = [threading.Thread(target=pump, args=(left, right, "up"), daemon=True),
               threading.Thread(target=pump, args=(right, left, "down"), daemon=True)]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        threads[0].join(tick)
        threads[1].join(0)
        if finished.is_set():
            break
        if stop is not None and stop.is_set():
            with lock:
                state["why"] = "stopped"
            finished.set()
        with lock:
            idle = time.monotonic() - state["last"]
        if idle >= idle_timeout:
            with lock:
                state["why"] = state["why"] or "idle timeout"
            finished.set()
    for thread in threads:
        thread.join(SEND_TIMEOUT_S)
    return sent["up"], sent["down"], state["why"] or "closed"


def _close_quietly(sock: socket.socket) -> None:
    try:
        sock.close()
    except OSError:
        pass


def _serve(client: socket.socket, socket_path: str, idle_timeout: float) -> None:
    """Relay one accepted TCP connection to a fresh Unix-socket connection."""
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.settimeout(10.0)
        upstream.connect(socket_path)
    except OSError:
        _close_quietly(upstream)
        _close_quietly(client)
        return
    try:
        relay(client, upstream, idle_timeout=idle_timeout)
    except OSError:
        pass
    finally:
        _close_quietly(upstream)
        _close_quietly(client)


def _parse_listen(text: str) -> tuple:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"--listen wants HOST:PORT, got {text!r}")
    return host, int(port)


def _announce(address: tuple, ready_file: str | None) -> None:
    """Say we are listening: the address to ``ready_file`` (atomically), then ``ready`` on stdout."""
    if ready_file:
        partial = ready_file + ".partial"
        with open(partial, "w", encoding="utf-8") as handle:
            handle.write(f"{address[0]}:{address[1]}\n")
        os.replace(partial, ready_file)
    sys.stdout.write("ready\n")
    sys.stdout.flush()


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(description="Relay a loopback TCP port to the egress proxy's Unix socket.")
    parser.add_argument("--listen", type=_parse_listen, required=True, help="HOST:PORT to listen on (port 0: any)")
    parser.add_argument("--socket", required=True, help="path of the egress proxy's Unix socket")
    parser.add_argument("--ready", default=None, help="file to write the listening address to when ready")
    parser.add_argument("--idle-timeout", type=float, default=DEFAULT_IDLE_TIMEOUT_S)
    args = parser.parse_args(argv)

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(args.listen)
    listener.listen(128)
    _announce(listener.getsockname()[:2], args.ready)
    try:
        while True:
            try:
                client, _peer = listener.accept()
            except InterruptedError:
                continue
            except OSError:
                # Out of descriptors or a transient accept failure: keep serving.
                time.sleep(0.05)
                continue
            worker = threading.Thread(
                target=_serve, args=(client, args.socket, args.idle_timeout), daemon=True
            )
            worker.start()
    except KeyboardInterrupt:
        return 0
    finally:
        listener.close()


if __name__ == "__main__":
    sys.exit(main())
