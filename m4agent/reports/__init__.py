"""Reports: the paper's estimands, intervals, tables and figures from any set of runs (``m4agent report``).

Modules, each owning one thing: ``run_records`` (runs from an m4agent campaign, a folder of M4Bench
``result.json`` files, or M4Bench's published run tables), ``nmae`` (ordered-value nMAE of one
output), ``resampling`` (bootstraps and the sign-flip test), ``estimands`` (cells, deltas,
comparisons, controls), ``validity`` (completeness, outcomes, integrity), ``tables``, ``figures``,
``page`` (the self-contained HTML), ``report`` (the folder they make together) and ``view``
(``m4agent view``: HTML pages of single runs, what an agent did and how each cell scored).
"""
