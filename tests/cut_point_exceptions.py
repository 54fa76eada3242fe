"""Which reference states each scoring macro's rule, and the cut-points the synthetic generator
does not plant yet (read by tests/test_cut_points.py).

Every macro file of macros/mimiciv with a numeric comparison is in MACRO_REFERENCES (the
reference models whose YAML must state its cut-points) or in NOT_A_SCORE (with why). An entry
of GENERATOR_GAPS names a macro and a number (every comparison with that number in that macro):
the generator writes no value at it or one written step beside it. An entry that stops being
true fails the test, so the table only shrinks.
"""

from __future__ import annotations

MACRO_REFERENCES: dict[str, tuple[str, ...]] = {
    "sofa_organ_scores.sql": ("ref_sofa_24h",),
    "sapsii_component_scores.sql": ("ref_sapsii_24h",),
    "apsiii_points.sql": ("ref_apsiii_24h",),
    "apsiii_first_day_values.sql": ("ref_apsiii_24h",),
    "oasis_points.sql": ("ref_oasis_24h",),
    "meld_score.sql": ("ref_meld_24h",),
    "sirs_criteria.sql": ("ref_sirs_24h",),
    "creatinine_baseline_rule.sql": ("ref_creatinine_baseline",),
    "sepsis3_onset.sql": ("ref_sepsis3",),
    "ventilation_episodes.sql": ("ref_ventilation",),
    "urine_output.sql": ("ref_urine_output_rate",),
    "urine_output_rate.sql": ("ref_urine_output_rate",),
    "kdigo_stage_rules.sql": ("ref_kdigo_48h",),
}

NOT_A_SCORE: dict[str, str] = {
    "lab_panel_by_specimen.sql": "only values > 0 count: mimic-code's cleaning of every lab panel, no score's band",
}

_DERIVED_UO = "no edge case yet: a first-day urine total, the sum of the generator's chartings"
_OASIS_TEMP = "no edge case yet: the planted temperatures (33, 35, 36, 38, 39 C) miss OASIS's fractional bands"

GENERATOR_GAPS: dict[tuple[str, str], str] = {
    ("apsiii_points.sql", "33.5"): "no edge case yet: temperatures are planted at 33.0 and 35.0 C, not 33.5",
    ("apsiii_points.sql", "2000"): _DERIVED_UO,
    ("apsiii_points.sql", "4000"): _DERIVED_UO,
    ("apsiii_points.sql", "7.60"): "no edge case yet: scenario gases straddle it (pH 7.58, 7.62), none on it",
    ("apsiii_first_day_values.sql", "410"): _DERIVED_UO,
    ("oasis_points.sql", "297"): "no edge case yet: pre-ICU stays are drawn from 60-280 minutes for that band",
    ("oasis_points.sql", "18708"): "no edge case yet: pre-ICU stays are drawn in whole days (2-10, 14-19)",
    ("oasis_points.sql", "61.33"): "no edge case yet: MAP is planted at 20.65 and 143.44 but not 61.33",
    ("oasis_points.sql", "33.22"): _OASIS_TEMP,
    ("oasis_points.sql", "35.93"): _OASIS_TEMP,
    ("oasis_points.sql", "36.39"): _OASIS_TEMP,
    ("oasis_points.sql", "39.88"): _OASIS_TEMP,
    ("oasis_points.sql", "671.09"): _DERIVED_UO,
    ("oasis_points.sql", "1426.99"): _DERIVED_UO,
    ("oasis_points.sql", "1427.00"): _DERIVED_UO,
    ("oasis_points.sql", "2544.14"): _DERIVED_UO,
    ("oasis_points.sql", "6896.80"): _DERIVED_UO,
    ("meld_score.sql", "137"): "no edge case yet: sodium is planted at 135 and 145 around MELD's upper clamp",
}
