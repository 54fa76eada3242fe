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
Pythons (3.8+). The host-side proxy imports ``relay`` and ``shut`` from here, so both
halves copy and close with the same code::

    python3 forwarder.py --listen 127.0.0.1:18080 --socket /run/m4agent-egress/proxy.sock \
        [--ready /tmp/forwarder.ready] [--max-connections 128]

Both halves serve every connection from one asyncio event loop in one thread, so a
flood of connections costs the agent's pid limit nothing and cannot kill the
forwarder (a thread per connection did both). At most ``--max-connections`` are
relayed at once, twice the proxy's own cap so that the proxy, which logs, is the one
that refuses; a connection past it is closed at once.

When listening, it prints one line ``ready`` to stdout and, with ``--ready FILE``,
writes the address it listens on (``127.0.0.1:18080``) to FILE (atomically), so a
caller can wait for either. A connection whose socket cannot be reached is closed
without an answer; the forwarder itself keeps running.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

DEFAULT_IDLE_TIMEOUT_S = 330.0  # longer than the proxy's, so the proxy decides when a tunnel idles out
MAX_CONNECTIONS = 128
CONNECT_TIMEOUT_S = 10.0
CLOSE_GRACE_S = 5.0  # a peer that does not read what is left to send is cut off after this
_CHUNK = 65536


async def relay(left: tuple, right: tuple, *, idle_timeout: float, stop: asyncio.Event | None = None) -> tuple:
    """Copy bytes both ways between two (StreamReader, StreamWriter) pairs until both directions have ended.

    A side that reaches end of stream has its direction closed (the other side gets a
    write EOF, so half-closed protocols keep working); the relay ends when both
    directions are done, on an error (reset, broken pipe), after ``idle_timeout``
    seconds without a byte either way, or when ``stop`` is set. Returns ``(bytes
    left->right, bytes right->left, why)`` with why one of ``closed``, ``reset``,
    ``idle timeout``, ``stopped``. Closing the streams is the caller's job (``shut``).
    """
    loop = asyncio.get_running_loop()
    sent = {"up": 0, "down": 0}
    last = [loop.time()]

    async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, key: str) -> None:
        while True:
            data = await reader.read(_CHUNK)
            if not data:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            writer.write(data)
            await writer.drain()
            sent[key] += len(data)
            last[0] = loop.time()

    pumps = {asyncio.ensure_future(pump(left[0], right[1], "up")),
             asyncio.ensure_future(pump(right[0], left[1], "down"))}
    stopper = asyncio.ensure_future(stop.wait()) if stop is not None else None
    watched = pumps | ({stopper} if stopper is not None else set())
    why = "closed"
    try:
        while pumps & watched:
            remaining = last[0] + idle_timeout - loop.time()
            if remaining <= 0:
                why = "idle timeout"
                break
            done, _ = await asyncio.wait(watched, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            if stopper in done:
                why = "stopped"
                break
            if any(task.exception() is not None for task in done):
                why = "reset"
                break
            watched -= done
    finally:
        tasks = [task for task in pumps | {stopper} if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)  # also retrieves a failed pump's error
    return sent["up"], sent["down"], why


async def shut(writer: asyncio.StreamWriter, grace: float = CLOSE_GRACE_S) -> None:
    """Close a stream after what is left to send has gone, or cut it off after ``grace`` seconds."""
    writer.close()
    try:
        await asyncio.wait_for(writer.wait_closed(), grace)
    except (OSError, asyncio.TimeoutError):  # noqa: UP041  (not the builtin TimeoutError before 3.11)
        writer.transport.abort()


class _Forwarder:
    """Relays each accepted connection to a fresh connection on the proxy's socket, at most ``limit`` at once."""

    def __init__(self, socket_path: str, idle_timeout: float, limit: int) -> None:
        self.socket_path = socket_path
        self.idle_timeout = idle_timeout
        self.limit = limit
        self.open = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.open >= self.limit:
            writer.transport.abort()
            return
        self.open += 1
        try:
            try:
                upstream = await asyncio.wait_for(asyncio.open_unix_connection(self.socket_path), CONNECT_TIMEOUT_S)
            except (OSError, asyncio.TimeoutError):  # noqa: UP041  (as in shut)
                writer.transport.abort()
                return
            try:
                await relay((reader, writer), upstream, idle_timeout=self.idle_timeout)
            except OSError:
                pass
            finally:
                await shut(upstream[1])
                await shut(writer)
        finally:
            self.open -= 1


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


async def _serve_forever(args: argparse.Namespace) -> None:
    forwarder = _Forwarder(args.socket, args.idle_timeout, args.max_connections)
    host, port = args.listen
    server = await asyncio.start_server(forwarder.serve, host, port, backlog=128, reuse_address=True)
    _announce(server.sockets[0].getsockname()[:2], args.ready)
    async with server:
        await server.serve_forever()


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(description="Relay a loopback TCP port to the egress proxy's Unix socket.")
    parser.add_argument("--listen", type=_parse_listen, required=True, help="HOST:PORT to listen on (port 0: any)")
    parser.add_argument("--socket", required=True, help="path of the egress proxy's Unix socket")
    parser.add_argument("--ready", default=None, help="file to write the listening address to when ready")
    parser.add_argument("--idle-timeout", type=float, default=DEFAULT_IDLE_TIMEOUT_S)
    parser.add_argument("--max-connections", type=int, default=MAX_CONNECTIONS)
    args = parser.parse_args(argv)
    try:
        asyncio.run(_serve_forever(args))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
