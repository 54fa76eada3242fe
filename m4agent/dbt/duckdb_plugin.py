"""A dbt-duckdb plugin pointing dbt's connection at the data directory's databases at run time.

dbt saves its parse of the project and reuses it while the project is unchanged; one thing it
checks is the rendered connection profile (the values of ``path``, ``attach``, ``settings``...).
If ``profiles.yml`` named each data directory's database files, every new data directory would
look like a changed profile and dbt would parse the whole project again (some 40 s). So the
profile names fixed placeholder paths (``m4data/mimic_iv.duckdb``, ``m4data/eicu.duckdb``), the
same for every data directory, and this plugin, listed under the profile's ``plugins``, swaps in
the real paths when dbt opens its connection, after the parse: those ``m4agent.dbt.runner`` gives
the dbt call in progress (``databases``; dbt runs in this process, one call at a time), or, for dbt
run by hand, ``$M4AGENT_MIMIC_DB`` and ``$M4AGENT_EICU_DB``. Without either the placeholders stand,
relative to the working directory.

The database's name in SQL (``mimic_iv``, the file's stem) and the attached alias (``eicu``) do
not change, so what dbt parsed stays true for the swapped files.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dbt.adapters.duckdb.plugins import BasePlugin

from m4agent.dbt.duckdb_session import EICU_ALIAS

MIMIC_ENV = "M4AGENT_MIMIC_DB"
EICU_ENV = "M4AGENT_EICU_DB"
_given: dict[str, str] = {}  # the databases of the dbt call in progress (``databases``)


@contextmanager
def databases(mimic: Path, eicu: Path) -> Iterator[None]:
    """The data directory's databases for the dbt call made inside (``runner`` makes one at a time)."""
    _given.update({MIMIC_ENV: str(mimic), EICU_ENV: str(eicu)})
    try:
        yield
    finally:
        _given.clear()


def _path(name: str) -> str | None:
    return _given.get(name) or os.environ.get(name)


class Plugin(BasePlugin):
    """Sets the connection's database path and the eICU attachment's path (``databases``)."""

    def initialize(self, plugin_config: dict[str, Any]) -> None:
        creds = self.creds
        if creds is None:
            return
        mimic, eicu = _path(MIMIC_ENV), _path(EICU_ENV)
        if mimic:
            creds.path = mimic
        if eicu:
            for attachment in creds.attach or []:
                if attachment.alias == EICU_ALIAS:
                    attachment.path = eicu
