"""Facts of the original M4Bench repository that the tests need, committed as data.

A clean clone has no checkout of ``hannesill/m4``, so every fact a test takes from
it is written once, from a checkout, by ``scripts/regenerate_golden.py`` and
committed under ``tests/fixtures/golden/``; the tests read the committed facts
and run everywhere, and the one regeneration check
(``tests/test_golden_regeneration.py``) remakes them from a checkout and diffs.
Facts only, never the original's code or prose: values, names, tolerances,
SHA-256 digests.

- ``original_facts.json``:
  ``tasks``: each original ``task.toml`` as our registry loads it (evaluation
  fields, mode, dataset, reference, dropped tables); ``instruction_lines``: per
  task, the length and SHA-256 of each sentence-length line of the original's
  ``instruction.md`` (lower-cased, whitespace collapsed), so a test can find a
  copied line without the prose; ``urine_cellpaths``: the urine cell paths,
  patterns and exclusions of ``benchmark/ground_truth/oasis.sql``;
  ``m4bench_tree``: what our harness does with the original's ``benchmark/tasks``
  (which tasks get an operational specification, the preflight's findings, the
  skills placed per condition with their digests).
- ``eicu/<dataset>/<task>.csv.gz``: the original's ground truth of the two eICU
  tasks on the synthetic eICU data sets of ``EICU_DATASETS`` (the odd-rows set has
  the rows of :mod:`support.eicu_odd_rows` planted).
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from pathlib import Path

from support.golden import GOLDEN

FACTS = GOLDEN / "original_facts.json"
EICU_TRUTH = GOLDEN / "eicu"

# label -> (seed, odd rows planted); every set has EICU_PATIENTS patients
EICU_DATASETS: dict[str, tuple[int, bool]] = {"seed3": (3, False), "seed11": (11, False), "odd5": (5, True)}
EICU_PATIENTS = 150
EICU_TASKS = ("eicu-gcs", "eicu-oasis")

TASK_FIELDS = ("key_columns", "value_columns", "required_columns", "row_coverage_threshold",
               "accuracy_threshold", "tolerance", "mode", "dataset", "drop_tables", "reference",
               "reference_model", "family", "scored_columns")

# An instruction line shorter than this, or a plain list of names, is a fact rather than prose.
PROSE_MIN_CHARS = 40
_PLAIN_LIST = re.compile(r"^([\w-]+, *)+[\w-]+,?\.?$")


# -- reading (every test) ---------------------------------------------------------------------

@cache
def facts() -> dict:
    """The committed facts (see the module docstring)."""
    return json.loads(FACTS.read_text())


def original_tasks() -> dict[str, dict]:
    """Original task name -> its fields as our registry loads them (lists where the Task has tuples)."""
    return facts()["tasks"]


def task_fields(task: object) -> dict:
    """The fields of a loaded Task in the committed facts' form (JSON: lists, sorted dicts)."""
    out = {}
    for field in TASK_FIELDS:
        value = getattr(task, field)
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, dict):
            value = {k: value[k] for k in sorted(value)}
        out[field] = value
    return out


def normalised(line: str) -> str:
    """A line as the instruction check compares it: whitespace collapsed, lower case."""
    return " ".join(line.split()).lower()


def is_prose(line: str) -> bool:
    """True for a normalised line long enough to be a sentence and not a plain list of names."""
    return len(line) >= PROSE_MIN_CHARS and not _PLAIN_LIST.match(line)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def copied_lines(ours: str, line_digests: list[list]) -> list[str]:
    """Digests of the original's lines that occur verbatim in ``ours`` (normalised first)."""
    text = normalised(ours)
    found = []
    by_length: dict[int, set[str]] = {}
    for length, line_digest in line_digests:
        by_length.setdefault(int(length), set()).add(line_digest)
    for length, wanted in by_length.items():
        windows = {digest(text[i:i + length]) for i in range(len(text) - length + 1)}
        found.extend(sorted(wanted & windows))
    return found


def eicu_truth_rows(label: str, task_name: str) -> list[list[str]]:
    """The original's ground truth of an eICU task on the data set ``label`` (header first)."""
    import csv
    import gzip
    import io

    text = gzip.decompress((EICU_TRUTH / label / f"{task_name}.csv.gz").read_bytes()).decode("utf-8")
    return [list(row) for row in csv.reader(io.StringIO(text))]


# -- making (scripts/regenerate_golden.py, with a checkout) -------------------------------------

def make_facts(work: Path) -> dict:
    """Every fact of ``original_facts.json``, read from the checkout named by $M4_ORIGINAL_REPO."""
    import original_ground_truth as original

    from m4agent.registry import load_task
    from support.task_tree import m4bench_task_tree

    tasks, lines = {}, {}
    for name, path in sorted(original.original_task_paths().items()):
        family = Path(path).parent.parent.name
        root = work / "tasks" / name  # one tree per task: the registry caches what a tree holds
        (root / family / name).mkdir(parents=True)
        (root / family / name / "task.toml").write_text(original.original_file(path))
        tasks[name] = task_fields(load_task(name, tasks_dir=root))
        instruction = original.original_file(path.removesuffix("task.toml") + "instruction.md")
        prose = sorted({normalised(line) for line in instruction.splitlines()} - {""})
        lines[name] = [[len(line), digest(line)] for line in prose if is_prose(line)]
    tree = m4bench_task_tree(work / "tree")
    assert tree is not None
    return {"tasks": tasks, "instruction_lines": lines,
            "urine_cellpaths": urine_cellpaths(original.original_file("benchmark/ground_truth/oasis.sql")),
            "m4bench_tree": m4bench_tree_facts(tree, work / "placed")}


