"""`m4agent data download` against a local HTTP server in PhysioNet's layout.

No machine here reaches PhysioNet, so a ThreadingHTTPServer on 127.0.0.1
(random port, HTTP Range support) serves a tiny demo folder with its own
``SHA256SUMS.txt``. Covered: a full download that `data load` then reads,
resuming a partial file with a Range request, skipping verified files, a
checksum mismatch (the bad file is removed), a 404, and being offline.
"""

from __future__ import annotations

import gzip
import hashlib
import re
import shutil
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import duckdb
import pytest
from fixtures.physionet_tiny import write_tiny_folder
from typer.testing import CliRunner

from m4agent.cli import app
from m4agent.data.download import download
from m4agent.errors import M4AgentError


class RangeHandler(BaseHTTPRequestHandler):
    """Serves files under ``server.root``; honours ``Range: bytes=N-``; logs each request."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self.server.requests.append((self.path, self.headers.get("Range")))
        path = (self.server.root / self.path.lstrip("/")).resolve()
        if not path.is_file() or self.server.root not in path.parents:
            self.send_error(404)
            return
        data = path.read_bytes()
        match = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
        if match:
            start = int(match.group(1))
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            data = data[start:]
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def _write_sums(root: Path, override: dict[str, str] | None = None) -> None:
    lines = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.name != "SHA256SUMS.txt"):
        name = path.relative_to(root).as_posix()
        digest = (override or {}).get(name) or hashlib.sha256(path.read_bytes()).hexdigest()
        lines.append(f"{digest}  {name}\n")
    (root / "SHA256SUMS.txt").write_text("".join(lines))


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small MIMIC-IV demo in PhysioNet's layout, with a file outside the schema and a licence."""
    work = tmp_path_factory.mktemp("demo")
    root = write_tiny_folder("mimic-iv", work / "mimic-iv-demo" / "2.2", work, extra_chartevents=20_000)
    with gzip.open(root / "hosp" / "omr.csv.gz", "wt") as fh:
        fh.write("subject_id,chartdate,seq_num,result_name,result_value\n1,2150-01-01,1,BMI,22\n")
    (root / "LICENSE.txt").write_text("Open Data Commons Open Database License v1.0\n")
    _write_sums(root)
    return root


@pytest.fixture
def server(demo_folder: Path, tmp_path: Path) -> Iterator[ThreadingHTTPServer]:
    served = tmp_path / "served"
    shutil.copytree(demo_folder.parent.parent, served)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), RangeHandler)
    httpd.root = served.resolve()
    httpd.requests = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def _base(httpd: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}/mimic-iv-demo/2.2/"


def _file_requests(httpd: ThreadingHTTPServer) -> list[tuple[str, str | None]]:
    return [r for r in httpd.requests if not r[0].endswith("SHA256SUMS.txt")]


def test_full_download_then_load(server, demo_folder: Path, tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    runner = CliRunner()
    result = runner.invoke(app, ["data", "download", "--dataset", "mimic-iv-demo", "--dest", str(dest),
                                 "--base-url", _base(server)])
    assert result.exit_code == 0, result.output
    served = sorted(p.relative_to(demo_folder).as_posix() for p in demo_folder.rglob("*.csv.gz"))
    got = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*.csv.gz"))
    assert got == served and not list(dest.rglob("*.part"))
    for name in got:
        assert (dest / name).read_bytes() == (demo_folder / name).read_bytes()
    assert (dest / "SHA256SUMS.txt").read_text() == (demo_folder / "SHA256SUMS.txt").read_text()

    data = tmp_path / "data"
    loaded = runner.invoke(app, ["data", "load", "--dataset", "mimic-iv", "--src", str(dest),
                                 "--data-dir", str(data)])
    assert loaded.exit_code == 0, loaded.output
    assert "hosp/omr.csv.gz" in loaded.output
    con = duckdb.connect(str(data / "mimic_iv.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM mimiciv_icu.chartevents").fetchone()[0] == 20_003
    finally:
        con.close()


def test_resume_partial_file_and_skip_verified_ones(server, demo_folder: Path, tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    name = "icu/chartevents.csv.gz"
    whole = (demo_folder / name).read_bytes()
    half = len(whole) // 2
    (dest / "icu").mkdir(parents=True)
    (dest / f"{name}.part").write_bytes(whole[:half])
    (dest / "hosp").mkdir()
    shutil.copy(demo_folder / "hosp" / "patients.csv.gz", dest / "hosp" / "patients.csv.gz")

    download("mimic-iv-demo", dest, base_url=_base(server))
    assert (dest / name).read_bytes() == whole and not (dest / f"{name}.part").exists()
    requests = dict(_file_requests(server))
    assert requests[f"/mimic-iv-demo/2.2/{name}"] == f"bytes={half}-"
    assert "/mimic-iv-demo/2.2/hosp/patients.csv.gz" not in requests  # already verified

    server.requests.clear()
    download("mimic-iv-demo", dest, base_url=_base(server))
    assert _file_requests(server) == []  # everything present and verified


def test_checksum_mismatch_removes_the_file(server, tmp_path: Path) -> None:
    served = server.root / "mimic-iv-demo" / "2.2"
    _write_sums(served, override={"hosp/admissions.csv.gz": "0" * 64})
    dest = tmp_path / "dest"
    with pytest.raises(M4AgentError) as info:
        download("mimic-iv-demo", dest, base_url=_base(server))
    message = str(info.value)
    assert "hosp/admissions.csv.gz" in message and "does not match" in message and "removed" in message
    assert not (dest / "hosp" / "admissions.csv.gz").exists()
    assert not (dest / "hosp" / "admissions.csv.gz.part").exists()


def test_not_found(server, tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{server.server_address[1]}/mimic-iv-demo/9.9/"
    result = CliRunner().invoke(app, ["data", "download", "--dataset", "mimic-iv-demo",
                                      "--dest", str(tmp_path / "dest"), "--base-url", base])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "SHA256SUMS.txt" in lines[0] and "404" in lines[0], result.output


def test_wrong_demo_folder(server, tmp_path: Path) -> None:
    with pytest.raises(M4AgentError, match="does not list patient.csv.gz"):
        download("eicu-demo", tmp_path / "dest", base_url=_base(server))


def test_offline(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # The port is closed now: connecting is refused, as when no network is there.
    result = CliRunner().invoke(app, ["data", "download", "--dataset", "eicu-demo",
                                      "--dest", str(tmp_path / "dest"), "--base-url", f"http://127.0.0.1:{port}/"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "cannot reach" in lines[0] and "offline" in lines[0], result.output
    assert not any((tmp_path / "dest").rglob("*.csv.gz"))
