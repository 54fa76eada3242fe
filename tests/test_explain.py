"""`m4agent reference variants` and `m4agent explain` on the harness's synthetic data (issue 44).

One module fixture builds the variants of three families with the CLI (one dbt run) and diagnoses a
corpus of outputs with a known cause in one grading call (tests/support/explain_corpus.py); each test
checks one behaviour of that diagnosis.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from support.explain_corpus import Case, corpus
from support.front_door import cli

from m4agent import campaign_folder, conventions, explain
from m4agent.dbt import duckdb_session
from m4agent.grading.loader import Run
from m4agent.reference_export import render_reference, write_csv
from m4agent.registry import all_tasks

pytestmark = pytest.mark.slow  # a dbt run of the variants and grading calls on the harness's data

TASKS = ("mimic-sofa-24h", "mimic-kdigo-48h", "mimic-vasopressor-equivalents", "mimic-gcs-24h-raw",
         "mimic-suspicion-infection", "mimic-creatinine-baseline", "mimic-urine-output-rate",
         "mimic-sepsis3-raw", "mimic-sapsii-24h", "mimic-charlson-raw",
         "mimic-sirs-24h-raw", "mimic-oasis-24h",
         "mimic-apsiii-24h", "mimic-meld-24h", "mimic-ventilation")
SOFA_COLUMNS = ["subject_id", "hadm_id", "stay_id", "sofa", "respiration", "coagulation", "liver",
                "cardiovascular", "cns", "renal"]


@pytest.fixture(scope="module")
def built(harness_data_dir: Path) -> Path:
    done = cli("reference", "variants", *TASKS, "--data-dir", str(harness_data_dir), timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return harness_data_dir


@pytest.fixture(scope="module")
def diagnosed(built: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Case], dict, Run]:
    """The corpus (every variant planted, alone and with 5 % of rows perturbed; the reference with 5 % and
    20 % perturbed) and mimic-code's first_day_sofa as a SOFA output, diagnosed in one call."""
    folder = tmp_path_factory.mktemp("explain_corpus")
    tasks = [all_tasks()[name] for name in TASKS]
    con = duckdb_session.connect(built, read_only=True)
    try:
        cases = corpus(con, tasks, folder)
        mimic_code = Run("first_day_sofa", tasks[0], write_csv(render_reference(
            con, "mimiciv_derived.first_day_sofa", SOFA_COLUMNS, ["stay_id"]), folder / "first_day_sofa.csv"))
    finally:
        con.close()
    return cases, explain.diagnose([*(case.run for case in cases), mimic_code], built), mimic_code


def _distinguishable(cases: list[Case], diagnoses: dict) -> list[Case]:
    """Planted cases whose reading changes some row of the reference on this data, and where the
    noise left at least one of those rows untouched (evidence of the reading)."""
    found = []
    for case in cases:
        if case.planted is not None and case.evidence:
            reading = next(r for r in diagnoses[case.run.run_id].readings if r.variant.model == case.planted)
            if reading.differs:
                found.append(case)
    return found


def test_variants_are_built_beside_the_reference_with_its_columns(built: Path) -> None:
    con = duckdb.connect(str(built / "mimic_iv.duckdb"), read_only=True)
    try:
        def columns(table: str) -> list[tuple[str, str]]:
            return con.execute("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = "
                               "'reference' AND table_name = ? ORDER BY ordinal_position", [table]).fetchall()

        for name in TASKS:
            reference = all_tasks()[name].reference_model
            for variant in conventions.variants(reference):
                assert columns(variant.model) == columns(reference), variant.model
    finally:
        con.close()


def test_every_family_has_a_reading_that_changes_rows_on_this_data(diagnosed: tuple) -> None:
    cases, diagnoses, _ = diagnosed
    assert {case.run.task.name for case in _distinguishable(cases, diagnoses)} == set(TASKS)


def _named_best(case: Case, diagnoses: dict) -> bool:
    """The planted reading is among the best, and those tied with it give the same rows as it (they
    explain the same rows of this output, and of the planted output alone)."""
    return case.planted in [r.variant.model for r in diagnoses[case.run.run_id].best]