def urine_cellpaths(sql: str) -> dict[str, list]:
    """The urine cell paths (exact), patterns (LIKE/ILIKE) and excluded substrings of oasis.sql."""
    start = sql.index("WHEN cellpath IN (")
    end = sql.index(") THEN 1", start)
    exact = {value.replace("''", "'") for value in re.findall(r"'((?:[^']|'')*)'", sql[start:end])}
    patterns = set(re.findall(r"cellpath (I?LIKE) '([^']*)'", sql[end:]))
    excluded = set(re.findall(r"LOWER\(cellpath\) NOT LIKE '%([a-z]+)%'", sql))
    return {"exact": sorted(exact), "patterns": sorted([list(p) for p in patterns]),
            "excluded_substrings": sorted(excluded)}


def _files(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()} if folder.exists() else {}


def m4bench_tree_facts(tree: Path, scratch: Path) -> dict:
    """What our harness makes of M4Bench's own task tree: the tasks it loads, which get an
    operational specification (built, ending with the task's specification), instructions with a
    placeholder left unrendered, the preflight's findings, and the skills placed per condition
    (each file's digest; ``placed_not_as_source`` lists any task whose placed files differ from
    its own, ``with_skill_all`` is what one task gets under ``with-skill-all`` and
    ``with_skill_all_not_the_first_copy`` where that is not M4Bench's first folder of each name in
    sorted path order), the skill names whose copies differ against our conflict finder, and
    tasks that get files under a condition without skills)."""
    from m4agent.errors import M4AgentError
    from m4agent.harness.conditions import get_condition, place_skills, skill_name_conflicts
    from m4agent.harness.instructions import build_instruction
    from m4agent.registry import all_tasks
    from m4agent.skills.preflight import lint_tree

    tasks = all_tasks(tree)
    built, refused, unrendered = [], [], []
    for name, task in sorted(tasks.items()):
        try:
            text = build_instruction(task, "operational-spec")
        except M4AgentError:
            refused.append(name)
        else:
            ends_with_spec = text.rstrip().endswith(task.operational_spec.read_text().strip())
            built.append(name if ends_with_spec else f"{name} (does not end with its specification)")
        plain = build_instruction(task, "no-skill")
        if "./output.csv" not in plain or re.search(r"\{\w+\}", plain):
            unrendered.append(name)
    skills: dict[str, dict[str, dict[str, str]]] = {}
    differing = []
    for condition in ("with-skill", "with-skill-decoy", "with-skill-rawsql"):
        skills[condition] = {}
        for name, task in sorted(tasks.items()):
            dest = scratch / condition / name
            place_skills(task, condition, tasks, dest)
            placed = _files(dest)
            if placed != _files(task.folder / get_condition(condition).skills_folder):
                differing.append(f"{condition}/{name}")
            skills[condition][name] = placed
    every = scratch / "with-skill-all"
    place_skills(tasks["mimic-sofa-24h"], "with-skill-all", tasks, every)
    first: dict[str, Path] = {}  # M4Bench keeps the first folder of each name, in sorted path order
    copies: dict[str, set[bytes]] = {}
    for task in sorted(tasks.values(), key=lambda t: t.folder):
        for skill in task.skills_dir.iterdir():
            first.setdefault(skill.name, skill)
            copies.setdefault(skill.name, set()).add((skill / "SKILL.md").read_bytes())
    expected_all = {f"{name}/{rel}": digest for name, folder in first.items() for rel, digest in _files(folder).items()}
    placing_something = [f"{condition}/{name}" for name, task in sorted(tasks.items())
                         for condition in ("no-skill", "operational-spec")
                         if place_skills(task, condition, tasks, scratch / "none" / condition / name)]
    return {
        "tasks": sorted(tasks),
        "operational_spec_built": built,
        "operational_spec_refused": refused,
        "instructions_with_unrendered_placeholders": unrendered,
        "preflight_findings": [str(f).replace(str(tree), "benchmark/tasks") for f in lint_tree(tree)],
        "skills": skills,
        "placed_not_as_source": differing,
        "with_skill_all": _files(every),
        "with_skill_all_not_the_first_copy": sorted(set(_files(every).items()) ^ set(expected_all.items())),
        "skill_names_with_differing_copies": sorted(name for name, versions in copies.items() if len(versions) > 1),
        "skill_name_conflicts": sorted(skill_name_conflicts(tasks)),
        "conditions_without_skills_placing_files": placing_something,
    }


def write_eicu_truths(work: Path, out: Path) -> None:
    """The original's ground truth of both eICU tasks on each of EICU_DATASETS, under ``out/<label>``."""
    import gzip
    import io

    import original_ground_truth as original

    from m4agent.data.synth import synthesize
    from support.eicu_odd_rows import plant_odd_rows

    for label, (seed, odd) in EICU_DATASETS.items():
        db = synthesize("eicu", work / label, patients=EICU_PATIENTS, seed=seed)
        if odd:
            plant_odd_rows(db, seed)
        (out / label).mkdir(parents=True, exist_ok=True)
        for task_name in EICU_TASKS:
            csv_path = work / label / f"{task_name}.csv"
            original.run_ground_truth(db, original.ground_truth_alias(task_name), task_name, csv_path)
            buffer = io.BytesIO()
            with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="", compresslevel=9) as handle:
                handle.write(csv_path.read_bytes())
            (out / label / f"{task_name}.csv.gz").write_bytes(buffer.getvalue())
