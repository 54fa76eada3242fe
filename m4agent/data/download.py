"""Download the open PhysioNet demos, verified against PhysioNet's SHA-256 list.

``m4agent data download --dataset mimic-iv-demo|eicu-demo --dest DIR`` reads
the project's published ``SHA256SUMS.txt`` (one ``<sha256>  <path>`` line per
file), fetches every ``*.csv.gz`` it lists into ``DIR`` in the same layout,
and checks each file's SHA-256. It is resumable: a file arrives as
``<name>.part`` and an interrupted download continues from where it stopped
with an HTTP ``Range`` request; files already present with the right hash are
not fetched again. A file whose hash is wrong is deleted. The result is a
folder ``m4agent data load --src DIR`` reads directly.

Only the standard library (``urllib``) is used, so any plain HTTP(S) mirror
that serves the same layout works through ``--base-url``.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TransferSpeedColumn,
)

from m4agent.data.schema import tables
from m4agent.errors import M4AgentError

CHECKSUM_FILE = "SHA256SUMS.txt"
CHUNK = 1 << 20
TIMEOUT_SECONDS = 60


@dataclass(frozen=True)
class Demo:
    dataset: str  # the schema it loads into
    url: str  # PhysioNet folder of the published version
    title: str


DEMOS = {
    "mimic-iv-demo": Demo("mimic-iv", "https://physionet.org/files/mimic-iv-demo/2.2/", "MIMIC-IV demo 2.2"),
    "eicu-demo": Demo("eicu", "https://physionet.org/files/eicu-crd-demo/2.0.1/", "eICU-CRD demo 2.0.1"),
}


def parse_checksums(text: str, source: str) -> dict[str, str]:
    """``{relative path: sha256}`` from a ``sha256sum``-style listing."""
    sums: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        digest, _, name = line.partition(" ")
        name = name.strip().removeprefix("*").removeprefix("./")
        if len(digest) != 64 or not name or any(c not in "0123456789abcdefABCDEF" for c in digest):
            raise M4AgentError(f"{source}: line {number} is not '<sha256>  <path>'; is this a PhysioNet folder?")
        path = PurePosixPath(name)
        if path.is_absolute() or ".." in path.parts:
            raise M4AgentError(f"{source}: line {number} names a path outside the folder ({name}); refusing it")
        sums[path.as_posix()] = digest.lower()
    if not sums:
        raise M4AgentError(f"{source}: lists no files; is this a PhysioNet folder?")
    return sums


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _network_error(url: str, exc: Exception) -> M4AgentError:
    if isinstance(exc, urllib.error.HTTPError):
        if exc.code == 404:
            return M4AgentError(f"{url}: not found (HTTP 404); check --base-url points at the demo's version folder")
        if exc.code in (401, 403):
            return M4AgentError(f"{url}: access refused (HTTP {exc.code}); the open demos need no login, "
                                "check --base-url")
        return M4AgentError(f"{url}: the server answered HTTP {exc.code} {exc.reason}; try again later")
    reason = getattr(exc, "reason", exc)
    return M4AgentError(f"cannot reach {url} ({reason}); you seem to be offline: connect, or pass --base-url "
                        "a reachable mirror, then rerun (finished files are kept, partial ones resume)")


def _open(url: str, start: int = 0):
    request = urllib.request.Request(url, headers={"User-Agent": "m4agent"})
    if start:
        request.add_header("Range", f"bytes={start}-")
    try:
        return urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and start:
            return None  # the part file is already complete
        raise _network_error(url, exc) from exc
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        raise _network_error(url, exc) from exc


def _fetch_text(url: str) -> str:
    response = _open(url)
    with response:
        return response.read().decode("utf-8")


def _fetch_file(url: str, target: Path, progress: Progress, label: str) -> None:
    """Fetch ``url`` into ``target.part``, resuming what is there; rename to ``target`` when complete."""
    part = target.with_name(target.name + ".part")
    start = part.stat().st_size if part.exists() else 0
    response = _open(url, start)
    task_id = progress.add_task(label, total=None)
    if response is None:
        progress.update(task_id, total=start, completed=start)
    else:
        with response:
            resumed = start > 0 and response.status == 206
            if not resumed:
                start = 0
            length = response.headers.get("Content-Length")
            total = start + int(length) if length is not None else None
            progress.update(task_id, total=total, completed=start)
            try:
                with part.open("ab" if resumed else "wb") as out:
                    while block := response.read(CHUNK):
                        out.write(block)
                        progress.advance(task_id, len(block))
            except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as exc:
                raise _network_error(url, exc) from exc
            if total is not None and part.stat().st_size < total:
                raise M4AgentError(f"{url}: the connection closed early ({part.stat().st_size} of {total} "
                                   "bytes); rerun to resume")
    os.replace(part, target)


def download(dataset: str, dest: Path, base_url: str | None = None, console: Console | None = None) -> Path:
    """Download the demo ``dataset`` into ``dest`` and return ``dest`` (ready for ``data load --src``)."""
    try:
        demo = DEMOS[dataset]
    except KeyError:
        raise M4AgentError(f"unknown demo {dataset!r}; choose one of {', '.join(DEMOS)}") from None
    base = (base_url or demo.url).rstrip("/") + "/"
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    console = console or Console(stderr=True)

    listing_url = urllib.parse.urljoin(base, CHECKSUM_FILE)
    listing = _fetch_text(listing_url)
    sums = parse_checksums(listing, listing_url)
    wanted = {name: digest for name, digest in sums.items() if name.endswith(".csv.gz")}
    needed = [f"{t.file_stem}.csv.gz" for t in tables(demo.dataset).values()]
    absent = [name for name in needed if name not in wanted]
    if absent:
        raise M4AgentError(f"{listing_url}: does not list {absent[0]}; --base-url must be the {demo.title} folder")

    with Progress(TextColumn("{task.description:<34}"), BarColumn(), DownloadColumn(),
                  TransferSpeedColumn(), console=console) as progress:
        for name, digest in sorted(wanted.items()):
            target = dest / name
            if target.is_file():
                if sha256_of(target) == digest:
                    continue
                target.unlink()  # stale or damaged: fetch again
            target.parent.mkdir(parents=True, exist_ok=True)
            _fetch_file(urllib.parse.urljoin(base, urllib.parse.quote(name)), target, progress, name)
            actual = sha256_of(target)
            if actual != digest:
                target.unlink()
                raise M4AgentError(f"{target}: SHA-256 {actual[:12]}... does not match {CHECKSUM_FILE} "
                                   f"({digest[:12]}...); the file was removed, rerun to fetch it again")
    (dest / CHECKSUM_FILE).write_text(listing)  # PhysioNet's list as published, for later checks
    console.print(f"[green]verified[/] {len(wanted)} files of the {demo.title} against {CHECKSUM_FILE}")
    return dest
