"""The malformed-output corpus: every output gets M4Bench's reward and a reason, in one dbt pass.

Every case's verdict is written down: ``tests/fixtures/grading/golden_verdicts.json``
holds what M4Bench's own code gave it (reward, match rates, strict verdict, key
metrics; made by scripts/regenerate_golden.py from a checkout of hannesill/m4), and
each case is checked against it on its own (the regeneration check remakes the
verdicts from a checkout). Scores are also held to ``tests/support/pandas_oracle.py``. The strict verdict of the dbt generic tests, the grading
model and the Great Expectations suites must agree on every output.
"""

from __future__ import annotations

import duckdb
import pytest
from fixtures.grading.corpus import build_corpus
from fixtures.grading.fixture import graded_environment
from support import golden, pandas_oracle

from m4agent.grading.expectations import validate_runs
from m4agent.grading.grade import grade_runs
from m4agent.grading.loader import Run

TOLERANCE = 1e-6


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("grading_corpus")
    data_dir, tasks, truth = graded_environment(root)
    cases = build_corpus(root / "corpus", truth)
    runs = [Run(case, tasks[task], path) for case, task, path in cases]
    results = grade_runs(runs, data_dir)
    return data_dir, tasks, truth, cases, results


def _same(ours: dict, theirs: dict) -> list[str]:
    problems = []
    if abs(ours["reward"] - theirs["reward"]) > TOLERANCE:
        problems.append(f"reward {ours['reward']} != {theirs['reward']}")
    if ours["strict_pass"] != theirs["strict_pass"]:
        problems.append(f"strict {ours['strict_pass']} != {theirs['strict_pass']}")
    if ours["match_rates"].keys() != theirs["match_rates"].keys() or any(
        abs(ours["match_rates"][c] - theirs["match_rates"][c]) > TOLERANCE for c in ours["match_rates"]
    ):
        problems.append(f"rates {ours['match_rates']} != {theirs['match_rates']}")
    for key in ("agent_unique_keys", "extra_keys"):
        if ours[key] != theirs[key]:
            problems.append(f"{key} {ours[key]} != {theirs[key]}")
    if abs(ours["key_precision"] - theirs["key_precision"]) > TOLERANCE:
        problems.append(f"key_precision {ours['key_precision']} != {theirs['key_precision']}")
    return problems


def test_corpus_covers_the_failure_modes(graded):
    _, _, _, cases, results = graded
    assert len(cases) >= 25
    assert set(results) == {case for case, _, _ in cases}
    for case, _, _ in cases:
        result = results[case]
        assert 0.0 <= result["reward"] <= 1.0
        if result["reward"] < 1.0 or not result["strict_pass"]:
            reasons = result["errors"] + [c["detail"] for c in result["checks"] if not c["passed"]]
            explained = result["extra_keys"] or result["duplicate_rows"] or any(
                rate < 1.0 for rate in result["match_rates"].values())
            assert any(reasons) or explained, f"{case}: no reason recorded"


@pytest.mark.parametrize("case, reason", [
    ("missing_file", "output file not found"),
    ("empty_file", "no columns to parse"),
    ("non_utf8_bytes", "not UTF-8"),
    ("ragged_row", "CSV parse error"),
    ("semicolon_delimiter", "missing key columns: stay_id"),
    ("key_name_case", "missing key columns: stay_id"),
    ("key_text_label", "cannot be merged"),
    ("vaso_time_zone", "with time zone"),
    ("vaso_utc_suffix", "time-zone-aware and naive timestamps"),
    ("vaso_space_offset", "time-zone-aware and naive timestamps"),
    ("vaso_space_offset_keys", "with time zone"),
    ("vaso_us_dates_offset", "time-zone-aware and naive timestamps"),
    ("vaso_us_dates_utc_keys", "with time zone"),
])
def test_unreadable_outputs_score_zero_with_reason(graded, case, reason):
    result = graded[4][case]
    assert result["reward"] == 0.0 and not result["strict_pass"]
    assert any(reason in error for error in result["errors"]), result["errors"]


