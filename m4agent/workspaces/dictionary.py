"""The renaming dictionary of the transformed MIMIC-IV variants (M4Bench's scheme).

Deterministic and bijective, computed from the native export alone:

- schemas, sorted by native name, become ``ds_1``, ``ds_2``, ... (``mimiciv_derived`` ->
  ``ds_1``, ``mimiciv_hosp`` -> ``ds_2``, ``mimiciv_icu`` -> ``ds_3``);
- tables, sorted by name within their schema, become ``<ds>.t_001``, ``t_002``, ...;
- columns get one global mapping: every distinct native column name, sorted, becomes
  ``c_001``, ``c_002``, ... (the same native column is the same neutral column in every
  table, as in M4Bench);
- the restructured variant's merged tables and discriminator columns are numbered from
  901 (``observations`` -> ``<icu>.t_901``, ``encounters`` -> ``<hosp>.t_901``, ``flows`` ->
  ``<icu>.t_902``, ``item_reference`` -> ``<icu>.t_903``; ``source`` -> ``c_901``,
  ``direction`` -> ``c_902``, ``item_type`` -> ``c_903``), and building refuses data whose
  ordinary numbering would reach 901.

The dictionary is saved as ``DIR/workspaces/<variant>/dictionary.json`` on the host and is
never mounted: it is the key to the obfuscation.
"""

from __future__ import annotations

from typing import Any

from m4agent.errors import M4AgentError

MIMIC_SCHEMAS = ("mimiciv_derived", "mimiciv_hosp", "mimiciv_icu")
MERGED_START = 901

# merged table -> the native schema whose neutral schema holds it, in numbering order
MERGED_TABLES = (
    ("observations", "mimiciv_icu"),
    ("encounters", "mimiciv_hosp"),
    ("flows", "mimiciv_icu"),
    ("item_reference", "mimiciv_icu"),
)
DISCRIMINATORS = ("source", "direction", "item_type")

Dictionary = dict[str, Any]


def build_dictionary(columns_by_relation: dict[str, list[str]]) -> Dictionary:
    """The dictionary of the native MIMIC-IV relations (``schema.table`` -> its column names)."""
    tables_by_schema: dict[str, list[str]] = {schema: [] for schema in MIMIC_SCHEMAS}
    for relation in columns_by_relation:
        schema, table = relation.split(".", 1)
        if schema not in tables_by_schema:
            raise ValueError(f"{relation} is not in a MIMIC-IV schema")
        tables_by_schema[schema].append(table)
    empty = [schema for schema, names in tables_by_schema.items() if not names]
    if empty:
        raise M4AgentError(
            f"schema {', '.join(empty)} is empty; run `m4agent reference build` before preparing "
            "the obfuscated or restructured variant"
        )
    schema_map = {schema: f"ds_{i}" for i, schema in enumerate(sorted(tables_by_schema), 1)}
    table_map: dict[str, str] = {}
    for schema in sorted(tables_by_schema):
        for j, table in enumerate(sorted(tables_by_schema[schema]), 1):
            table_map[f"{schema}.{table}"] = f"{schema_map[schema]}.t_{j:03d}"
    names = sorted({name for cols in columns_by_relation.values() for name in cols})
    column_map = {name: f"c_{k:03d}" for k, name in enumerate(names, 1)}
    if len(names) >= MERGED_START or any(len(t) >= MERGED_START for t in tables_by_schema.values()):
        raise M4AgentError(
            f"{len(names)} distinct columns: the neutral numbering would collide with the merged "
            f"names from {MERGED_START}; this data is larger than the dictionary scheme allows"
        )
    counters: dict[str, int] = {}
    merged: dict[str, str] = {}
    for name, schema in MERGED_TABLES:
        counters[schema] = counters.get(schema, MERGED_START - 1) + 1
        merged[name] = f"{schema_map[schema]}.t_{counters[schema]:03d}"
    dictionary: Dictionary = {
        "schemas": schema_map,
        "tables": table_map,
        "columns": column_map,
        "restructured_tables": merged,
        "restructured_columns": {name: f"c_{MERGED_START + i:03d}" for i, name in enumerate(DISCRIMINATORS)},
    }
    check_bijective(dictionary)
    return dictionary


def check_bijective(dictionary: Dictionary) -> None:
    """Raise when two native names share a neutral name (within schemas, tables, columns)."""
    tables = {
        **dictionary["tables"],
        **{f"merged:{k}": v for k, v in dictionary["restructured_tables"].items()},
    }
    columns = {
        **dictionary["columns"],
        **{f"merged:{k}": v for k, v in dictionary["restructured_columns"].items()},
    }
    for section, mapping in (("schemas", dictionary["schemas"]), ("tables", tables), ("columns", columns)):
        values = list(mapping.values())
        if len(values) != len(set(values)):
            raise ValueError(f"the dictionary's {section} are not bijective")


def neutral_table(dictionary: Dictionary, relation: str) -> tuple[str, str]:
    """``(neutral schema, neutral table)`` of a native ``schema.table``."""
    try:
        schema, table = dictionary["tables"][relation].split(".")
    except KeyError:
        raise M4AgentError(f"{relation} is not in the schema dictionary") from None
    return schema, table


def merged_table(dictionary: Dictionary, name: str) -> tuple[str, str]:
    """``(neutral schema, neutral table)`` of a restructured merged table."""
    schema, table = dictionary["restructured_tables"][name].split(".")
    return schema, table
