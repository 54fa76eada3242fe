"""Deterministic synthetic MIMIC-IV 3.1 (schemas ``mimiciv_hosp`` and ``mimiciv_icu``).

``write_database(path, patients=, seed=)`` builds every official table with
clinically coherent stays drawn from fixed scenarios (septic shock on escalating
vasopressors, intubation, AKI by creatinine, by urine output and on CRRT, liver
failure, elective surgery, short stays, readmissions, missing data families)
and the messy cases of real MIMIC-IV, so every branch of the mimic-code
concepts and of the M4Bench references is exercised.
"""

from m4agent.data.synth.mimic_iv.writer import write_database

__all__ = ["write_database"]
