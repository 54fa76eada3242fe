"""Every cut-point of the scoring macros is stated by its reference and planted by the generator
(issue 42: each clinical rule stated once, and the other places held to it).

A cut-point is read from the macro (tests/support/cut_points.py: a number compared with
``<``, ``<=``, ``>``, ``>=`` or ``BETWEEN`` in a macro file of macros/mimiciv, named after the
column or branch it is compared with). The macro is the rule the reference computes; the two
other places must follow it:

- **Stated.** The number is written in the stated rule of each reference that uses the macro
  (tests/cut_point_exceptions.py MACRO_REFERENCES): the model's description, its columns'
  descriptions and ``config.meta.skill`` of models/marts/reference/<ref>.yml, not its unit
  tests. Numbers are compared as numbers (12 states 12.0). The check is by number, not by
  sentence: it fails when a cut-point moves in the macro and not in the prose, or is dropped
  from the prose, but it cannot see a number stated for the wrong variable.
- **Planted.** The generator's Python code (every module of m4agent/data/synth/mimic_iv/, read
  with ``ast``; numbers inside strings do not count) holds a numeric constant at the cut-point
  or one step of its written precision below or above it (150: 149, 150 or 151; 1.2: 1.1, 1.2
  or 1.3; 20.65: 20.64, 20.65 or 20.66): a value on each side of the comparison is then one
  step away from a planted one. The check is by number across the whole package, not by item,
  so a common number (100) is found whatever the generator uses it for; it fails for the
  fractional and unusual cut-points when the generator has nothing near them. The gaps are
  listed in GENERATOR_GAPS, each with its reason.

A reference's own SQL (models/marts/reference/ref_*.sql and its macros/references/m4_reference_*.sql:
eICU OASIS keeps eicu-code's bands there) is held to the same statement; the eICU generator plants
its cut-points as charted text (data/synth/eicu_edge_cases.py), which this check does not read.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache

import pytest
from cut_point_exceptions import GENERATOR_GAPS, MACRO_REFERENCES, NOT_A_SCORE
from support.cut_points import (
    MACROS,
    REFERENCES,
    ROOT,
    CutPoint,
    generator_numbers,
    macro_cut_points,
    neighbours,
    numbers_in_text,
    stated_rule,
)

from m4agent.skills import rawsql

CUT_POINTS: list[CutPoint] = [cut for name in MACRO_REFERENCES for cut in macro_cut_points(MACROS / name)]
GENERATOR = generator_numbers()


@cache
def _stated(reference: str) -> set[Decimal]:
    return numbers_in_text(stated_rule(reference))


@pytest.mark.parametrize(
    ("cut", "reference"),
    [(cut, ref) for cut in CUT_POINTS for ref in MACRO_REFERENCES[cut.macro_file]],
    ids=lambda x: x.label if isinstance(x, CutPoint) else f"in-{x}.yml",
)
def test_cut_point_is_stated_by_the_reference(cut: CutPoint, reference: str) -> None:
    assert cut.value in _stated(reference), (
        f"{cut.macro_file} compares {cut.name} {cut.op} {cut.number}, but {reference}.yml's description, column "
        f"descriptions and meta.skill never write {cut.number}: state the macro's rule there "
        "(then `m4agent tasks skills`)")


def _reference_of(sql_file: str) -> str:
    """ref_x.sql and macros/references/m4_reference_x.sql are the SQL of reference ref_x."""
    return "ref_" + sql_file.removesuffix(".sql").removeprefix("m4_reference_").removeprefix("ref_")


# A reference's own comparisons (eICU OASIS keeps eicu-code's bands in its model; a reference's
# macro may filter or window): the same statement holds them.
REFERENCE_CUTS = [cut for path in [*sorted(REFERENCES.glob("ref_*.sql")),
                                   *sorted((ROOT / "macros" / "references").glob("m4_reference_*.sql"))]
                  for cut in macro_cut_points(path)]


@pytest.mark.parametrize("cut", REFERENCE_CUTS, ids=lambda c: f"{c.label}-in-{_reference_of(c.macro_file)}.yml")
def test_a_references_own_cut_point_is_stated_by_it(cut: CutPoint) -> None:
    reference = _reference_of(cut.macro_file)
    assert cut.value in _stated(reference), (
        f"{cut.macro_file} compares {cut.name} {cut.op} {cut.number}, but {reference}.yml's description, column "
        f"descriptions and meta.skill never write {cut.number}: state it there (then `m4agent tasks skills`)")


@pytest.mark.parametrize(
    "cut", [c for c in CUT_POINTS if (c.macro_file, c.number) not in GENERATOR_GAPS],
    ids=lambda c: f"{c.label}-in-generator")
def test_cut_point_is_planted_by_the_generator(cut: CutPoint) -> None:
    near = [str(n) for n in neighbours(cut)]
    assert any(n in GENERATOR for n in neighbours(cut)), (
        f"{cut.macro_file} compares {cut.name} {cut.op} {cut.number}, but no module of "
        f"m4agent/data/synth/mimic_iv/ has a number among {near}: plant one "
        "(edge_cases.py) or list it in tests/cut_point_exceptions.py GENERATOR_GAPS with why")


@pytest.mark.parametrize("gap", sorted(GENERATOR_GAPS), ids=lambda g: f"{g[0].removesuffix('.sql')}-{g[1]}")
def test_each_generator_gap_is_still_a_gap(gap: tuple[str, str]) -> None:
    macro_file, number = gap
    cuts = [c for c in CUT_POINTS if (c.macro_file, c.number) == gap]
    assert cuts, f"{macro_file} has no cut-point {number}: remove it from GENERATOR_GAPS"
    planted = [c.label for c in cuts if any(n in GENERATOR for n in neighbours(c))]
    assert not planted, f"the generator now plants {planted}: remove {gap} from GENERATOR_GAPS"


def test_every_macro_with_a_threshold_is_mapped_to_its_references() -> None:
    with_thresholds = {p.name for p in MACROS.glob("*.sql") if macro_cut_points(p)}
    unmapped = with_thresholds - set(MACRO_REFERENCES) - set(NOT_A_SCORE)
    stale = (set(MACRO_REFERENCES) | set(NOT_A_SCORE)) - with_thresholds
    assert not unmapped, f"macros with cut-points and no reference in cut_point_exceptions.py: {sorted(unmapped)}"
    assert not stale, f"cut_point_exceptions.py names macros without cut-points: {sorted(stale)}"


_MACROS = rawsql.project_macros()


def _sql_behind(reference: str) -> str:
    """The reference's SQL with everything it runs: the models it reads (a reference over a concept:
    kdigo-48h reads kdigo_stages) and the project's macros they call (sofa-24h calls sofa_first_day,
    which calls the organ scores), to the end of both chains."""
    texts = [(REFERENCES / f"{reference}.sql").read_text()]
    seen: set[str] = set()
    while True:
        sql = "".join(texts)
        wanted = {f"ref:{name}" for name in re.findall(r"ref\('(\w+)'\)", sql)}
        wanted |= {f"macro:{name}" for name in _MACROS if re.search(rf"\b{name}\s*\(", sql)}
        new = wanted - seen
        if not new:
            return sql
        seen |= new
        for item in sorted(new):
            kind, name = item.split(":", 1)
            paths = (ROOT / "models").rglob(f"{name}.sql") if kind == "ref" else [_MACROS[name]]
            texts.extend(path.read_text() for path in paths)


@pytest.mark.parametrize(("macro_file", "reference"),
                         [(m, r) for m, refs in MACRO_REFERENCES.items() for r in refs])
def test_each_mapped_reference_runs_its_macro(macro_file: str, reference: str) -> None:
    defined = re.findall(r"\{%-?\s*macro\s+(\w+)", (MACROS / macro_file).read_text())
    sql = _sql_behind(reference)
    assert any(re.search(rf"\b{name}\s*\(", sql) for name in defined), (
        f"{reference}, the models it reads and the macros they call use none of {defined} ({macro_file}): "
        "fix MACRO_REFERENCES")


def test_extraction_reads_comparisons_and_names_them() -> None:
    labels = {c.label for c in macro_cut_points(MACROS / "sofa_organ_scores.sql")}
    assert {"sofa_organ_scores-platelets-<150", "sofa_organ_scores-gcs-<=14",
            "sofa_organ_scores-rate_dopamine->15", "sofa_organ_scores-bilirubin->=1.2"} <= labels
    branches = {c.label for c in macro_cut_points(MACROS / "apsiii_points.sql")}
    assert {"apsiii_points-heart_rate-<155", "apsiii_points-resp_rate-<14"} <= branches
