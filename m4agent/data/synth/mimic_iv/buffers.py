"""Column buffers that collect generated rows and append them to DuckDB tables.

A generator adds blocks of rows (numpy arrays or scalars per column); columns a
block does not mention are NULL. Times travel as int64 microseconds since the
epoch and become ``TIMESTAMP``/``DATE`` inside DuckDB, so no Python datetime
objects are created for the millions of chart rows.
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from m4agent.data.schema import Table

_INT_TYPES = {"INTEGER", "SMALLINT", "BIGINT"}
_FLOAT_TYPES = {"DOUBLE", "FLOAT"}
_TIME_TYPES = {"TIMESTAMP", "DATE"}

# numeric chart/lab values are written as text the way MIMIC does: integers without ".0"
_VALUE_FROM_NUM = (
    "COALESCE(value, CASE WHEN valuenum = TRUNC(valuenum) "
    "THEN CAST(CAST(valuenum AS BIGINT) AS VARCHAR) "
    "ELSE CAST(ROUND(valuenum, 2) AS VARCHAR) END)"
)


_ARROW_INT = {"INTEGER": pa.int32(), "SMALLINT": pa.int16(), "BIGINT": pa.int64()}


def _scalar(v: Any) -> Any:
    """A one-row block may carry length-1 arrays; unwrap them."""
    return v.reshape(-1)[0] if isinstance(v, np.ndarray) else v


def _kind(duck_type: str) -> str:
    if duck_type in _INT_TYPES:
        return "int"
    if duck_type in _FLOAT_TYPES:
        return "float"
    if duck_type in _TIME_TYPES:
        return "time"
    return "str"


class TableBuffer:
    """Rows for one official table, accumulated as column blocks."""

    def __init__(self, table: Table, value_from_valuenum: bool = False) -> None:
        self.table = table
        self.kinds = {c.name: _kind(c.type) for c in table.columns}
        self.types = {c.name: c.type for c in table.columns}
        self.value_from_valuenum = value_from_valuenum
        self.blocks: list[tuple[int, dict[str, Any]]] = []
        self.singles: list[dict[str, Any]] = []
        self.rows = 0

    def add(self, n: int, **cols: Any) -> None:
        if n <= 0:
            return
        unknown = set(cols) - set(self.kinds)
        if unknown:
            raise KeyError(f"{self.table.qualified} has no column(s) {sorted(unknown)}")
        if n == 1:  # single rows are gathered as Python values and become one block at flush
            self.singles.append(cols)
        else:
            self.blocks.append((n, cols))
        self.rows += n

    def _gather_singles(self) -> None:
        if not self.singles:
            return
        names = [c for c in self.kinds if any(c in row for row in self.singles)]
        block: dict[str, Any] = {}
        for name in names:
            values = [_scalar(row.get(name)) for row in self.singles]
            if self.kinds[name] == "str":
                block[name] = np.array(values, dtype=object)
            else:  # numbers and microsecond times are exact in float64 (below 2**53)
                block[name] = np.array([np.nan if v is None else v for v in values], dtype=float)
        self.blocks.append((len(self.singles), block))
        self.singles = []

    def _column(self, name: str) -> pa.Array:
        """One column over all blocks; NaN (floats) and None (text) are NULL, as is an absent block value.

        Integer and time columns accept a float array with NaN where the value is NULL.
        """
        kind = self.kinds[name]
        total = self.rows
        if kind == "str":
            out = np.full(total, None, dtype=object)
        elif kind == "float":
            out = np.full(total, np.nan)
        else:
            out = np.zeros(total, dtype=np.int64)
            valid = np.zeros(total, dtype=bool)
        pos = 0
        for n, cols in self.blocks:
            v = cols.get(name)
            if v is not None:
                if kind in ("int", "time"):
                    if isinstance(v, np.ndarray) and v.dtype.kind == "f":
                        ok = ~np.isnan(v)
                        out[pos:pos + n] = np.where(ok, v, 0).astype(np.int64)
                        valid[pos:pos + n] = ok
                    else:
                        out[pos:pos + n] = v
                        valid[pos:pos + n] = True
                else:
                    out[pos:pos + n] = v
            pos += n
        if kind == "str":
            return pa.array(out, type=pa.string(), from_pandas=True)
        if kind == "float":
            return pa.array(out, type=pa.float64(), from_pandas=True)
        arr = pa.array(out, mask=~valid, type=pa.int64())
        duck_type = self.types[name]
        if duck_type == "TIMESTAMP":
            # MIMIC times have whole seconds: floor the generated microseconds.
            whole = (out // 1_000_000) * 1_000_000
            return pa.array(whole, mask=~valid, type=pa.int64()).cast(pa.timestamp("us"))
        if duck_type == "DATE":
            return pa.array(out // 86_400_000_000, mask=~valid, type=pa.int32()).cast(pa.date32())
        return arr.cast(_ARROW_INT[duck_type])

    def flush(self, con: duckdb.DuckDBPyConnection) -> int:
        """Append the buffered rows to the table and empty the buffer."""
        if not self.rows:
            return 0
        self._gather_singles()
        present = [c.name for c in self.table.columns if any(c.name in cols for _, cols in self.blocks)]
        arrow = pa.table({name: self._column(name) for name in present})
        exprs = []
        for col in self.table.columns:
            if col.name == "value" and self.value_from_valuenum and "valuenum" in present:
                fmt = _VALUE_FROM_NUM if "value" in present else _VALUE_FROM_NUM.replace("COALESCE(value, ", "(")
                exprs.append(fmt)
            elif col.name not in present:
                exprs.append(f"CAST(NULL AS {col.type})")
            else:
                exprs.append(f'"{col.name}"')
        con.register("synth_block", arrow)
        try:
            con.execute(f"INSERT INTO {self.table.qualified} SELECT {', '.join(exprs)} FROM synth_block")
        finally:
            con.unregister("synth_block")
        written = self.rows
        self.blocks.clear()
        self.rows = 0
        return written
