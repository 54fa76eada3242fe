"""The README's install command (`pip install -e .`) gives every command what it imports.

A module imported by m4agent whose distribution is not a default dependency (nor brought by one) makes a
command fail after the README's own install: `m4agent report` once stopped with "figures need
matplotlib", matplotlib sitting in an extra the README never mentions.
"""

from __future__ import annotations

import ast
import importlib.metadata as metadata
import re
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
# Imported only to decode a zstd-compressed request body in the dry-run model server, which answers
# an agent CLI that sends one with a clear error when the module is absent.
OPTIONAL_IMPORTS = {"zstandard"}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _default_install() -> set[str]:
    """The distributions `pip install .` brings: the default dependencies and theirs, without extras."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    pending = [Requirement(text).name for text in pyproject["project"]["dependencies"]]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if _normal(name) in seen:
            continue
        seen.add(_normal(name))
        for text in metadata.requires(name) or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                pending.append(requirement.name)
    return seen


def _third_party_imports() -> dict[str, str]:
    """Top-level module imported -> one file importing it, over the whole package."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "m4agent").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "m4agent":
                    found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def test_every_module_the_package_imports_comes_with_the_default_install():
    installed = _default_install()
    providers = metadata.packages_distributions()
    missing = {module: where for module, where in _third_party_imports().items()
               if module not in OPTIONAL_IMPORTS
               and not any(_normal(dist) in installed for dist in providers.get(module, []))}
    assert missing == {}, f"imported but not brought by `pip install .`: {missing}"

