"""m4agent: dbt-based references and grading for M4Bench-style clinical agent benchmarks."""

__version__ = "0.1.0"