def test_explain_names_the_planted_reading(diagnosed: tuple) -> None:
    cases, diagnoses, _ = diagnosed
    planted = [c for c in _distinguishable(cases, diagnoses) if c.kind == "planted"]
    assert [c.planted for c in planted if not _named_best(c, diagnoses)] == []


def test_explain_names_the_planted_reading_through_noise(diagnosed: tuple) -> None:
    cases, diagnoses, _ = diagnosed
    noisy = [c for c in _distinguishable(cases, diagnoses) if c.kind == "planted+noise"]
    assert [c.run.run_id for c in noisy if not _named_best(c, diagnoses)] == []
    assert all(diagnoses[c.run.run_id].documented.disagreeing > 0 for c in noisy)


def test_readings_named_together_give_the_same_rows(diagnosed: tuple) -> None:
    """Each reading explains its own planted output best, alone unless another gives the same rows."""
    cases, diagnoses, _ = diagnosed
    for case in (c for c in _distinguishable(cases, diagnoses) if c.kind == "planted"):
        best = diagnoses[case.run.run_id].best
        assert all(r.fit.disagreeing == 0 for r in best), case.run.run_id


def test_noise_is_left_unexplained(diagnosed: tuple) -> None:
    cases, diagnoses, _ = diagnosed
    noise = [c for c in cases if c.kind == "noise"]
    summaries = {c.run.run_id: diagnoses[c.run.run_id].summary() for c in noise}
    assert all(summary.startswith(explain.NO_EXPLANATION) for summary in summaries.values()), summaries


def test_mimic_codes_first_day_sofa_is_explained_by_its_null_components(diagnosed: tuple) -> None:
    """An independent implementation (mimic-code's first_day_sofa, which leaves a component without data
    NULL) departs from the reference by that convention; explain names it first."""
    _, diagnoses, mimic_code = diagnosed
    diagnosis = diagnoses[mimic_code.run_id]
    assert diagnosis.explaining[0].variant.model == "ref_sofa_24h__missing_component__left_null"


def test_a_reading_that_changes_no_row_explains_nothing(diagnosed: tuple) -> None:
    cases, diagnoses, _ = diagnosed
    silent = {r.variant.model for c in cases for r in diagnoses[c.run.run_id].readings if r.differs == 0}
    explaining = {r.variant.model for d in diagnoses.values() for r in d.explaining}
    assert silent and not silent & explaining


def test_variant_models_and_declarations_macro_are_generated_from_the_yaml() -> None:
    on_disk = {path: path.read_text() for path in conventions.VARIANTS_DIR.rglob("*") if path.is_file()}
    on_disk[conventions.DECLARATIONS_MACRO] = conventions.DECLARATIONS_MACRO.read_text()
    assert on_disk == conventions.generated_files(), "run `python -m m4agent.conventions` and commit the result"


