"""Ordered-value nMAE of one output: how far an agent's numbers are from the reference's, not only
whether they match.

As M4Bench's paper defines it: the ordered columns are a task's value columns except the unordered
ones (``specimen``, ``ventilation_status``) and those with no numeric value in the reference. Each
column's scale is the reference's range (``max - min``; 1 when the range is empty). Over the keys
present in both the reference and the output (the output's first row per key), each value scores
``min(|agent - truth| / scale, 1)``, 0 when both are missing and 1 when one side is; a column the
output lacks scores 1. The run's nMAE is the mean over the ordered columns of the mean per column.
No shared key (or no ordered column) gives no nMAE.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from m4agent.dbt.duckdb_session import quote_identifier, sql_string

UNORDERED_COLUMNS = frozenset({"specimen", "ventilation_status"})


def _read(path: Path) -> str:
    # every column as text, empty cells missing: values are cast explicitly below
    return f"read_csv({sql_string(str(path))}, all_varchar = true, header = true)"


def _key(alias: str, column: str) -> str:
    """A key as one comparable text: numbers as numbers, times as times, else the trimmed text."""
    value = f"{alias}.{quote_identifier(column)}"
    return (f"coalesce(CAST(TRY_CAST({value} AS DOUBLE) AS VARCHAR), "
            f"CAST(TRY_CAST({value} AS TIMESTAMP) AS VARCHAR), trim({value}))")


class TruthColumns:
    """The ordered columns and their scales per task, read once from the reference exports."""

    def __init__(self, truth_dir: Path, tasks_dir: Path | None = None) -> None:
        self.truth_dir = truth_dir
        self.tasks_dir = tasks_dir
        self._scales: dict[str, list[tuple[str, float]]] = {}
        self._con = duckdb.connect()

    def _task(self, name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        from m4agent.registry import TASKS_DIR, load_task

        task = load_task(name, self.tasks_dir or TASKS_DIR)
        return task.key_columns, task.value_columns

    def scales(self, task: str) -> list[tuple[str, float]]:
        """``(column, scale)`` of each ordered column of ``task``."""
        if task not in self._scales:
            _, values = self._task(task)
            truth = self.truth_dir / f"{task}.csv"
            found: list[tuple[str, float]] = []
            if truth.is_file():
                present = {row[0] for row in self._con.execute(f"DESCRIBE SELECT * FROM {_read(truth)}").fetchall()}
                for column in values:
                    if column in UNORDERED_COLUMNS or column not in present:
                        continue
                    cast = f"TRY_CAST({quote_identifier(column)} AS DOUBLE)"
                    count, low, high = self._con.execute(
                        f"SELECT count({cast}), min({cast}), max({cast}) FROM {_read(truth)}").fetchone()
                    if count:
                        found.append((column, float(high - low) if high > low else 1.0))
            self._scales[task] = found
        return self._scales[task]

    def run_nmae(self, task: str, output: Path) -> tuple[float | None, int]:
        """The nMAE of one output and the number of ordered columns it was taken over."""
        scales = self.scales(task)
        truth = self.truth_dir / f"{task}.csv"
        if not scales or not output.is_file():
            return None, 0
        keys, _ = self._task(task)
        try:
            present = {row[0] for row in self._con.execute(f"DESCRIBE SELECT * FROM {_read(output)}").fetchall()}
        except duckdb.Error:
            return None, len(scales)
        if not set(keys) <= present:
            return None, len(scales)
        terms = []
        for column, scale in scales:
            if column not in present:
                terms.append("1.0")
                continue
            a, t = f"TRY_CAST(a.{quote_identifier(column)} AS DOUBLE)", f"TRY_CAST(t.{quote_identifier(column)} AS DOUBLE)"
            terms.append(f"avg(CASE WHEN {a} IS NULL AND {t} IS NULL THEN 0.0 "
                         f"WHEN {a} IS NULL OR {t} IS NULL THEN 1.0 "
                         f"ELSE least(abs({a} - {t}) / {scale!r}, 1.0) END)")
        key_list = ", ".join(quote_identifier(k) for k in keys)
        joined = " AND ".join(f"{_key('t', k)} = {_key('a', k)}" for k in keys)
        query = f"""
            WITH numbered AS (SELECT *, row_number() OVER () AS file_row FROM {_read(output)}),
            first_per_key AS (
                SELECT * FROM numbered
                QUALIFY row_number() OVER (PARTITION BY {key_list} ORDER BY file_row) = 1
            )
            SELECT ({' + '.join(terms)}) / {len(terms)}
            FROM {_read(truth)} AS t JOIN first_per_key AS a ON {joined}
        """
        try:
            value = self._con.execute(query).fetchone()[0]
        except duckdb.Error:
            return None, len(scales)
        return (float(value) if value is not None else None), len(scales)
