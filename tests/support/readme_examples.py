"""The README's console examples, run for real: what tests/test_readme_examples.py checks and
scripts/update_readme_examples.py rewrites.

Every ```console block of the README is a session in one example folder (the README's own
``/home/you/m4agent``) holding the data ``m4agent quickstart`` makes in ``./m4data`` (``prepare``, ``run``):
each ``$ m4agent ...`` line is run there (a trailing ``# comment`` is the reader's, not the shell's),
``$ echo $?`` prints the previous command's exit code, and the lines under a command are what it
printed, standard error and output in the order they were written. A line ``...`` stands for any
number of lines left out. Before a block, ``SETUP`` may make what its commands read (the runs the
campaign-grading example grades).

Compared after ``normalise``: the example folder's path becomes ``/home/you/m4agent``, "in 25 s"
matches any number of seconds, and runs of spaces are one space (a table's width is the terminal's).
"""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
SHOWN_HOME = "/home/you/m4agent"
ELIDED = "..."
COLUMNS = "200"
FENCE = "```"


@dataclass(frozen=True)
class Example:
    """One ``$ command`` of a console block and the lines the README shows under it."""

    block: int
    command: str
    shown: tuple[str, ...]
    spaced: bool = False  # a blank line separates it from the next command (not part of its output)

    @property
    def argv(self) -> list[str]:
        """The command without the reader's trailing comment."""
        return shlex.split(self.command, comments=True)


def examples(text: str) -> list[Example]:
    """Every ``$`` line of every console block of ``text``, with the lines shown under it."""
    found: list[Example] = []

    def add(number: int, command: str, shown: list[str]) -> None:
        spaced = bool(shown) and not shown[-1].strip()
        while shown and not shown[-1].strip():
            shown.pop()
        found.append(Example(number, command, tuple(shown), spaced))

    for number, block in enumerate(_console_blocks(text)):
        command, shown = None, []
        for line in block:
            if line.startswith("$ "):
                if command is not None:
                    add(number, command, shown)
                command, shown = line[2:], []
            elif command is not None:
                shown.append(line)
        if command is not None:
            add(number, command, shown)
    return found


def _console_blocks(text: str) -> list[list[str]]:
    blocks, current = [], None
    for line in text.splitlines():
        if current is None and line.strip() == f"{FENCE}console":
            current = []
        elif current is not None and line.strip() == FENCE:
            blocks.append(current)
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def normalise(line: str, folder: Path | None = None) -> str:
    if folder is not None:
        line = line.replace(str(folder), SHOWN_HOME)
    line = re.sub(r"\bin \d+ s\b", "in N s", line)
    return " ".join(line.split())


# --- what the examples read -------------------------------------------------------------------

def _campaign_runs(folder: Path) -> None:
    """The three runs the campaign-grading example grades: the SOFA reference (reward 1), the reference
    without its renal column (6 of 7 scored columns) and a run that left no output."""
    with open(folder / "sofa.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for name, columns in (("run-001", list(rows[0])), ("run-002", [c for c in rows[0] if c != "renal"]),
                          ("run-003", None)):
        run = folder / "runs" / name
        run.mkdir(parents=True)
        (run / "run.json").write_text(json.dumps({"task": "mimic-sofa-24h"}))
        if columns is not None:
            with open(run / "output.csv", "w", newline="") as handle:
                writer = csv.DictWriter(handle, columns, extrasaction="ignore")
                writer.writeheader()
                writer.writerows(rows)


SETUP: dict[str, Callable[[Path], None]] = {"m4agent grade --results-root runs": _campaign_runs}


# --- running them -------------------------------------------------------------------------------

def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "M4AGENT_DATA_DIR"}
    env.update(COLUMNS=COLUMNS, PYTHONUNBUFFERED="1", NO_COLOR="1", TERM="dumb")
    return env


def _m4agent(argv: list[str], folder: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "m4agent.cli", *argv], cwd=folder, env=_environment(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)


BUILD = "m4agent reference build"  # the example whose block builds what the others read


def prepare(folder: Path) -> None:
    """What quickstart leaves in ``folder``'s ``./m4data`` but the build: the synthetic eICU it makes (the
    README's reference build example synthesizes MIMIC-IV, then builds every reference, and ``run``
    runs that example's block first: one build instead of two)."""
    done = _m4agent(["data", "synth", "--dataset", "eicu", "--patients", "200", "--seed", "42"], folder)
    if done.returncode != 0:
        raise RuntimeError(f"m4agent data synth failed in {folder}:\n{done.stdout[-3000:]}")


