"""What an agent is told: the one function that assembles a run's ``instruction.md``.

The parts, in M4Bench's order (``run.py::prepare_instruction``), each in our words:

1. ``ISOLATION``: work offline, from the working directory and the database only.
2. ``CONVENTIONS``: where definitions differ, follow the public standard; the
   reference follows it and any deviation costs reward.
3. The task's ``instruction.md`` with every ``{placeholder}`` rendered
   (``{db_path}``, ``{output_path}``: the files in the agent's working directory).
   An unknown placeholder is an error, so no brace reaches an agent by accident.
4. Under ``operational-spec``, the section ``Operational Specification`` holding the
   task's ``operational-spec.md`` (missing or empty: an error, never a silent
   ``no-skill`` run).
5. Last, the schema variant's rewrite, when the caller passes one
   (``m4agent.workspaces.rewrite_instruction`` bound to the task and variant): it
   renames what every part above mentions, the specification included.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from m4agent.errors import M4AgentError
from m4agent.harness.conditions import Condition, get_condition
from m4agent.layout import DATABASE_NAME, OUTPUT_NAME
from m4agent.registry import Task

ISOLATION = (
    "This run is isolated. Work only with the files in the current directory, the DuckDB "
    "database given here and the skills provided, if any. Do not search or browse the web, "
    "download anything, install packages or use any other network resource."
)

CONVENTIONS = (
    "Some choices in this task have more than one defensible answer: score cut-points, how "
    "missing measurements count, where a time window opens and closes, which item ids stand "
    "for a measurement. For each of them, follow the standard public conventions for this "
    "concept on this release of the database. Your output is scored by its agreement with a "
    "reference built on those conventions, so every deliberate departure from them lowers "
    "the reward."
)

SPEC_HEADING = "## Operational Specification"
SPEC_PREAMBLE = (
    "Take the definition below as the whole specification of the task. On purpose, it gives "
    "no SQL for the task, none of the dataset's item identifiers and no recipe from reference "
    "code."
)

PLACEHOLDERS: dict[str, str] = {
    "db_path": f"./{DATABASE_NAME}",
    "output_path": f"./{OUTPUT_NAME}",
}
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def build_instruction(task: Task, condition: Condition | str,
                      rewrite: Callable[[str], str] | None = None) -> str:
    """The full instruction for ``task`` under ``condition``, ending in one newline.

    Raises ``M4AgentError`` when the task's instruction is missing or empty, names a
    placeholder other than ``PLACEHOLDERS``, or the condition needs an operational
    specification the task lacks.
    """
    cond = get_condition(condition)
    parts = [ISOLATION, CONVENTIONS, render_task_text(task)]
    if cond.appends_spec:
        parts.append(_spec_section(task))
    text = "\n\n".join(parts) + "\n"
    return rewrite(text) if rewrite is not None else text


def render_task_text(task: Task) -> str:
    """The task's ``instruction.md`` with every placeholder replaced, in one pass, trailing space trimmed."""
    raw = task.instruction
    if not raw.strip():
        where = task.path / "instruction.md" if task.path is not None else "instruction.md"
        raise M4AgentError(f"task {task.name!r} has no instruction: {where} is missing or empty")
    unknown = sorted({m.group(1) for m in _PLACEHOLDER.finditer(raw)} - PLACEHOLDERS.keys())
    if unknown:
        names = ", ".join("{" + u + "}" for u in unknown)
        known = ", ".join("{" + k + "}" for k in PLACEHOLDERS)
        raise M4AgentError(f"task {task.name!r}: its instruction names unknown placeholder(s) {names}; "
                           f"only {known} are rendered, so fix the instruction")
    return _PLACEHOLDER.sub(lambda m: PLACEHOLDERS[m.group(1)], raw).rstrip()


def _spec_section(task: Task) -> str:
    """The specification section; the file must be a regular file (a link is refused, as for skills)."""
    spec_file = task.operational_spec
    if spec_file.is_symlink():
        raise M4AgentError(f"task {task.name!r}: {spec_file} is a link; copy the specification in place of it")
    try:
        spec = spec_file.read_text().strip() if spec_file.is_file() else ""
    except OSError as exc:
        raise M4AgentError(f"task {task.name!r}: cannot read {spec_file} ({exc.strerror})") from exc
    if not spec:
        raise M4AgentError(f"task {task.name!r} (condition operational-spec): {spec_file} is missing or "
                           "empty; write the specification or choose another condition")
    return f"---\n\n{SPEC_HEADING}\n\n{SPEC_PREAMBLE}\n\n{spec}"