def test_explain_cli_reads_a_results_tree_and_skips_what_no_run_json_names(built: Path, tmp_path: Path) -> None:
    task = all_tasks()["mimic-vasopressor-equivalents"]
    variant = "ref_vasopressor_equivalents__vasopressin_units__per_minute"
    con = duckdb_session.connect(built, read_only=True)
    try:
        rows = render_reference(con, f'"reference"."{variant}"', task.required_columns, task.key_columns)
    finally:
        con.close()
    run = tmp_path / "tree" / "run1"
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({"task": task.name}))
    write_csv(rows, run / "output.csv")
    (tmp_path / "tree" / "orphan").mkdir()
    write_csv(rows, tmp_path / "tree" / "orphan" / "output.csv")
    done = cli("explain", str(tmp_path / "tree"), "--data-dir", str(built), "--json", timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert [(r["run_id"], r["explained_by"][:1]) for r in records] == [("run1", [variant])]
    assert "skipped" in done.stderr and "orphan" in done.stderr


# A shell agent's own SQL on its workspace: the norepinephrine-equivalent dose with vasopressin read
# in units/minute (x 2.5, not x 2.5 / 60). It also leaves a decoy run folder in its workspace naming
# another task, which explain must never read as a run (the discovery rule).
PER_MINUTE_AGENT = """python3 - <<'PY'
import duckdb, json, os
con = duckdb.connect('database.duckdb', read_only=True)
con.sql('''SELECT stay_id, starttime, endtime, MAX(ROUND(CAST(COALESCE(norepinephrine, 0) + COALESCE(epinephrine, 0)
           + COALESCE(phenylephrine / 10, 0) + COALESCE(dopamine / 100, 0) + COALESCE(vasopressin * 2.5, 0)
           AS DECIMAL(18, 3)), 4)) AS norepinephrine_equivalent_dose
           FROM mimiciv_derived.vasoactive_agent
           WHERE COALESCE(norepinephrine, epinephrine, phenylephrine, dopamine, vasopressin) IS NOT NULL
           GROUP BY stay_id, starttime, endtime ORDER BY stay_id, starttime''').write_csv('output.csv')
os.makedirs('decoy', exist_ok=True)
json.dump({'task': 'mimic-sofa-24h'}, open('decoy/run.json', 'w'))
open('decoy/output.csv', 'w').write('stay_id,sofa\\n1,99\\n')
PY
"""


@pytest.mark.docker
def test_an_oracle_versus_shell_campaign_shows_each_runs_diagnosis_in_view_and_report(
        engine: object, built: Path, tmp_path: Path) -> None:
    from support.harness import write_matrix

    from m4agent.harness import campaign
    from m4agent.registry import TASKS_DIR

    script = tmp_path / "agent.sh"
    script.write_text(PER_MINUTE_AGENT)
    matrix = write_matrix(tmp_path / "matrix.toml", f"""
[campaign]
tasks = ["mimic-vasopressor-equivalents"]
conditions = ["no-skill", "with-skill"]

[[agents]]
name = "shell"
options = {{ script = "{script}" }}

[[agents]]
name = "oracle"
""")
    campaign_dir = tmp_path / "campaign"
    campaign.plan(matrix, campaign_dir, tasks_dir=TASKS_DIR)
    campaign.run(campaign_dir, built, run_canary=False)
    assert list(campaign_dir.glob("runs/*/*/attempts/*/workspace/decoy/run.json")), "the decoy was not kept"
    done = cli("explain", str(campaign_dir), "--json", timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    found = sorted((r["condition"], r["explained_by"][:1])
                   for r in map(json.loads, filter(str.strip, done.stdout.splitlines())))
    unit = "ref_vasopressor_equivalents__vasopressin_units__per_minute"
    assert found == [("no-skill", []), ("no-skill", [unit]), ("with-skill", []),
                     ("with-skill", [unit])]  # the oracle matches the documented reading; the shell departs
    saved = explain.saved(campaign_dir)
    assert sorted(r["agent"] for r in saved.values()) == ["oracle/default"] * 2 + ["shell/default"] * 2

    report_dir = tmp_path / "report"
    assert cli("report", str(campaign_dir), "--out", str(report_dir), timeout=600).returncode == 0
    rows = json.loads((report_dir / "report.json").read_text())["departures"]
    shell = [(r["condition"], r["reading"], r["runs_best"]) for r in rows if r["agent"] == "shell/default"]
    assert shell == [("no-skill", unit, 1), ("with-skill", unit, 1)]
    dom = _dom(report_dir / "report.html")
    assert "Conventions the runs departed from (m4agent explain)" in dom and "units/minute" in dom
    assert (report_dir / "figures" / "departures.png").is_file()

    shell_run = next(campaign_folder.run_folder(campaign_dir, spec) for spec in campaign_folder.planned_runs(campaign_dir)
                     if spec.agent == "shell" and spec.condition == "no-skill")
    assert cli("view", str(shell_run), timeout=600).returncode == 0
    page = _dom(shell_run / "view.html")
    assert "Why it missed" in page and "matches the reference with" in page and "units/minute" in page


def _dom(page: Path) -> str:
    """The page as headless Chromium renders it (its DOM after load)."""
    import shutil
    import subprocess

    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)),
                   None)
    assert browser, "no headless Chromium: `apt-get install -y chromium`"
    return subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120).stdout