def run(found: list[Example], folder: Path) -> list[list[str]]:
    """What each example's command printed, run in ``folder`` (``prepare`` first): the building block
    first, then the others in the README's order; returned in the README's order."""
    building = {e.block for e in found if e.command == BUILD}
    if len(building) != 1:
        raise ValueError(f"the README needs exactly one console block with `$ {BUILD}`; the others read its build")
    order = sorted(range(len(found)), key=lambda n: (found[n].block not in building, n))
    printed: dict[int, list[str]] = {}
    last_code = 0
    for position, number in enumerate(order):
        example = found[number]
        if example.command in SETUP and (position == 0 or found[order[position - 1]].block != example.block):
            SETUP[example.command](folder)
        argv = example.argv
        if argv == ["echo", "$?"]:
            printed[number] = [str(last_code)]
            continue
        if not argv or argv[0] != "m4agent":
            raise ValueError(f"README console example {example.command!r}: only m4agent and `echo $?` are run")
        done = _m4agent(argv[1:], folder)
        last_code = done.returncode
        printed[number] = [line.rstrip() for line in done.stdout.splitlines()]
    return [printed[number] for number in range(len(found))]


# --- comparing and rewriting ----------------------------------------------------------------------

def matches(shown: tuple[str, ...], real: list[str], folder: Path | None = None) -> bool:
    """Whether ``real`` is what ``shown`` shows: its pieces between ``...`` lines in order, each a run of
    consecutive lines, the first at the start and the last at the end unless a ``...`` frees them."""
    pieces: list[list[str]] = [[]]
    for line in shown:
        if line.strip() == ELIDED:
            pieces.append([])
        else:
            pieces[-1].append(normalise(line))
    lines = [normalise(line, folder) for line in real]
    position = 0
    for number, piece in enumerate(pieces):
        first, last = number == 0, number == len(pieces) - 1
        if first and last:
            return piece == lines
        if first:
            if lines[:len(piece)] != piece:
                return False
            position = len(piece)
        elif last:
            return len(lines) - len(piece) >= position and (not piece or lines[-len(piece):] == piece)
        else:
            at = _find(lines, piece, position)
            if at is None:
                return False
            position = at + len(piece)
    return True


def _find(lines: list[str], piece: list[str], start: int) -> int | None:
    for at in range(start, len(lines) - len(piece) + 1):
        if lines[at:at + len(piece)] == piece:
            return at
    return None


def shown_lines(shown: tuple[str, ...], real: list[str], folder: Path) -> list[str]:
    """The lines to show for a command that printed ``real``: all of them (the folder's path shown as the
    README's) when the README elides nothing; else the lines it chose, each replaced by the first later
    line beginning with the same word, with ``...`` wherever lines are left out."""
    real_shown = [line.replace(str(folder), SHOWN_HOME) for line in real]
    if all(line.strip() != ELIDED for line in shown):
        return real_shown
    picked: list[int] = []
    for line in shown:
        if line.strip() == ELIDED:
            continue
        word = line.split()[0] if line.split() else ""
        start = picked[-1] + 1 if picked else 0
        at = next((i for i in range(start, len(real_shown))
                   if (real_shown[i].split() or [""])[0] == word), None)
        if at is None:
            raise ValueError(f"the README shows {line!r}, and no later line of the real output begins with "
                             f"{word!r}: edit that example by hand")
        picked.append(at)
    def elided(first: str) -> str:  # indented as the first line it stands for
        return " " * (len(first) - len(first.lstrip())) + ELIDED

    out: list[str] = []
    previous = -1
    for at in picked:
        if at != previous + 1:
            out.append(elided(real_shown[previous + 1]))
        out.append(real_shown[at])
        previous = at
    if previous != len(real_shown) - 1:
        out.append(elided(real_shown[previous + 1]))
    return out


def rewrite(text: str, printed: list[list[str]], folder: Path) -> str:
    """``text`` with every console example that no longer matches what it printed shown anew."""
    found = examples(text)
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    number = -1
    inside, skipping = False, False
    for line in lines:
        stripped = line.strip()
        if not inside and stripped == f"{FENCE}console":
            inside = True
            out.append(line)
            continue
        if inside and stripped == FENCE:
            inside, skipping = False, False
            out.append(line)
            continue
        if inside and line.startswith("$ "):
            number += 1
            example, real = found[number], printed[number]
            out.append(line)
            skipping = not matches(example.shown, real, folder)
            if skipping:
                out.extend(f"{shown}\n" for shown in shown_lines(example.shown, real, folder))
                out.extend(["\n"] if example.spaced else [])
            continue
        if not skipping:
            out.append(line)
    return "".join(out)
