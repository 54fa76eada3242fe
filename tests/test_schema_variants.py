"""Schema variants: the obfuscated and restructured data map back to native exactly.

The round trips read the transformed Parquet files, rename their columns back through the
dictionary (and, for restructured, split merged tables by their discriminator), and compare
the rows with the native table's as multisets (``EXCEPT ALL`` both ways, equal counts).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
from support.workspaces_data import built_data_dir, copy_databases

from m4agent.registry import all_tasks
from m4agent.workspaces import (
    SETUP_SCRIPT,
    data_root,
    dictionary_path,
    mounts,
    plan_for,
    prepare,
    rewrite_instruction,
)
from m4agent.workspaces.export import exported_relations, relation_path
from m4agent.workspaces.instruction import KEY_COLUMNS
from m4agent.workspaces.restructure import ENCOUNTER_PARTS, MERGED_AWAY, UNIONS

TASKS = all_tasks()
Dictionary = dict[str, Any]


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = built_data_dir(tmp_path_factory.getbasetemp())
    prepare(root, "restructured")
    return root


@pytest.fixture(scope="session")
def dictionary(data_dir: Path) -> Dictionary:
    return json.loads(dictionary_path(data_dir, "obfuscated").read_text())


def native_file(data_dir: Path, relation: str) -> str:
    return str(data_root(data_dir, "native") / relation_path(relation))


def neutral_file(data_dir: Path, variant: str, neutral: str) -> str:
    schema, table = neutral.split(".")
    return str(data_root(data_dir, variant) / schema / f"{table}.parquet")


def native_columns(con: duckdb.DuckDBPyConnection, path: str) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{path}')").fetchall()]


def assert_same_rows(con: duckdb.DuckDBPyConnection, native_sql: str, mapped_sql: str, label: str) -> None:
    [(n,)] = con.execute(f"SELECT count(*) FROM ({native_sql})").fetchall()
    [(m,)] = con.execute(f"SELECT count(*) FROM ({mapped_sql})").fetchall()
    missing = con.execute(f"SELECT count(*) FROM (({native_sql}) EXCEPT ALL ({mapped_sql}))").fetchone()
    extra = con.execute(f"SELECT count(*) FROM (({mapped_sql}) EXCEPT ALL ({native_sql}))").fetchone()
    assert (n, missing, extra) == (m, (0,), (0,)), f"{label}: {n} native rows, {m} mapped back"


def back_to_native(
    columns: list[tuple[str, str]], dictionary: Dictionary, source: str, where: str = ""
) -> str:
    """SELECT the native columns (native names and types) from a neutral file."""
    items = ", ".join(f'CAST("{dictionary["columns"][n]}" AS {t}) AS "{n}"' for n, t in columns)
    return f"SELECT {items} FROM read_parquet('{source}') {where}"


def test_obfuscated_data_maps_back_to_every_native_table(data_dir: Path, dictionary: Dictionary):
    con = duckdb.connect()
    for relation in exported_relations(data_dir, "mimic-iv"):
        native = native_file(data_dir, relation)
        columns = native_columns(con, native)
        neutral = neutral_file(data_dir, "obfuscated", dictionary["tables"][relation])
        renamed = [(dictionary["columns"][n], t) for n, t in columns]
        assert native_columns(con, neutral) == renamed, f"{relation}: columns or types differ"
        assert_same_rows(
            con,
            f"SELECT * FROM read_parquet('{native}')",
            back_to_native(columns, dictionary, neutral),
            relation,
        )


def test_restructured_unmerged_tables_map_back_to_native(data_dir: Path, dictionary: Dictionary):
    con = duckdb.connect()
    for relation in exported_relations(data_dir, "mimic-iv"):
        if relation in MERGED_AWAY:
            continue
        native = native_file(data_dir, relation)
        neutral = neutral_file(data_dir, "restructured", dictionary["tables"][relation])
        columns = native_columns(con, native)
        assert_same_rows(
            con,
            f"SELECT * FROM read_parquet('{native}')",
            back_to_native(columns, dictionary, neutral),
            relation,
        )


@pytest.mark.parametrize("union", UNIONS, ids=lambda u: u.name)
def test_restructured_union_splits_back_into_its_native_tables(union, data_dir: Path, dictionary: Dictionary):
    con = duckdb.connect()
    merged = neutral_file(data_dir, "restructured", dictionary["restructured_tables"][union.name])
    disc = dictionary["restructured_columns"][union.discriminator]
    for relation, value in union.parts:
        native = native_file(data_dir, relation)
        columns = native_columns(con, native)
        part = back_to_native(columns, dictionary, merged, f"WHERE \"{disc}\" = '{value}'")
        assert_same_rows(con, f"SELECT * FROM read_parquet('{native}')", part, relation)
    [(others,)] = con.execute(
        f"SELECT count(*) FROM read_parquet('{merged}') WHERE \"{disc}\" NOT IN ('{union.parts[0][1]}', '{union.parts[1][1]}')"
    ).fetchall()
    assert others == 0


def assert_encounters_split_back(data_dir: Path, dictionary: Dictionary) -> None:
    con = duckdb.connect()
    merged = neutral_file(data_dir, "restructured", dictionary["restructured_tables"]["encounters"])
    key = {
        "mimiciv_hosp.patients": "subject_id",
        "mimiciv_hosp.admissions": "hadm_id",
        "mimiciv_icu.icustays": "stay_id",
    }
    for relation, _ in ENCOUNTER_PARTS:
        native = native_file(data_dir, relation)
        columns = native_columns(con, native)
        where = f'WHERE "{dictionary["columns"][key[relation]]}" IS NOT NULL'
        part = "SELECT DISTINCT * FROM (" + back_to_native(columns, dictionary, merged, where) + ")"
        assert_same_rows(con, f"SELECT * FROM read_parquet('{native}')", part, relation)


def test_restructured_encounters_split_back_into_patients_admissions_and_stays(
    data_dir: Path, dictionary: Dictionary
):
    assert_encounters_split_back(data_dir, dictionary)


def test_restructured_encounters_keep_patients_without_an_admission(data_dir: Path, tmp_path: Path):
    root = copy_databases(data_dir, tmp_path / "copy")
    with duckdb.connect(str(root / "mimic_iv.duckdb")) as con:
        con.execute(
            "INSERT INTO mimiciv_hosp.patients SELECT max(subject_id) + 1, 'F', 70, 2150, '2014 - 2016', NULL "
            "FROM mimiciv_hosp.patients"
        )
    prepare(root, "restructured")
    assert_encounters_split_back(root, json.loads(dictionary_path(root, "restructured").read_text()))


def test_restructured_task_database_has_merged_tables_instead_of_their_parts(
    data_dir: Path, dictionary: Dictionary
):
    plan = plan_for(TASKS["mimic-sofa-24h"], data_dir, "restructured")
    exposed = {f"{r.schema}.{r.name}" for r in plan.relations}
    assert set(dictionary["restructured_tables"].values()) <= exposed
    assert not exposed & {dictionary["tables"][r] for r in MERGED_AWAY}


def test_dictionary_is_bijective(dictionary: Dictionary):
    tables = list(dictionary["tables"].values()) + list(dictionary["restructured_tables"].values())
    columns = list(dictionary["columns"].values()) + list(dictionary["restructured_columns"].values())
    for names in (list(dictionary["schemas"].values()), tables, columns):
        assert len(names) == len(set(names))


def test_dictionary_numbers_names_as_m4bench_does(dictionary: Dictionary):
    assert dictionary["schemas"] == {"mimiciv_derived": "ds_1", "mimiciv_hosp": "ds_2", "mimiciv_icu": "ds_3"}
    hosp = sorted(t.split(".", 1)[1] for t in dictionary["tables"] if t.startswith("mimiciv_hosp."))
    assert [dictionary["tables"][f"mimiciv_hosp.{t}"] for t in hosp] == [
        f"ds_2.t_{i:03d}" for i in range(1, len(hosp) + 1)
    ]
    assert list(dictionary["columns"]) == sorted(dictionary["columns"])
    assert dictionary["restructured_tables"]["observations"] == "ds_3.t_901"


def test_dictionary_is_the_same_when_built_again(data_dir: Path, dictionary: Dictionary, tmp_path: Path):
    again = copy_databases(data_dir, tmp_path / "again")
    prepare(again, "obfuscated")
    assert json.loads(dictionary_path(again, "obfuscated").read_text()) == dictionary


def native_names(dictionary: Dictionary) -> set[str]:
    tables = {t.split(".", 1)[1] for t in dictionary["tables"]}
    return (
        set(dictionary["schemas"])
        | tables
        | set(dictionary["columns"])
        | set(dictionary["restructured_tables"])
    )


def test_no_neutral_name_contains_a_native_name(dictionary: Dictionary):
    neutral = set(dictionary["schemas"].values()) | set(dictionary["columns"].values())
    neutral |= {p for t in dictionary["tables"].values() for p in t.split(".")}
    neutral |= {p for t in dictionary["restructured_tables"].values() for p in t.split(".")}
    neutral |= set(dictionary["restructured_columns"].values())
    clashes = [(n, x) for n in neutral for x in native_names(dictionary) if x in n]
    assert clashes == []


@pytest.mark.parametrize("variant", ["obfuscated", "restructured"])
def test_transformed_files_and_their_columns_carry_no_native_name(
    variant: str, data_dir: Path, dictionary: Dictionary
):
    root = data_root(data_dir, variant)
    natives = native_names(dictionary)
    con = duckdb.connect()
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        assert not [x for x in natives if x in rel], rel
        if path.suffix == ".parquet":
            names = [r[0] for r in con.execute(f"SELECT name FROM parquet_schema('{path}')").fetchall()]
            meta = con.execute(
                f"SELECT key::VARCHAR, value::VARCHAR FROM parquet_kv_metadata('{path}')"
            ).fetchall()
            assert all(re.fullmatch(r"c_\d{3}|duckdb_schema", n) for n in names), (rel, names)
            assert meta == [], (rel, meta)


@pytest.mark.parametrize("variant", ["obfuscated", "restructured"])
def test_transformed_task_database_names_nothing_native(
    variant: str, data_dir: Path, dictionary: Dictionary, tmp_path: Path
):
    plan = plan_for(TASKS["mimic-sofa-24h"], data_dir, variant)
    [(mount, _)] = mounts(plan, data_root(data_dir, variant))
    out = tmp_path / "database.duckdb"
    plan_file = plan.write(tmp_path / "plan.json")
    result = subprocess.run(
        [sys.executable, str(SETUP_SCRIPT), str(plan_file), str(mount), str(out)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    with duckdb.connect(str(out), read_only=True) as con:
        text = " ".join(
            " ".join(map(str, row))
            for row in con.execute(
                "SELECT schema_name, table_name, column_name FROM duckdb_columns() "
                "UNION ALL SELECT schema_name, view_name, replace(sql, ?, '') FROM duckdb_views() WHERE NOT internal",
                [str(mount)],
            ).fetchall()
        )
    assert [x for x in native_names(dictionary) if re.search(rf"\b{re.escape(x)}\b", text)] == []
    assert not list(mount.rglob("*.json"))


def test_rewritten_instruction_has_no_mimic_or_native_schema_and_has_the_dictionary(data_dir: Path):
    task = TASKS["mimic-sofa-24h-raw"]
    # our instructions no longer name schemas (the preflight forbids it); M4Bench's do, so plant both
    text = task.instruction + "\nThe MIMIC-IV source tables are in mimiciv_hosp and mimiciv_icu.\n"
    for variant in ("obfuscated", "restructured"):
        rewritten = rewrite_instruction(text, task, variant, data_dir)
        assert "MIMIC-IV" not in rewritten
        assert not re.search(r"mimiciv_(hosp|icu|derived)", rewritten)
        assert "## Schema Dictionary" in rewritten
        assert ("### Restructured Tables" in rewritten) == (variant == "restructured")
        key_rows = rewritten.split("### Key Columns", 1)[1]
        assert all(
            f"`{c}`" in key_rows
            for c in [
                json.loads(dictionary_path(data_dir, variant).read_text())["columns"][k] for k in KEY_COLUMNS
            ]
        )


def test_native_instruction_is_unchanged(data_dir: Path):
    task = TASKS["mimic-sofa-24h"]
    assert rewrite_instruction(task.instruction, task, "native", data_dir) == task.instruction


def test_key_columns_are_m4bench_forty_seven():
    assert len(KEY_COLUMNS) == 47


def test_transformed_plan_refuses_a_variant_older_than_the_native_export(data_dir: Path, tmp_path: Path):
    from m4agent.errors import M4AgentError

    root = copy_databases(data_dir, tmp_path / "copy")
    prepare(root, "obfuscated")
    with duckdb.connect(str(root / "mimic_iv.duckdb")) as con:
        con.execute("DROP TABLE mimiciv_derived.sofa")
    prepare(root, "native")
    with pytest.raises(M4AgentError, match="older than the native export"):
        plan_for(TASKS["mimic-sofa-24h"], root, "obfuscated")
    prepare(root, "obfuscated")
    assert plan_for(TASKS["mimic-sofa-24h"], root, "obfuscated").relations
