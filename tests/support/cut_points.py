"""Read the cut-points of the scoring macros, the references' stated rules and the synthetic
generator's numbers, for tests/test_cut_points.py.

A cut-point is a numeric literal compared with an expression in a macro's SQL
(``<``, ``<=``, ``>``, ``>=``, or either end of ``BETWEEN a AND b``), after Jinja and SQL
comments are dropped. It is named after what it is compared with: the first column of the
left-hand side, or, when that is the macro's generic argument ``value``, the branch of the
macro it sits in (``{% if variable == 'heart_rate' %}``). A Jinja expression counts as the
name of the function it calls (``{{ dbt.datediff(...) }}`` is ``datediff``). The same
(name, operator, number) twice in one macro file is one cut-point.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent.parent
MACROS = ROOT / "macros" / "mimiciv"
REFERENCES = ROOT / "models" / "marts" / "reference"
GENERATOR = ROOT / "m4agent" / "data" / "synth" / "mimic_iv"

_JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.S)
_SQL_COMMENT = re.compile(r"--[^\n]*")
_JINJA_NAME = re.compile(r"\{\{-?\s*(\w+)\s*-?\}\}")
_JINJA_EXPR = re.compile(r"\{\{.*?\}\}", re.S)
_JINJA_TAG = re.compile(r"\{%-?(.*?)-?%\}", re.S)
_BRANCH = re.compile(r"^\s*(?:if|elif)\s+\w+\s*==\s*'(\w+)'")
_NUMBER = r"\d+(?:\.\d+)?"
_COMPARISON = re.compile(rf"(?P<op><>|<=|>=|<|>)\s*(?P<num>{_NUMBER})\b")
_BETWEEN = re.compile(rf"\bBETWEEN\s+(?P<low>{_NUMBER})\s+AND\s+(?P<high>{_NUMBER})\b")
_CONDITION_START = re.compile(r"\b(?:WHEN|AND|OR|WHERE|ON|THEN|ELSE|CASE|NOT|SELECT)\b")
_SQL_WORDS = {"COALESCE", "ABS", "LN", "ROUND", "CAST", "LEAST", "GREATEST"}


@dataclass(frozen=True)
class CutPoint:
    macro_file: str  # e.g. sofa_organ_scores.sql
    name: str  # what the number is compared with, e.g. platelets
    op: str  # <, <=, >, >=
    number: str  # as written in the macro, e.g. 1.2

    @property
    def value(self) -> Decimal:
        return Decimal(self.number)

    @property
    def label(self) -> str:
        return f"{Path(self.macro_file).stem}-{self.name}-{self.op}{self.number}"


def _jinja_expression_name(match: re.Match[str]) -> str:
    """``{{ dbt.datediff(...) }}`` -> ``datediff``; an expression calling nothing -> a blank."""
    call = re.match(r"\{\{-?\s*([\w.]+)\s*\(", match.group(0))
    return " " + call.group(1).rsplit(".", 1)[-1] + " " if call else " "


def _name(text: str, start: int, branch: str | None) -> str:
    """The name of the left-hand side ending at ``start``: the condition's text on that line."""
    line = text[text.rfind("\n", 0, start) + 1:start]
    lhs = _CONDITION_START.split(line)[-1]
    words = [w for w in re.findall(r"[A-Za-z_][\w.]*", lhs) if w.upper() not in _SQL_WORDS]
    if not words:
        return "expression"
    return branch if words[0] == "value" and branch else words[0].rsplit(".", 1)[-1]


def macro_cut_points(path: Path) -> list[CutPoint]:
    """The cut-points of one macro file, in the order they first appear."""
    text = _SQL_COMMENT.sub("", _JINJA_COMMENT.sub("", path.read_text()))
    text = _JINJA_EXPR.sub(_jinja_expression_name, _JINJA_NAME.sub(r"\1", text))
    found: dict[tuple[str, str, str], CutPoint] = {}
    branch: str | None = None
    pieces = _JINJA_TAG.split(text)  # SQL, tag, SQL, tag, ...
    for i, piece in enumerate(pieces):
        if i % 2:
            tag = _BRANCH.match(piece)
            if tag:
                branch = tag.group(1)
            elif piece.strip().startswith(("macro", "endmacro")):
                branch = None
            continue
        hits = [(m.start(), m.group("op"), m.group("num")) for m in _COMPARISON.finditer(piece)]
        for m in _BETWEEN.finditer(piece):
            hits += [(m.start(), ">=", m.group("low")), (m.start(), "<=", m.group("high"))]
        for start, op, number in sorted(hits):
            if op == "<>":
                continue  # inequality of a code, not a threshold
            cut = CutPoint(path.name, _name(piece, start, branch), op, number)
            found.setdefault((cut.name, op, number), cut)
    return list(found.values())


def stated_rule(reference: str) -> str:
    """A reference's statement of its rule: its description, its columns' descriptions and every
    text of ``config.meta.skill`` (what SKILL.md is rendered from); not its unit tests."""
    [model] = yaml.safe_load((REFERENCES / f"{reference}.yml").read_text())["models"]
    texts = [model.get("description", "")]
    texts += [c.get("description", "") for c in model.get("columns", [])]

    def leaves(node: object) -> None:
        if isinstance(node, dict):
            for v in node.values():
                leaves(v)
        elif isinstance(node, list):
            for v in node:
                leaves(v)
        elif isinstance(node, str):
            texts.append(node)

    leaves(model.get("config", {}).get("meta", {}).get("skill", {}))
    return "\n".join(texts)


def numbers_in_text(text: str) -> set[Decimal]:
    """Every unsigned decimal number written in prose (12 and 12.0 are the same number)."""
    return {Decimal(n) for n in re.findall(rf"(?<![\w.]){_NUMBER}(?![\w]|\.\d)", text)}


def generator_numbers(folder: Path = GENERATOR) -> set[Decimal]:
    """Every numeric constant of the generator's Python code (every module of the folder, read
    with ``ast``; a negative literal counts as its negative), not numbers inside strings."""
    numbers: set[Decimal] = set()
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        negated = {id(n.operand) for n in ast.walk(tree) if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and type(node.value) in (int, float):
                number = Decimal(repr(node.value))
                numbers.add(-number if id(node) in negated else number)
    return numbers


def neighbours(cut: CutPoint) -> tuple[Decimal, Decimal, Decimal]:
    """The cut-point and the values one step of its written precision below and above it
    (150: 149, 150, 151; 1.2: 1.1, 1.2, 1.3; 20.65: 20.64, 20.65, 20.66)."""
    step = Decimal(1).scaleb(cut.value.as_tuple().exponent)
    return cut.value - step, cut.value, cut.value + step
