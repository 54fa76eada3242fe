"""What the server answers, before a protocol renders it: one turn made concrete for one request.

A script says "run this shell command"; each CLI names its shell tool differently
(Claude Code ``Bash``, Codex ``shell``/``exec_command``/``shell_command``, Gemini CLI
``run_shell_command``, pi ``bash``) and shapes its arguments differently. The request
declares its tools with their JSON schemas, so ``shell_call`` picks the shell tool
from them and fills its arguments from the schema: the server follows the CLI rather
than hard-coding one CLI's version.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from m4agent.model_server.script import Usage

# Shell tools of the CLIs we know, most specific first; any other tool with a `command` or `cmd` field follows.
SHELL_TOOLS = ("Bash", "shell_command", "exec_command", "shell", "run_shell_command", "bash", "local_shell")

_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    """A unique id in a provider's style (``toolu_...``, ``call_...``, ``msg_...``)."""
    return f"{prefix}_m4a{next(_ids):08d}"


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    call_id: str


@dataclass(frozen=True)
class Answer:
    """One concrete answer: final ``text`` or a ``call``, with the usage to report and the model to echo."""

    text: str | None
    call: ToolCall | None
    usage: Usage
    model: str

    @property
    def is_call(self) -> bool:
        return self.call is not None


def _properties(schema: Any) -> dict[str, Any]:
    if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
        return schema["properties"]
    return {}


def _arguments(name: str, schema: Any, command: str) -> dict[str, Any] | None:
    """The arguments that make tool ``name`` run ``command``, from its schema; None if it cannot."""
    props = _properties(schema)
    if name == "local_shell":
        return {"command": ["bash", "-lc", command]}
    for field_name in ("command", "cmd"):
        if field_name in props or (not props and field_name == "command"):
            kind = props.get(field_name, {}).get("type") if isinstance(props.get(field_name), dict) else "string"
            value: Any = ["bash", "-lc", command] if kind == "array" else command
            arguments: dict[str, Any] = {field_name: value}
            if "description" in props:
                arguments["description"] = "run a shell command"
            return arguments
    return None


def shell_call(tools: Iterable[tuple[str, Any]], command: str, call_prefix: str) -> ToolCall | None:
    """A call of the request's shell tool that runs ``command``; None if the request declares none."""
    declared = {name: schema for name, schema in tools}
    ordered = [name for name in SHELL_TOOLS if name in declared]
    ordered += [name for name in declared if name not in ordered]
    for name in ordered:
        if name not in SHELL_TOOLS and not any(k in _properties(declared[name]) for k in ("command", "cmd")):
            continue
        arguments = _arguments(name, declared[name], command)
        if arguments is not None:
            return ToolCall(name, arguments, new_id(call_prefix))
    return None
