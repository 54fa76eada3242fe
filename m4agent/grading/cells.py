"""Every cell of a run's output against its reference, as grading compared them (``m4agent view``).

The model ``fct_grading__cell_verdicts`` applies the rule macros cell by cell; it is built only when
asked for (tag ``grading_cells``), since scoring a batch needs only the counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from m4agent.dbt import duckdb_session
from m4agent.grading.batch import grade_batch_unlocked, require_unique_ids
from m4agent.grading.loader import Run
from m4agent.locking import data_dir_lock


@dataclass(frozen=True)
class CellVerdicts:
    """A run's output against its reference, cell by cell, as grading compared them (``cell_verdicts``).

    ``rows``: up to ``limit`` reference rows, those with a mismatching or missing cell first, then in
    the reference's order; each a list of (column, role, reference's text, agent's text, verdict) in
    the task's column order (verdict None for a key column). ``truth_rows``: all reference rows;
    ``differing_rows``: those with a mismatching or missing cell."""

    rows: list[list[tuple[str, str, str | None, str | None, str | None]]]
    truth_rows: int
    differing_rows: int


_CELL_ROWS = """
WITH verdicts AS (
    SELECT * FROM grading.fct_grading__cell_verdicts WHERE list_contains($runs, run_id)
),

truth_rows AS (
    SELECT run_id, truth_row, bool_or(verdict IN ('mismatch', 'missing')) AS differs
    FROM verdicts
    GROUP BY run_id, truth_row
),

shown AS (
    SELECT
        *,
        row_number() OVER (PARTITION BY run_id ORDER BY differs DESC, truth_row) AS shown_order,
        count(*) OVER (PARTITION BY run_id) AS n_truth_rows,
        count_if(differs) OVER (PARTITION BY run_id) AS n_differing_rows
    FROM truth_rows
)

SELECT verdicts.run_id, shown.shown_order, shown.n_truth_rows, shown.n_differing_rows, verdicts.column_name,
       verdicts.role, verdicts.truth_value, verdicts.agent_value, verdicts.verdict
FROM verdicts
INNER JOIN shown ON verdicts.run_id = shown.run_id AND verdicts.truth_row = shown.truth_row
WHERE shown.shown_order <= $limit
ORDER BY verdicts.run_id, shown.shown_order, verdicts.slot
"""


def _collect_cells(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str], limit: int) -> dict[str, CellVerdicts]:
    """Each run's shown rows of fct_grading__cell_verdicts, read in one query for the batch."""
    rows: dict[str, dict[int, list[tuple[str, str, str | None, str | None, str | None]]]] = {}
    sizes: dict[str, tuple[int, int]] = {}
    for run_id, order, truth_rows, differing, column, role, truth_value, agent_value, verdict in con.execute(
            _CELL_ROWS, {"runs": list(run_ids), "limit": limit}).fetchall():
        rows.setdefault(run_id, {}).setdefault(order, []).append((column, role, truth_value, agent_value, verdict))
        sizes[run_id] = (truth_rows, differing)
    return {run_id: CellVerdicts(rows=list(rows.get(run_id, {}).values()), truth_rows=sizes.get(run_id, (0, 0))[0],
                                 differing_rows=sizes.get(run_id, (0, 0))[1]) for run_id in run_ids}


def cell_verdicts(runs: Sequence[Run], data_dir: Path, limit: int = 300,
                  ) -> tuple[dict[str, dict[str, Any]], dict[str, CellVerdicts]]:
    """Grade the runs in one dbt call with every cell's verdict (model fct_grading__cell_verdicts,
    the rule macros applied cell by cell); their results and, for each run grading could compare,
    its cells (``CellVerdicts``, up to ``limit`` reference rows). For showing an output against its
    reference (``m4agent view``); nothing is written beside the runs."""
    if not runs:
        return {}, {}
    require_unique_ids(runs)
    with data_dir_lock(data_dir):
        results = grade_batch_unlocked(runs, data_dir, expectations=False, cells=True)
        con = duckdb_session.connect(data_dir)
        try:
            return results, _collect_cells(con, [run.run_id for run in runs], limit)
        finally:
            con.close()
