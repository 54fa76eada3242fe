"""Grading agent outputs with M4Bench's rules, in SQL.

- ``loader``: agent CSVs into schema ``agent_outputs`` (text only, pandas' reading rules);
- ``csv_syntax``, ``run_files``: what of an agent's CSV is read, and how a run's files are opened;
- ``grade``: one ``dbt build`` of ``models/grading`` for a batch, results and ``result.json``, and
  on request every cell's verdict (``cell_verdicts``, for ``m4agent view``);
- ``truth_cache``: the rendered references reused while nothing they depend on changed;
- ``expectations``: the strict checks as Great Expectations suites (a second verdict);
- ``cli``: what ``m4agent grade`` prints.

The pandas restatement of M4Bench's grading and the perturbed outputs the tests and the
benchmark grade live in ``tests/support`` (``pandas_oracle``, ``perturb``).
"""
