"""The preflight: one minimal model request per agent and model, before any money is spent on a campaign.

A wrong key, a model name the provider does not know, an unreachable provider or a spent
quota would otherwise show up as the first run's failure, after the campaign built its
workspaces, or (a key) as a stopped queue once the runs are under way. ``probe`` asks the
provider the smallest question it answers (one token) the way a run would: from a container
of the agent image, as the agent's user, with the key sourced from the secrets file,
through the forwarder and the metering egress proxy of a real attempt, and reads the
provider's answer on the wire (``metering``). The request itself is the adapter's
(``CliAgent.probe_request``): the CLI is not started, so a probe costs one request.

``Probe.problem`` names what is wrong, in the words an operator acts on: ``missing key``,
``rejected key``, ``unknown model``, ``quota``, ``rate limit``, ``provider error``,
``provider unreachable``, ``refused by the egress policy`` (a host that is neither allowed
nor routed), or ``no answer``.
"""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from m4agent import layout
from m4agent.errors import M4AgentError
from m4agent.harness import container as docker_layer
from m4agent.harness import metering
from m4agent.harness.agents import Agent
from m4agent.harness.egress import EgressPolicy, EgressProxy
from m4agent.harness.run import FORWARDER_COMMAND, READY_FILE, agent_script, door, metering_for
from m4agent.harness.wire.certs import MeteringCA

PROBE_SECONDS = 60
PROBLEMS = {
    "invalid_key": "rejected key",
    "unknown_model": "unknown model",
    "quota": "quota",
    "rate_limit": "rate limit",
    "server_error": "provider error",
    "bad_request": "provider error",
    "no_answer": "no answer",
}

# Run in the container with the image's python3: POST the request, trusting the system's CAs and the
# campaign's metering CA, through HTTPS_PROXY (set by the agent wrapper). "$NAME" in a header value is
# read from the environment (the sourced secrets file), so no key is on a command line.
_CLIENT = r"""
import json, os, ssl, sys, urllib.request
spec = json.loads(sys.argv[1])
headers = {k: os.path.expandvars(v) for k, v in spec["headers"].items()}
context = ssl.create_default_context()
if os.path.exists(sys.argv[2]):
    context.load_verify_locations(sys.argv[2])
request = urllib.request.Request(spec["url"], data=json.dumps(spec["body"]).encode(), headers=headers)
try:
    with urllib.request.urlopen(request, timeout=45, context=context) as answer:
        print("status", answer.status)
except urllib.error.HTTPError as exc:
    print("status", exc.code)
except Exception as exc:
    print("failed", type(exc).__name__, str(exc)[:200])
"""


@dataclass(frozen=True)
class Probe:
    """One agent and model's preflight answer."""

    agent: str
    model: str
    ok: bool
    problem: str | None = None
    detail: str = ""
    seconds: float = 0.0

    def line(self) -> str:
        verdict = "ok" if self.ok else f"FAIL ({self.problem})"
        return f"{self.agent} {self.model}: {verdict}{': ' + self.detail if self.detail else ''}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def probe(engine: Any, image: str, agent: Agent, options: Mapping[str, str], model: str,
          secrets: Mapping[str, str], policy: EgressPolicy, scratch: Path, ca: MeteringCA,
          labels: Mapping[str, str]) -> Probe:
    """Send the agent's minimal request for ``model`` from a fresh container; what the provider said."""
    started = time.monotonic()
    missing = [name for name in agent.key_variables(options) if not secrets.get(name)]
    if missing:
        return Probe(agent.name, model, False, "missing key",
                     f"{', '.join(missing)} is not in the secrets file (--secrets-file)")
    requester = getattr(agent, "probe_request", None)
    if not callable(requester):
        return Probe(agent.name, model, True, None, "calls no model")
    request = requester(options, model)
    folder = Path(tempfile.mkdtemp(prefix="p", dir=scratch))
    try:
        found = _ask(engine, image, agent, options, request, secrets, policy, folder, ca, labels)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    ok, problem, detail = found
    return Probe(agent.name, request["body"].get("model") or model, ok, problem, detail,
                 round(time.monotonic() - started, 2))