def test_known_outcomes(graded):
    results = graded[4]
    for perfect in ("perfect", "utf8_bom", "crlf_shuffled", "quoted_newlines", "keys_as_float_text",
                    "vaso_perfect", "vaso_iso_t", "vaso_us_dates", "vaso_us_date_keys", "vaso_us_dates_no_seconds",
                    "vaso_year_first_slashes", "vaso_dot_dates", "vaso_month_names", "vaso_month_abbreviation_keys",
                    "vaso_month_names_any_case", "vaso_12_hour_times", "vaso_12_hour_keys",
                    "vaso_month_names_upper_case", "vaso_upper_case_month_keys", "vaso_dot_dates_fractional_seconds",
                    "labels_perfect", "labels_bool_as_int"):
        assert results[perfect]["reward"] == 1.0 and results[perfect]["strict_pass"], perfect
    assert results["header_only"]["checks"][1] == {
        "name": "test_output_is_valid_csv", "passed": False, "detail": "Output CSV is empty"}
    duplicates = results["duplicate_keys"]
    assert duplicates["duplicate_rows"] == 7 and duplicates["agent_unique_keys"] == 40
    fabricated = results["fabricated_keys"]
    assert fabricated["extra_keys"] == 13 and fabricated["key_precision"] == pytest.approx(40 / 53)
    assert results["missing_rows"]["key_recall"] == pytest.approx(30 / 40)
    # day/month/year dates: read month first unless the first value's day is above 12
    assert 0.0 < results["vaso_day_first_ambiguous"]["match_rates"]["endtime"] < 1.0
    assert results["vaso_day_first_dates"]["match_rates"]["endtime"] == pytest.approx(29 / 30)
    day_first_keys = results["vaso_day_first_keys"]
    assert day_first_keys["extra_keys"] == 1 and day_first_keys["key_recall"] == pytest.approx(29 / 30)
    # the same rules for dots and dashes
    assert results["vaso_dot_dates_day_first"]["match_rates"]["endtime"] == pytest.approx(29 / 30)
    dashed_keys = results["vaso_dashed_day_first_keys"]
    assert dashed_keys["extra_keys"] == 1 and dashed_keys["key_recall"] == pytest.approx(29 / 30)
    # a first value in May is read as a full month name ('%B'): the abbreviations after it do not parse,
    # so the column compares as text
    assert results["vaso_month_abbreviations_may_first"]["match_rates"]["endtime"] == 0.0


GOLDEN_VERDICTS = golden.verdicts()


def test_every_corpus_case_has_a_written_verdict(graded):
    cases = graded[3]
    assert {case: task for case, task, _ in cases} == {case: v["task"] for case, v in GOLDEN_VERDICTS.items()}


def _rounded(value: float) -> float:
    """M4Bench's evaluator reports scores rounded to 8 decimals; ours are compared at the same digits."""
    return round(float(value), 8)


@pytest.mark.parametrize("case", sorted(GOLDEN_VERDICTS))
def test_case_reward_is_m4bench_verdict(graded, case):
    expected, result = GOLDEN_VERDICTS[case], graded[4][case]
    assert _rounded(result["reward"]) == expected["reward"]


@pytest.mark.parametrize("case", sorted(GOLDEN_VERDICTS))
def test_case_strict_verdict_is_m4bench_verdict(graded, case):
    assert graded[4][case]["strict_pass"] == GOLDEN_VERDICTS[case]["strict_pass"]


@pytest.mark.parametrize("case", sorted(GOLDEN_VERDICTS))
def test_case_match_rates_and_keys_are_m4bench_verdict(graded, case):
    expected, result = GOLDEN_VERDICTS[case], graded[4][case]
    assert {c: _rounded(r) for c, r in result["match_rates"].items()} == expected["match_rates"]
    assert (result["agent_unique_keys"], result["extra_keys"], _rounded(result["key_precision"])) == (
        expected["agent_unique_keys"], expected["extra_keys"], expected["key_precision"])


def test_scores_equal_the_pandas_oracle(graded):
    _, tasks, truth, cases, results = graded
    mismatches = {}
    for case, task, path in cases:
        expected = pandas_oracle.grade(tasks[task], path, truth[task])
        problems = _same(results[case], expected)
        if problems:
            mismatches[case] = problems
    assert not mismatches


def test_dbt_tests_model_and_expectations_agree(graded):
    data_dir, tasks, _, cases, results = graded
    con = duckdb.connect(str(data_dir / "mimic_iv.duckdb"))
    try:
        model = dict(con.execute("SELECT run_id, strict_pass FROM grading.fct_grading__results").fetchall())
    finally:
        con.close()
    expectations = validate_runs(data_dir, [(case, tasks[task]) for case, task, _ in cases])
    verdicts = {case: (results[case]["strict_pass"], model[case], expectations[case]["passed"])
                for case, _, _ in cases}
    assert {case: v for case, v in verdicts.items() if len(set(v)) > 1} == {}
    assert any(all(v) for v in verdicts.values()) and any(not any(v) for v in verdicts.values())
