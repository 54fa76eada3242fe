"""Run the README's console examples for real and show (or write) what changed.

The examples are run as tests/test_readme_examples.py runs them (tests/support/readme_examples.py):
in a fresh folder holding the data `m4agent quickstart` makes in ./m4data. An example whose
shown lines still match what its command prints is left as it is; another is shown anew (a README
that elides lines with `...` keeps its choice of lines).

Usage::

    python3 scripts/update_readme_examples.py           # print the diff; exit 1 when the README is stale
    python3 scripts/update_readme_examples.py --write   # and rewrite README.md
"""

from __future__ import annotations

import argparse
import difflib
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support import readme_examples  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite README.md with the real output")
    args = parser.parse_args()
    text = readme_examples.README.read_text()
    with tempfile.TemporaryDirectory(prefix="m4agent-readme-") as scratch:
        folder = Path(scratch)
        readme_examples.prepare(folder)
        printed = readme_examples.run(readme_examples.examples(text), folder)
        updated = readme_examples.rewrite(text, printed, folder)
    if updated == text:
        print("README.md: every console example is its command's real output")
        return 0
    sys.stdout.writelines(difflib.unified_diff(text.splitlines(keepends=True), updated.splitlines(keepends=True),
                                               "README.md", "README.md (real output)"))
    if args.write:
        readme_examples.README.write_text(updated)
        print("README.md rewritten")
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
