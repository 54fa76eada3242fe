"""The package's floors: every import runs down or across, never back up (docs/architecture.md).

The pipeline reads bottom to top: the ground floor (errors, paths, the container's path contract,
the run-folder contract, the task registry, ...), the data, dbt, the workspaces an agent gets,
grading, the scripted provider stand-in, the harness that runs agents, reports, explanations and
exports, and the CLI that wires them.
A module may import from its own floor or any floor below. The imports are read from the source
with ``ast`` (module-level, function-level and ``TYPE_CHECKING`` imports alike: a function-level
import still makes the lower floor depend on the upper one), so nothing is imported to check.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "m4agent"

# Bottom to top. A unit is a subpackage of m4agent or one of its top-level modules.
FLOORS: list[tuple[str, frozenset[str]]] = [
    ("ground", frozenset({"__init__", "errors", "paths", "layout", "run_folder", "campaign_folder", "discovery",
                          "registry", "locking", "interrupts", "progress", "cli_options"})),
    ("data", frozenset({"data"})),
    ("dbt", frozenset({"dbt", "bigquery", "reference_export", "skills", "conventions"})),
    ("workspaces", frozenset({"workspaces"})),
    ("grading", frozenset({"grading"})),
    ("provider stand-in", frozenset({"model_server"})),
    ("harness", frozenset({"harness"})),
    ("reports", frozenset({"reports", "explain", "export"})),
    ("cli", frozenset({"cli"})),
]


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(target: str) -> str:
    """The longest prefix of ``target`` that is a module of m4agent (``from m4agent.x import f`` is ``m4agent.x``)."""
    parts = target.split(".")
    while len(parts) > 1:
        base = PACKAGE.parent.joinpath(*parts)
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            return ".".join(parts)
        parts.pop()
    return "m4agent"


def _imports(path: Path, module: str) -> set[str]:
    """Every m4agent module that ``path`` (the module named ``module``) imports, at any depth of its syntax tree."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names]  # a name that is no module resolves to base
        else:
            continue
        found |= {_resolve(name) for name in names if name == "m4agent" or name.startswith("m4agent.")}
    found.discard(module)
    return found


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _floor(unit: str) -> int:
    floors = [index for index, (_, units) in enumerate(FLOORS) if unit in units]
    assert len(floors) == 1, f"m4agent.{unit} is on {len(floors)} floors in FLOORS; place it on one"
    return floors[0]


def _graph() -> dict[str, set[str]]:
    return {_module_name(path): _imports(path, _module_name(path)) for path in sorted(PACKAGE.rglob("*.py"))}


def test_every_package_and_top_level_module_has_a_floor() -> None:
    placed = {unit for _, units in FLOORS for unit in units}
    units = {_unit(module) for module in _graph()}
    assert units - placed == set(), "place each new package or top-level module on a floor in FLOORS"
    assert placed - units == set(), "FLOORS names a unit that no longer exists"


def test_no_import_runs_back_up_a_floor() -> None:
    upward = sorted(
        f"{importer} ({FLOORS[_floor(_unit(importer))][0]}) imports {imported} ({FLOORS[_floor(_unit(imported))][0]})"
        for importer, imports in _graph().items()
        for imported in imports
        if _floor(_unit(imported)) > _floor(_unit(importer))
    )
    assert upward == []


def test_the_floor_check_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    """An import inside a function counts, and ``from ..x import y`` is resolved, or arrows would be missed."""
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from ..harness import records\n    import m4agent.reports.page\n")
    assert _imports(probe, "m4agent.grading.probe") == {"m4agent.harness.records", "m4agent.reports.page"}


# Names several packages give to their own module of the same job: each package's command group, and
# one module per provider protocol (the metering proxy's reader, the provider stand-in's speaker).
SHARED_NAMES = frozenset({"__init__", "cli", "anthropic", "openai", "gemini", "ollama"})


def test_no_two_modules_share_a_name() -> None:
    """Two modules called ``paths`` (or ``errors``, ``loader``) make a reader guess which one an import means."""
    by_name: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        by_name.setdefault(path.stem, []).append(_module_name(path))
    shared = {name: modules for name, modules in by_name.items() if len(modules) > 1 and name not in SHARED_NAMES}
    assert shared == {}
