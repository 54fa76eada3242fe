"""Grading agent outputs with M4Bench's rules, in SQL.

- ``loader``: agent CSVs into schema ``agent_outputs`` (text only, pandas' reading rules);
- ``grade``: one ``dbt build`` of ``models/grading`` for a batch, results and ``result.json``;
- ``expectations``: the strict checks as Great Expectations suites (a second verdict);
- ``pandas_oracle``: the original per-run pandas comparison, restated (tests, benchmark);
- ``perturb``: perturbed copies of an output (tests, benchmark);
- ``cli``: what ``m4agent grade`` prints.
"""
