"""A dbt-duckdb plugin pointing dbt's connection at the data directory's databases at run time.

dbt saves its parse of the project and reuses it while the project is unchanged; one thing it
checks is the rendered connection profile (the values of ``path``, ``attach``, ``settings``...).
If ``profiles.yml`` named each data directory's database files, every new data directory would
look like a changed profile and dbt would parse the whole project again (some 40 s). So the
profile names fixed placeholder paths (``m4data/mimic_iv.duckdb``, ``m4data/eicu.duckdb``), the
same for every data directory, and this plugin, listed under the profile's ``plugins``, swaps in
the real paths from ``M4AGENT_MIMIC_DB`` and ``M4AGENT_EICU_DB`` (set by ``m4agent.dbt.runner``)
when dbt opens its connection, after the parse. Without those variables (dbt run by hand) the
placeholders stand, relative to the working directory, as before.

The database's name in SQL (``mimic_iv``, the file's stem) and the attached alias (``eicu``) do
not change, so what dbt parsed stays true for the swapped files.
"""

from __future__ import annotations

import os
from typing import Any

from dbt.adapters.duckdb.plugins import BasePlugin

from m4agent.dbt.duckdb_session import EICU_ALIAS

MIMIC_ENV = "M4AGENT_MIMIC_DB"
EICU_ENV = "M4AGENT_EICU_DB"


class Plugin(BasePlugin):
    """Sets the connection's database path and the eICU attachment's path from the environment."""

    def initialize(self, plugin_config: dict[str, Any]) -> None:
        creds = self.creds
        if creds is None:
            return
        if os.environ.get(MIMIC_ENV):
            creds.path = os.environ[MIMIC_ENV]
        if os.environ.get(EICU_ENV):
            for attachment in creds.attach or []:
                if attachment.alias == EICU_ALIAS:
                    attachment.path = os.environ[EICU_ENV]
