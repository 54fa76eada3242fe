"""Every --help reads like the README: plain metavars (``--dir DIR``; a flag takes no value), commands
grouped in the README's order, the maintainers' commands apart, and a shared option described alike
wherever it appears."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
import typer
from typer.testing import CliRunner

from m4agent.cli import app

PANELS = ["Data", "References", "Grading", "Agents", "Reports"]
# options whose meaning is the same in every command that has them (report's --seed and --tasks-dir,
# for instance, mean something else there and are left out)
SHARED = {"--data-dir", "--tasks-dir", "--no-fail", "--patients", "--secrets-file", "--route", "--dir"}
SHARED_EXCEPT = {("report", "--tasks-dir")}


def _commands() -> dict[str, object]:
    found = {}

    def walk(command, path):
        for name, sub in (getattr(command, "commands", None) or {}).items():
            walk(sub, [*path, name])
        found[" ".join(path)] = command

    walk(typer.main.get_command(app), [])
    return found


def _help(*path: str) -> str:
    done = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"}, terminal_width=200)
    assert done.exit_code == 0, done.output
    return done.output


@pytest.mark.parametrize("path", sorted(_commands()))
def test_help_shows_plain_metavars_never_a_type_in_angle_brackets(path: str) -> None:
    text = _help(*path.split())
    assert re.findall(r"<(?:bool|str|int|float|path|list\[\w+\])>", text) == []


def test_a_flag_shows_no_value_and_an_option_its_metavar() -> None:
    text = _help("run")
    assert re.search(r"--json\s+Print", text) and re.search(r"--dir\s+DIR\s", text)
    assert re.search(r"--route\s+HOST=ADDRESS:PORT\s", text) and re.search(r"--trial\s+N\s", text)


def test_commands_are_grouped_in_the_readmes_order() -> None:
    text = _help()
    found = [name for name in re.findall(r"╭─ (\w+) ─", text) if name != "Options"]
    assert found == PANELS
    panel_of = {}
    for panel in PANELS:
        body = text.split(f"╭─ {panel} ─", 1)[1].split("╰", 1)[0]
        panel_of.update({name: panel for name in re.findall(r"^│ (\S+)", body, re.M)})
    assert panel_of["grade"] == "Grading" and panel_of["run"] == "Agents" and panel_of["report"] == "Reports"


def test_the_maintainers_command_sits_apart_from_the_users() -> None:
    text = _help("tasks")
    commands = text.split("╭─ Commands ─", 1)[1].split("╰", 1)[0]
    maintenance = text.split("╭─ Maintenance ─", 1)[1].split("╰", 1)[0]
    assert "skills" not in commands and "list" in commands and "skills" in maintenance


def test_a_shared_option_has_one_help_text_everywhere() -> None:
    texts: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path, command in _commands().items():
        for param in getattr(command, "params", []):
            for name in set(param.opts) & SHARED:
                if (path, name) not in SHARED_EXCEPT:
                    texts[name][param.help].append(path)
    assert {name: dict(found) for name, found in texts.items() if len(found) > 1} == {}