def _ask(engine: Any, image: str, agent: Agent, options: Mapping[str, str], request: dict[str, Any],
         secrets: Mapping[str, str], policy: EgressPolicy, folder: Path, ca: MeteringCA,
         labels: Mapping[str, str]) -> tuple[bool, str | None, str]:
    uid, gid = docker_layer.container_user()
    ca_copy = folder / "ca.pem"
    shutil.copyfile(ca.ca_file, ca_copy)
    binds = [*door(folder, secrets, uid, gid), docker_layer.Bind(ca_copy, layout.METERING_CA)]
    name = f"m4agent-probe-{folder.name[-8:]}-{int(time.time() * 1000) % 100000}"
    spec = docker_layer.ContainerSpec(image=image, name=name, labels=dict(labels), binds=binds,
                                      command=FORWARDER_COMMAND,
                                      limits=docker_layer.Limits(), environment={"HOME": layout.HOME,
                                                                                 "TMPDIR": layout.TMP})
    wire = metering.MeterLog(folder / metering.WIRE_FILE, list(secrets.values()), lambda usage, model: None)
    reading = metering_for(ca, agent, options, wire)
    command = ["bash", "-c", f"for i in $(seq 200); do [ -e {READY_FILE} ] && break; sleep 0.05; done; "
               f"exec python3 -c {shlex.quote(_CLIENT)} {shlex.quote(json.dumps(request))} {layout.METERING_CA}"]
    try:
        with EgressProxy(folder / "egress" / Path(layout.EGRESS_SOCKET).name, policy, folder / "egress.jsonl",
                         metering=reading), docker_layer.AgentContainer(engine, spec) as box:
            box.start()
            ran = box.exec(agent_script(command), PROBE_SECONDS, log=folder / "probe.log")
    finally:
        docker_layer.remove(engine, name)
    wire.close()
    said = (folder / "probe.log").read_text(errors="replace").strip()
    return _verdict(metering.read(folder), folder / "egress.jsonl", said, ran.timed_out)


def _verdict(wire: metering.Wire | None, egress_log: Path, said: str, timed_out: bool
             ) -> tuple[bool, str | None, str]:
    calls = [line for line in (wire.exchanges if wire else []) if line.get("protocol") is not None]
    if calls:
        last = calls[-1]
        if last.get("status") == 200 and not last.get("error"):
            return True, None, f"the provider answered (HTTP 200, model {last.get('model')})"
        problem = PROBLEMS.get(str(last.get("error")), "provider error")
        return False, problem, f"HTTP {last.get('status')}: {last.get('error_detail') or last.get('error')}"
    for line in egress_log.read_text(errors="replace").splitlines():
        event = json.loads(line)
        if event.get("event") == "decision" and event.get("status") == 502:
            return False, "provider unreachable", str(event.get("reason"))
        if event.get("event") == "decision" and event.get("allowed") is False:
            return False, "refused by the egress policy", f"{event.get('host')}: {event.get('reason')}"
    if timed_out:
        return False, "no answer", f"no answer within {PROBE_SECONDS} s"
    return False, "no answer", said[-300:] or "the probe printed nothing"


def preflight(engine: Any, image: str, pairs: list[tuple[Agent, Mapping[str, str], str]],
              secrets: Mapping[str, str], policy: EgressPolicy, scratch: Path, ca: MeteringCA,
              labels: Mapping[str, str]) -> list[Probe]:
    """Probe every (agent, options, model) once; the answers in order."""
    return [probe(engine, image, agent, options, model, secrets, policy, scratch, ca, labels)
            for agent, options, model in pairs]


def require(probes: list[Probe]) -> None:
    """Raise, naming every problem, when any probe failed (nothing has been started yet)."""
    failed = [p for p in probes if not p.ok]
    if failed:
        lines = "; ".join(p.line() for p in failed)
        raise M4AgentError(f"preflight failed, no run was started: {lines}. Fix the key (--secrets-file), the "
                           "model name or the route, or run with --no-preflight to skip the check")

