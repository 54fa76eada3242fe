"""The dbt floor: running the dbt project in this process against a data directory's DuckDB files.

Modules, each owning one thing: ``runner`` (``build`` and ``invoke``: dbt's arguments, target
folder and environment for one data directory), ``parse_cache`` (dbt's saved parse, shared by
every data directory while the project is unchanged), ``duckdb_session`` (connections to a data
directory's databases, and quoting for the SQL written around them) and ``duckdb_plugin`` (the
dbt-duckdb plugin named in ``profiles.yml`` that swaps in the data directory's files when dbt
connects). It sits on the data floor and imports nothing from workspaces, grading, the harness
or reports. The package name shadows nothing: ``import dbt`` inside it is still dbt-core.
"""
