"""Grading agent outputs with M4Bench's rules, in SQL.

- ``loader``: agent CSVs into schema ``agent_outputs`` (text only, pandas' reading rules);
- ``csv_syntax``, ``run_files``: what of an agent's CSV is read, and how a run's files are opened;
- ``batch``: one ``dbt build`` of ``models/grading`` for a batch of runs, its results read back;
- ``grade``: grading runs, telling a run's failure (a zero) from the environment's (raised);
- ``results_tree``: every run folder under a root graded in one pass, each given its ``result.json``;
- ``cells``: every cell's verdict, on request (``cell_verdicts``, for ``m4agent view``);
- ``summary``: failures counted by kind;
- ``truth_cache``: the rendered references reused while nothing they depend on changed;
- ``expectations``: the strict checks as Great Expectations suites (a second verdict);
- ``cli``: what ``m4agent grade`` prints.

The pandas restatement of M4Bench's grading and the perturbed outputs the tests and the
benchmark grade live in ``tests/support`` (``pandas_oracle``, ``perturb``).
"""
