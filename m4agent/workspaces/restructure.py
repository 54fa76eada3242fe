"""The restructured variant: obfuscated names plus four lossless merges (M4Bench's T1-T4).

- ``observations`` = chartevents ∪ labevents, discriminator ``source`` ('chart' | 'lab');
- ``encounters`` = patients ⋈ admissions ⋈ icustays (one row per stay, per admission
  without a stay, and per patient without an admission);
- ``flows`` = inputevents ∪ outputevents, discriminator ``direction`` ('in' | 'out');
- ``item_reference`` = d_items ∪ d_labitems, discriminator ``item_type`` ('chart' | 'lab').

A union carries the discriminator, then the columns both parts have (in the first part's
order), then the first part's own columns, then the second's; a part lacks the other's
own columns, which it fills with typed NULLs. Its row count must equal the parts' sum.

``encounters`` carries every column of patients, of admissions but ``subject_id``, and of
icustays but ``subject_id`` and ``hadm_id``. M4Bench joins admissions to patients with an
inner join, which loses patients without an admission (real MIMIC-IV has many); here the
join starts from patients and is checked to be lossless before it is written: subject,
admission and stay ids unique, every admission's patient present, every stay's admission
present with the same patient, and the row count equal to stays + admissions without a
stay + patients without an admission.

The nine merged tables do not exist in this variant. Every other file is a hard link to
the obfuscated variant's (same bytes, no extra disk); the merged ones are written from the
native export with neutral names. Prepare the obfuscated variant first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from m4agent.dbt.duckdb_session import quote_identifier, sql_string
from m4agent.errors import M4AgentError
from m4agent.workspaces.dictionary import Dictionary, merged_table
from m4agent.workspaces.export import Progress, relation_path
from m4agent.workspaces.files import (
    digest,
    link_read_only,
    parquet_rows,
    read_json,
    write_json,
    write_parquet,
)
from m4agent.workspaces.obfuscate import (
    Columns,
    native_columns,
    neutral_path,
    remove_other_files,
    variant_stamp,
)
from m4agent.workspaces.store import NATIVE, OBFUSCATED, RESTRUCTURED, data_root, dictionary_path, stamp_path


@dataclass(frozen=True)
class Union:
    """Two native relations stacked into one table, told apart by a discriminator column."""

    name: str
    discriminator: str
    parts: tuple[tuple[str, str], tuple[str, str]]  # (native relation, discriminator value)


UNIONS = (
    Union(
        "observations", "source", (("mimiciv_icu.chartevents", "chart"), ("mimiciv_hosp.labevents", "lab"))
    ),
    Union("flows", "direction", (("mimiciv_icu.inputevents", "in"), ("mimiciv_icu.outputevents", "out"))),
    Union(
        "item_reference", "item_type", (("mimiciv_icu.d_items", "chart"), ("mimiciv_hosp.d_labitems", "lab"))
    ),
)
PATIENTS, ADMISSIONS, ICUSTAYS = "mimiciv_hosp.patients", "mimiciv_hosp.admissions", "mimiciv_icu.icustays"
ENCOUNTERS = "encounters"
MERGED_AWAY = tuple(sorted([r for u in UNIONS for r, _ in u.parts] + [PATIENTS, ADMISSIONS, ICUSTAYS]))

# (relation, columns it does not carry into encounters)
ENCOUNTER_PARTS = ((PATIENTS, ()), (ADMISSIONS, ("subject_id",)), (ICUSTAYS, ("subject_id", "hadm_id")))


def merged_into(relation: str) -> str | None:
    """The merged table a native relation went into, or None when it stays a table of its own."""
    for union in UNIONS:
        if relation in (r for r, _ in union.parts):
            return union.name
    return ENCOUNTERS if relation in (PATIENTS, ADMISSIONS, ICUSTAYS) else None


def union_columns(union: Union, columns: Columns) -> list[tuple[str, str | None, str | None]]:
    """The native columns of a union in order: ``(name, type in first part, type in second part)``."""
    first = dict(columns[union.parts[0][0]])
    second = dict(columns[union.parts[1][0]])
    shared = [n for n in first if n in second]
    return (
        [(n, first[n], second[n]) for n in shared]
        + [(n, first[n], None) for n in first if n not in second]
        + [(n, None, second[n]) for n in second if n not in first]
    )


def union_sql(union: Union, columns: Columns, dictionary: Dictionary, native_root: Path) -> str:
    names = dictionary["columns"]
    disc = quote_identifier(dictionary["restructured_columns"][union.discriminator])
    layout = union_columns(union, columns)
    selects = []
    for index, (relation, value) in enumerate(union.parts):
        items = [f"{sql_string(value)} AS {disc}"]
        for name, *types in layout:
            own, other = types[index], types[1 - index]
            expr = quote_identifier(name) if own is not None else f"CAST(NULL AS {other})"
            items.append(f"{expr} AS {quote_identifier(names[name])}")
        source = sql_string(str(native_root / relation_path(relation)))
        selects.append(f"SELECT {', '.join(items)} FROM read_parquet({source})")
    return "\nUNION ALL\n".join(selects)


def encounter_columns(columns: Columns) -> list[tuple[str, str]]:
    """``(part alias, native column)`` of every column encounters carries, in order."""
    carried: list[tuple[str, str]] = []
    seen: set[str] = set()
    for alias, (relation, skipped) in zip("pai", ENCOUNTER_PARTS, strict=True):
        for name, _ in columns[relation]:
            if name in skipped:
                continue
            if name in seen:
                raise M4AgentError(f"encounters would carry column {name!r} twice; the merge is not lossless")
            seen.add(name)
            carried.append((alias, name))
    return carried


def _scalar(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    row = con.execute(sql).fetchone()
    return int(row[0]) if row else 0


def encounters_sql(columns: Columns, dictionary: Dictionary, native_root: Path) -> str:
    """patients LEFT JOIN admissions LEFT JOIN icustays, with neutral column names."""
    p, a, i = (sql_string(str(native_root / relation_path(r))) for r, _ in ENCOUNTER_PARTS)
    source = (
        f"read_parquet({p}) p LEFT JOIN read_parquet({a}) a ON a.subject_id = p.subject_id "
        f"LEFT JOIN read_parquet({i}) i ON i.hadm_id = a.hadm_id"
    )
    names = dictionary["columns"]
    items = ", ".join(
        f"{alias}.{quote_identifier(n)} AS {quote_identifier(names[n])}" for alias, n in encounter_columns(columns)
    )
    return f"SELECT {items} FROM {source}"


def check_encounters_lossless(con: duckdb.DuckDBPyConnection, native_root: Path) -> int:
    """Raise unless patients ⋈ admissions ⋈ icustays can be split back exactly; its row count."""
    p, a, i = (f"read_parquet({sql_string(str(native_root / relation_path(r)))})" for r, _ in ENCOUNTER_PARTS)
    checks = {
        "patients.subject_id is not unique": f"SELECT COUNT(*) - COUNT(DISTINCT subject_id) FROM {p}",
        "admissions.hadm_id is not unique": f"SELECT COUNT(*) - COUNT(DISTINCT hadm_id) FROM {a}",
        "icustays.stay_id is not unique or missing": f"SELECT COUNT(*) - COUNT(DISTINCT stay_id) FROM {i}",
        "an admission's patient is missing": (
            f"SELECT COUNT(*) FROM {a} x WHERE NOT EXISTS (SELECT 1 FROM {p} y WHERE y.subject_id = x.subject_id)"
        ),
        "a stay's admission is missing or has another patient": (
            f"SELECT COUNT(*) FROM {i} x WHERE NOT EXISTS "
            f"(SELECT 1 FROM {a} y WHERE y.hadm_id = x.hadm_id AND y.subject_id = x.subject_id)"
        ),
    }
    for problem, sql in checks.items():
        if _scalar(con, sql):
            raise M4AgentError(f"cannot merge encounters losslessly: {problem}")
    return _scalar(
        con,
        f"SELECT (SELECT COUNT(*) FROM {i}) "
        f"+ (SELECT COUNT(*) FROM {a} x WHERE NOT EXISTS (SELECT 1 FROM {i} y WHERE y.hadm_id = x.hadm_id)) "
        f"+ (SELECT COUNT(*) FROM {p} x WHERE NOT EXISTS (SELECT 1 FROM {a} y WHERE y.subject_id = x.subject_id))",
    )


def restructured_files(dictionary: Dictionary) -> dict[str, str | None]:
    """Relative path of every file of the variant -> the native relation it links to (None: merged)."""
    files: dict[str, str | None] = {
        neutral_path(dictionary, relation): relation
        for relation in dictionary["tables"]
        if merged_into(relation) is None
    }
    for name in dictionary["restructured_tables"]:
        schema, table = merged_table(dictionary, name)
        files[f"{schema}/{table}.parquet"] = None
    return files


def prepare_restructured(data_dir: Path, progress: Progress | None = None) -> bool:
    """Write the restructured variant unless already done (the obfuscated one must be ready)."""
    dictionary = read_json(dictionary_path(data_dir, OBFUSCATED))
    obf_stamp = read_json(stamp_path(data_dir, OBFUSCATED))
    if dictionary is None or obf_stamp is None:
        raise M4AgentError("prepare the obfuscated variant before the restructured one")
    native_root = data_root(data_dir, NATIVE)
    obf_root = data_root(data_dir, OBFUSCATED)
    root = data_root(data_dir, RESTRUCTURED)
    files = restructured_files(dictionary)
    stamp = variant_stamp(digest(obf_stamp), dictionary, list(files))
    stamp_file = stamp_path(data_dir, RESTRUCTURED)
    if read_json(stamp_file) == stamp and all((root / f).exists() for f in files):
        return False
    stamp_file.unlink(missing_ok=True)
    write_json(dictionary_path(data_dir, RESTRUCTURED), dictionary)
    for path, relation in files.items():
        if relation is not None:
            link_read_only(obf_root / path, root / path)
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    try:
        columns = native_columns(con, data_dir)
        for union in UNIONS:
            if progress:
                progress(f"restructure {union.name}")
            schema, table = merged_table(dictionary, union.name)
            target = root / schema / f"{table}.parquet"
            write_parquet(con, union_sql(union, columns, dictionary, native_root), target)
            expected = sum(parquet_rows(con, native_root / relation_path(r)) for r, _ in union.parts)
            if parquet_rows(con, target) != expected:
                raise M4AgentError(f"{union.name}: row count differs from its parts' sum {expected}")
        if progress:
            progress(f"restructure {ENCOUNTERS}")
        expected = check_encounters_lossless(con, native_root)
        schema, table = merged_table(dictionary, ENCOUNTERS)
        target = root / schema / f"{table}.parquet"
        write_parquet(con, encounters_sql(columns, dictionary, native_root), target)
        if parquet_rows(con, target) != expected:
            raise M4AgentError(f"{ENCOUNTERS}: {parquet_rows(con, target)} rows, expected {expected}")
    finally:
        con.close()
    remove_other_files(root, set(files))
    write_json(stamp_file, stamp)
    return True
