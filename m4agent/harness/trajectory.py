"""One trajectory format for every agent: the steps of a run, read from the wire or the agent's trace.

For the real CLIs, the steps come from the exchanges the metering proxy read on the wire
(``wire.jsonl``, ``metering``): each answer's text and tool calls, and the tool results
the CLI sent back with its next request, paired by call id. So a step the model did not
take cannot appear (a tool command that prints a fake event into the CLI's output changes
nothing), and one it took cannot vanish (a CLI that never prints its last completion).
The built-in agents have no wire; their raw stream (``trace.log``: stdout and stderr,
untouched) is read by the adapter into ``Step`` objects (``Agent.steps``, when it has a
parser). ``build`` adds what the harness knows: the run's identity, its outcome, the ledger and
the egress decisions (the first ``MAX_EGRESS_SHOWN``, a count of the rest and the
proxy's summary). A step is a message of the model (``text``), a tool call with its
input and result (``tool``: the shell command or SQL the agent ran, and what it
printed), or an ``error`` the CLI reported; each may carry its tokens and a timestamp.
Agents without a parser get their trace as one ``text`` step.

``write`` stores ``trajectory.json`` next to the attempt's files.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

TRAJECTORY_FILE = "trajectory.json"
MAX_TEXT = 20_000  # per field: a trajectory is for reading, the raw trace keeps everything
MAX_EGRESS_SHOWN = 200  # egress decisions; egress.jsonl keeps the rest (itself bounded, see egress.EgressLog)


@dataclass
class Step:
    """One step: ``kind`` text, tool or error; for tools, the tool's name, input and output."""

    kind: str
    text: str = ""
    tool: str | None = None
    input: str | None = None
    output: str | None = None
    tokens: dict[str, int] | None = None
    ts: str | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for name in ("text", "input", "output"):
            if isinstance(data[name], str) and len(data[name]) > MAX_TEXT:
                data[name] = data[name][:MAX_TEXT] + f"\n[... {len(data[name]) - MAX_TEXT} characters cut]"
        return data


def tool_input(arguments: Any) -> str:
    """A tool call's input as text: its command (string or argv) when it has one, else its JSON."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return arguments
    if isinstance(arguments, dict):
        for name in ("command", "cmd"):
            value = arguments.get(name)
            if isinstance(value, list) and value[:2] in (["bash", "-lc"], ["bash", "-c"]) and len(value) == 3:
                return str(value[2])
            if isinstance(value, list):
                return " ".join(str(v) for v in value)
            if isinstance(value, str):
                return value
    return json.dumps(arguments, indent=1, sort_keys=True)


def text_of(content: Any) -> str:
    """The text of a message content (a string, or a list of blocks with ``text``)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text_of(block.get("text", block.get("content", ""))) if isinstance(block, dict)
                         else str(block) for block in content)
    return "" if content is None else str(content)


def _egress(attempt: Path) -> tuple[list[dict[str, Any]], int, dict[str, Any] | None]:
    """The first ``MAX_EGRESS_SHOWN`` decisions, how many more the log holds, and the proxy's summary."""
    path = attempt / "egress.jsonl"
    shown: list[dict[str, Any]] = []
    more = 0
    summary = None
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(event, dict):
                continue
            if event.get("event") == "summary":
                summary = {k: event.get(k) for k in ("connections", "tunnels", "refused", "not_logged")}
            elif event.get("event") != "decision":
                continue
            elif len(shown) < MAX_EGRESS_SHOWN:
                shown.append({k: event.get(k) for k in ("ts", "host", "port", "allowed", "status", "reason")})
            else:
                more += 1
    return shown, more, summary


def wire_steps(exchanges: list[dict[str, Any]]) -> list[Step]:
    """The model's steps from the exchange lines of ``wire.jsonl``, in the order they crossed the wire.

    Each model answer gives its text and its tool calls (tokens on the first of them); the
    tool results a later request sends back fill in the outputs of the calls they answer.
    A provider's error answer is an ``error`` step; exchanges that are not model calls and
    answers the proxy gave itself are left out."""
    steps: list[Step] = []
    calls: dict[str, Step] = {}
    for line in exchanges:
        if line.get("by_proxy") or line.get("protocol") is None:
            continue
        for result in line.get("results") or []:
            step = calls.get(str(result.get("id")))
            if step is not None and step.output is None:
                step.output = str(result.get("output", ""))
        ts = datetime.fromtimestamp(line["ts"], UTC).isoformat(timespec="milliseconds") \
            if isinstance(line.get("ts"), (int, float)) else None
        usage = {k: v for k, v in (line.get("usage") or {}).items() if isinstance(v, int)}
        made: list[Step] = []
        if line.get("error"):
            made.append(Step("error", f"{line['error']}: {line.get('error_detail') or ''}".strip()))
        if line.get("text"):
            made.append(Step("text", str(line["text"])))
        for call in line.get("calls") or []:
            step = Step("tool", tool=str(call.get("name", "")), input=str(call.get("input", "")))
            calls[str(call.get("id"))] = step
            made.append(step)
        for index, step in enumerate(made):
            step.ts = ts
            step.tokens = (usage or None) if index == 0 else None
        steps.extend(made)
    return steps


def build(attempt: Path, agent: Any, record: dict[str, Any] | None = None) -> dict[str, Any]:
    """The trajectory of one attempt folder (``wire.jsonl`` or ``trace.log``, ``egress.jsonl``,
    ``attempt.json``)."""
    from m4agent.harness import metering  # metering reads the wire with readers that use this module

    trace = attempt / "trace.log"
    text = trace.read_text(errors="replace") if trace.exists() else ""
    parser = getattr(agent, "steps", None)
    wire = metering.read(attempt)
    if wire is not None:
        steps = wire_steps(wire.exchanges)
    else:
        steps = parser(text) if callable(parser) and text else ([Step("text", text)] if text else [])
    if record is None and (attempt / "attempt.json").exists():
        record = json.loads((attempt / "attempt.json").read_text())
    record = record or {}
    entry = record.get("extra", {}).get("ledger")
    if entry is None and text and hasattr(agent, "usage"):  # attempts recorded before the ledger existed
        from m4agent.harness import ledger

        entry = ledger.for_attempt(agent, "default", {}, text)
    egress, egress_more, egress_summary = _egress(attempt)
    return {"agent": getattr(agent, "name", str(agent)), "outcome": record.get("outcome"),
            "reason": record.get("reason"), "phases": record.get("phases", {}),
            "ledger": entry, "steps": [s.to_json() for s in steps],
            "steps_from": "wire" if wire is not None else "trace",
            "egress": egress, "egress_more": egress_more, "egress_summary": egress_summary}


def write(attempt: Path, agent: Any) -> Path:
    """Build and store ``trajectory.json`` in the attempt folder; returns its path."""
    path = attempt / TRAJECTORY_FILE
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(build(attempt, agent), indent=1, sort_keys=True))
    tmp.replace(path)
    return path
