"""The README's console examples are what their commands print (issue 41, Deliver 5): each ``$ m4agent``
line of a console block is run for real, in a folder holding the data `m4agent quickstart` makes
in ./m4data, and the lines the README shows must be its output
(tests/support/readme_examples.py says how they are compared). A stale example fails here, and
`python3 scripts/update_readme_examples.py --write` shows it anew.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import readme_examples

pytestmark = pytest.mark.slow

TEXT = readme_examples.README.read_text()
EXAMPLES = readme_examples.examples(TEXT)


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[list[str]]]:
    """Every example run in one folder (one synthesis and one build: about 30 s on two idle cores)."""
    folder = tmp_path_factory.mktemp("readme")
    readme_examples.prepare(folder)
    return folder, readme_examples.run(EXAMPLES, folder)


def test_the_readme_has_console_examples_beyond_the_tasks_list() -> None:
    commands = {example.command for example in EXAMPLES}
    assert {"m4agent grade mimic-sofa-24h sofa.csv", "m4agent reference build", "m4agent grade --results-root runs",
            "m4agent campaign plan rerun-v1.1 --agent codex --dir runs/codex-v1.1"} <= commands


@pytest.mark.parametrize("number", range(len(EXAMPLES)), ids=[f"{e.block}: {e.command}" for e in EXAMPLES])
def test_readme_console_example_is_the_commands_real_output(number: int, printed: tuple[Path, list[list[str]]]) -> None:
    folder, outputs = printed
    example, real = EXAMPLES[number], outputs[number]
    shown = "\n".join(example.shown)
    assert readme_examples.matches(example.shown, real, folder), (
        f"README shows under `$ {example.command}`:\n{shown}\n\nwhich prints:\n" + "\n".join(real)
        + "\n\n(python3 scripts/update_readme_examples.py --write shows it anew)")


def test_the_update_leaves_a_current_readme_as_it_is(printed: tuple[Path, list[list[str]]]) -> None:
    folder, outputs = printed
    assert readme_examples.rewrite(TEXT, outputs, folder) == TEXT


@pytest.mark.parametrize("stale, current", [
    ("truth rows 216", "truth rows 32"),  # in an example eliding lines (`grade`)
    ("3 run(s) already graded were skipped", "2 run(s) already graded were skipped"),  # one showing every line
])
def test_the_update_shows_a_stale_example_anew(stale: str, current: str,
                                                 printed: tuple[Path, list[list[str]]]) -> None:
    folder, outputs = printed
    assert TEXT.count(stale) == 1
    updated = readme_examples.rewrite(TEXT.replace(stale, current), outputs, folder)
    assert stale in updated and current not in updated.replace(stale, "")
    found = readme_examples.examples(updated)
    assert [e.command for e in found] == [e.command for e in EXAMPLES]
    assert all(readme_examples.matches(e.shown, real, folder) for e, real in zip(found, outputs, strict=True))
