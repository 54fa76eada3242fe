"""The data floor: the source databases every later step reads, and nothing above them.

Modules, each owning one thing: ``schema`` (the official MIMIC-IV and eICU table definitions,
the one place the staging layer is generated from), ``synth`` (synthetic databases from fixed
clinical scenarios, with edge cases at every cut-point), ``load`` (PhysioNet CSV folders into
DuckDB, checked against ``schema``) and ``download`` (the open PhysioNet demos, hash-checked, for ``load``).
Nothing here imports from dbt, workspaces, grading, the harness or reports.
"""
