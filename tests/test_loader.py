"""`m4agent data load`: PhysioNet csv.gz folders into DuckDB, and every bad input.

Each bad input is checked twice, through ``m4agent.data.load.load`` and through
the CLI, for the one-line message naming the file, and for what is left on
disk: no database and no ``.partial`` after a failed first load, and the
previous good database byte-for-byte untouched after a failed reload.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from fixtures.physionet_tiny import write_tiny_folder
from typer.testing import CliRunner

from m4agent.cli import app
from m4agent.data.load import load
from m4agent.data.schema import tables
from m4agent.errors import M4AgentError

DB_NAMES = {"mimic-iv": "mimic_iv.duckdb", "eicu": "eicu.duckdb"}
BIG_FILE = {"mimic-iv": "icu/chartevents.csv.gz", "eicu": "nurseCharting.csv.gz"}


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Pristine PhysioNet-layout folders for both datasets (copied per test before damage)."""
    root = tmp_path_factory.mktemp("physionet")
    return {
        ds: write_tiny_folder(ds, root / ds, root, extra_chartevents=40_000)
        for ds in ("mimic-iv", "eicu")
    }


@pytest.fixture(scope="module")
def good_dbs(folders: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A good database per dataset, loaded once, copied into place by the reload checks."""
    root = tmp_path_factory.mktemp("good")
    return {ds: load(ds, src, root / ds) for ds, src in folders.items()}


@pytest.fixture
def copy_of(folders: dict[str, Path], tmp_path: Path):
    def make(dataset: str) -> Path:
        target = tmp_path / f"src-{dataset}"
        shutil.copytree(folders[dataset], target)
        return target
    return make


def _digest_tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _leftovers(data_dir: Path) -> list[str]:
    if not data_dir.exists():
        return []
    return sorted(p.name for p in data_dir.iterdir() if ".partial" in p.name or p.suffix == ".wal")


def _rewrite_gz(path: Path, transform) -> None:
    with gzip.open(path, "rt", newline="") as fh:
        text = fh.read()
    with gzip.open(path, "wt", newline="") as fh:
        fh.write(transform(text))


def _map_rows(transform):
    """A text transform applying ``transform`` to every parsed CSV row (header included)."""
    def apply(text: str) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        for row in csv.reader(io.StringIO(text)):
            writer.writerow(transform(row))
        return out.getvalue()
    return apply


_drop_first_column = _map_rows(lambda row: row[1:])


def _cli(dataset: str, src: Path, data_dir: Path):
    return CliRunner().invoke(
        app, ["data", "load", "--dataset", dataset, "--src", str(src), "--data-dir", str(data_dir)]
    )


def _assert_fails_cleanly(
    dataset: str, src: Path, tmp_path: Path, good_dbs: dict[str, Path], *fragments: str
) -> None:
    """Fresh data dir: no DB afterwards. Data dir with a good DB: the DB is untouched."""
    # 1. Through the function, into an empty data directory.
    fresh = tmp_path / "fresh"
    with pytest.raises(M4AgentError) as info:
        load(dataset, src, fresh)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    assert not (fresh / DB_NAMES[dataset]).exists()
    assert _leftovers(fresh) == []

    # 2. Through the CLI, over a previous good database.
    good = tmp_path / "good"
    good.mkdir(exist_ok=True)
    good_db = good / DB_NAMES[dataset]
    shutil.copy(good_dbs[dataset], good_db)
    before = hashlib.sha256(good_db.read_bytes()).hexdigest()
    result = _cli(dataset, src, good)
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.output
    for fragment in fragments:
        assert fragment in lines[0], result.output
    assert hashlib.sha256(good_db.read_bytes()).hexdigest() == before
    assert _leftovers(good) == []


@pytest.mark.parametrize("dataset", ["mimic-iv", "eicu"])
def test_load_gives_official_tables_and_types(dataset: str, copy_of, tmp_path: Path) -> None:
    src = copy_of(dataset)
    before = _digest_tree(src)
    result = _cli(dataset, src, tmp_path / "data")
    assert result.exit_code == 0, result.output
    db = tmp_path / "data" / DB_NAMES[dataset]
    assert db.exists() and _leftovers(tmp_path / "data") == []
    assert _digest_tree(src) == before, "source files must never be modified"
    for table in tables(dataset).values():  # one progress line per table, with its row count
        assert re.search(rf"{re.escape(table.file_stem)}\.csv\.gz .*100% .*[\d,]+ rows", result.output), table
    con = duckdb.connect(str(db), read_only=True)
    try:
        for table in tables(dataset).values():
            got = con.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position",
                [table.schema, table.name],
            ).fetchall()
            assert got == [(c.name, c.type) for c in table.columns], table.qualified
            count = con.execute(f"SELECT count(*) FROM {table.qualified}").fetchone()[0]
            assert count >= 3, table.qualified
    finally:
        con.close()


def test_rerun_replaces_database_and_clears_stale_partial(copy_of, tmp_path: Path) -> None:
    src = copy_of("eicu")
    data = tmp_path / "data"
    data.mkdir()
    (data / "eicu.duckdb.partial").write_bytes(b"left by a killed load")
    first = load("eicu", src, data)
    con = duckdb.connect(str(first))
    con.execute("CREATE TABLE eicu_crd.scratch AS SELECT 1 AS x")
    con.close()
    second = load("eicu", src, data)
    assert second == first and _leftovers(data) == []
    con = duckdb.connect(str(second), read_only=True)
    try:
        names = {r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'eicu_crd'").fetchall()}
    finally:
        con.close()
    assert "scratch" not in names and names == {t.name for t in tables("eicu").values()}


def test_columns_in_another_order_load_by_name(copy_of, tmp_path: Path) -> None:
    src = copy_of("mimic-iv")
    path = src / "hosp" / "services.csv.gz"

    _rewrite_gz(path, _map_rows(lambda row: [row[1], row[0], *row[2:]]))
    db = load("mimic-iv", src, tmp_path / "data")
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT subject_id, hadm_id FROM mimiciv_hosp.services ORDER BY 1").fetchall()
    finally:
        con.close()
    assert rows[0][0] < rows[0][1], "subject_id and hadm_id must not be swapped"


def test_files_outside_the_schema_are_skipped_with_a_note(copy_of, tmp_path: Path) -> None:
    src = copy_of("mimic-iv")
    with gzip.open(src / "hosp" / "omr.csv.gz", "wt") as fh:
        fh.write("subject_id,chartdate,seq_num,result_name,result_value\n1,2150-01-01,1,BMI,22\n")
    result = _cli("mimic-iv", src, tmp_path / "data")
    assert result.exit_code == 0, result.output
    assert "hosp/omr.csv.gz" in result.output and "skipping" in result.output


@pytest.mark.parametrize("dataset", ["mimic-iv", "eicu"])
def test_missing_table_file(dataset: str, copy_of, tmp_path: Path, good_dbs) -> None:
    src = copy_of(dataset)
    victim = {"mimic-iv": "icu/outputevents.csv.gz", "eicu": "lab.csv.gz"}[dataset]
    (src / victim).unlink()
    _assert_fails_cleanly(dataset, src, tmp_path, good_dbs, victim, "missing")


def test_header_missing_a_column(copy_of, tmp_path: Path, good_dbs) -> None:
    src = copy_of("mimic-iv")
    _rewrite_gz(src / "hosp" / "admissions.csv.gz", _drop_first_column)
    _assert_fails_cleanly("mimic-iv", src, tmp_path, good_dbs, "hosp/admissions.csv.gz", "lacks column subject_id")


def test_header_with_an_extra_column(copy_of, tmp_path: Path, good_dbs) -> None:
    src = copy_of("eicu")
    _rewrite_gz(src / "patient.csv.gz", _map_rows(lambda row: [*row, "x"]))
    _assert_fails_cleanly("eicu", src, tmp_path, good_dbs, "patient.csv.gz", "unexpected column")


def test_eicu_folder_given_for_mimic(copy_of, tmp_path: Path, good_dbs) -> None:
    src = copy_of("eicu")
    _assert_fails_cleanly("mimic-iv", src, tmp_path, good_dbs, str(src), "holds eICU-CRD files", "--dataset eicu")


def test_mimic_folder_given_for_eicu(copy_of, tmp_path: Path, good_dbs) -> None:
    src = copy_of("mimic-iv")
    _assert_fails_cleanly("eicu", src, tmp_path, good_dbs, str(src), "holds MIMIC-IV files", "--dataset mimic-iv")


def test_hosp_folder_given_instead_of_its_parent(copy_of, tmp_path: Path, good_dbs) -> None:
    src = copy_of("mimic-iv")
    _assert_fails_cleanly("mimic-iv", src / "hosp", tmp_path, good_dbs, "parent folder")


def test_no_such_folder(tmp_path: Path, good_dbs) -> None:
    _assert_fails_cleanly("eicu", tmp_path / "nowhere", tmp_path, good_dbs, "no such folder")


@pytest.mark.parametrize("dataset", ["mimic-iv", "eicu"])
def test_truncated_gzip_is_caught_during_the_load(dataset: str, copy_of, tmp_path: Path, good_dbs) -> None:
    src = copy_of(dataset)
    path = src / BIG_FILE[dataset]
    data = path.read_bytes()
    assert len(data) > 50_000
    path.write_bytes(data[: len(data) * 2 // 3])
    _assert_fails_cleanly(dataset, src, tmp_path, good_dbs, BIG_FILE[dataset], "truncated or corrupt", "re-download")


def test_row_with_a_missing_field(copy_of, tmp_path: Path, good_dbs) -> None:
    src = copy_of("mimic-iv")
    _rewrite_gz(src / "icu" / "d_items.csv.gz", lambda text: text + "220045,Heart Rate,HR\n")
    _assert_fails_cleanly("mimic-iv", src, tmp_path, good_dbs, "icu/d_items.csv.gz", "mimiciv_icu.d_items")


def test_value_of_the_wrong_type(copy_of, tmp_path: Path, good_dbs) -> None:
    src = copy_of("eicu")
    _rewrite_gz(src / "vitalPeriodic.csv.gz",
                lambda text: text + "7,100001,15,36.6,98,not-a-number" + ",1" * 13 + "\n")
    _assert_fails_cleanly("eicu", src, tmp_path, good_dbs, "vitalPeriodic.csv.gz", "eicu_crd.vitalperiodic")


def test_unknown_dataset(tmp_path: Path) -> None:
    with pytest.raises(M4AgentError, match="unknown dataset"):
        load("mimic-v", tmp_path, tmp_path / "data")


def test_memory_limit_must_be_a_size(copy_of, tmp_path: Path) -> None:
    with pytest.raises(M4AgentError, match="not a size"):
        load("eicu", copy_of("eicu"), tmp_path / "data", memory_limit="lots")


_LOAD_SCRIPT = """
import signal
import sys
from pathlib import Path
from m4agent.data.load import load
# Ctrl-C as in a terminal, even when this test runs where SIGINT is ignored (a background job)
signal.signal(signal.SIGINT, signal.default_int_handler)
load("mimic-iv", Path(sys.argv[1]), Path(sys.argv[2]))
"""


@pytest.fixture(scope="module")
def big_mimic_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A MIMIC-IV folder whose chartevents takes seconds to load, long enough to be interrupted."""
    root = tmp_path_factory.mktemp("big")
    return write_tiny_folder("mimic-iv", root / "src", root, extra_chartevents=2_000_000)


@pytest.mark.slow
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill"])
def test_interrupted_load_leaves_nothing_that_looks_complete(how, big_mimic_folder: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    child = subprocess.Popen([sys.executable, "-c", _LOAD_SCRIPT, str(big_mimic_folder), str(data)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    partial = data / "mimic_iv.duckdb.partial"
    deadline = time.monotonic() + 60
    while not partial.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # inside the load (2 million chartevents rows take seconds; a quiet machine loads fast)
    assert child.poll() is None, "the load finished before it could be interrupted; enlarge the fixture"
    child.send_signal(how)
    child.wait(timeout=60)
    assert child.returncode != 0
    assert not (data / "mimic_iv.duckdb").exists()
    if how == signal.SIGINT:
        assert _leftovers(data) == []  # Ctrl-C cleans up on the way out
    else:
        # A killed load can only leave a .partial, never the real name; the next load clears it.
        db = load("mimic-iv", big_mimic_folder, data)
        assert db.exists() and _leftovers(data) == []


@pytest.mark.slow
def test_streams_within_a_small_memory_limit_and_explains_a_too_small_one(
    big_mimic_folder: Path, tmp_path: Path
) -> None:
    # 2 million chartevents rows load within 300 MB: the load streams rather than materialises.
    db = load("mimic-iv", big_mimic_folder, tmp_path / "ok", memory_limit="300MB")
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM mimiciv_icu.chartevents").fetchone()[0] == 2_000_003
    finally:
        con.close()
    # Far too little memory: one clear line that says which setting to raise, nothing left behind.
    with pytest.raises(M4AgentError, match=r"ran out of memory .*M4AGENT_LOAD_MEMORY_LIMIT"):
        load("mimic-iv", big_mimic_folder, tmp_path / "tiny", memory_limit="48MB")
    assert _leftovers(tmp_path / "tiny") == [] and not (tmp_path / "tiny" / "mimic_iv.duckdb").exists()
