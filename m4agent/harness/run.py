"""One attempt of one run: workspace, container, phases, collection, outcome.

``run_attempt`` takes a planned run and an attempt folder and leaves in it:

- ``output.csv``: the agent's output, when it left a regular file by that name (its one copy);
- ``workspace/`` and ``workspace.json``: what else the agent left, bounded, and the list of
  every entry (``collect``; the database file, a copy of the campaign's template, is not kept);
- ``trace.log``: the agent's standard output and error, merged (bounded);
- ``setup.log``: the harness's own setup phase;
- ``egress.jsonl``: the egress proxy's decisions (bounded) and their summary;
- ``wire.jsonl``: for the real CLIs, every model exchange as the metering proxy read it, and
  the tally (tokens, cost, errors) the ledger, the budget and a provider failure come from
  (``metering``), never the CLI's own output;

Every file but ``output.csv`` is written without the secrets given to the attempt (``redact``).
- ``attempt.json``: the outcome and its facts (``records.AttemptRecord``).

The phases: the container starts with the egress forwarder as its main process;
*setup* waits for the forwarder and copies the seed into the workspace's tmpfs (the
instruction, the skills and ``database.duckdb``: a copy of the template the campaign built
for the task's plan with the image's own DuckDB, ``templates``); *agent* runs the adapter's
command as the agent's user; at its end (exit or time limit) every process of the agent is
killed, so nothing writes afterwards; *collect* archives the workspace (and the HOME files
the adapter names) from inside the container and ``collect`` reads that stream. Each phase
has its own time limit; the container is removed whatever happens, and the removal is verified.

Blame: everything in the workspace is the agent's, so what collection finds there ends in
the agent's outcome (``policy_violation``, ``no_output`` ...). Only what the harness can show
is not the agent's doing (Docker's API failing, the setup phase failing before the agent
ran, the harness interrupted) is an ``infra_error``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from m4agent import interrupts, layout, workspaces
from m4agent.campaign_folder import RunSpec
from m4agent.errors import M4AgentError
from m4agent.harness import collect, integrity, ledger, metering, records, redact, trajectory
from m4agent.harness import container as docker_layer
from m4agent.harness.agents import Agent, AgentContext
from m4agent.harness.conditions import place_skills
from m4agent.harness.container import ContainerSpec
from m4agent.harness.egress import EgressPolicy, EgressProxy, Metering
from m4agent.harness.instructions import build_instruction
from m4agent.harness.records import AttemptRecord, Outcome
from m4agent.harness.wire.certs import MeteringCA, upstream_context
from m4agent.harness.wire.intercept import Meter
from m4agent.registry import Task

FORWARDER = Path(__file__).resolve().parent / "forwarder.py"
COLLECT_DIR = ".m4agent-collected"
READY_FILE = f"{layout.TMP}/egress-ready"
ARCHIVE_NAME = "collect.tar"  # in the attempt's scratch folder, never in the campaign folder
OOM_FIRST = 1000  # the agent's oom_score_adj: under memory pressure the kernel kills the agent, not the forwarder


def scratch_root(campaign_id: str) -> Path:
    """A campaign's scratch folder on the host (short: a Unix socket's path is at most 107 bytes)."""
    return Path(tempfile.gettempdir()) / f"m4a-{campaign_id[:8]}"


@dataclass
class RunContext:
    """What every attempt of a campaign shares."""

    engine: Any  # docker.DockerClient
    image: str
    data_dir: Path
    tasks: Mapping[str, Task]
    campaign_id: str
    campaign_dir: Path
    policy: EgressPolicy
    limits: docker_layer.Limits = field(default_factory=docker_layer.Limits)
    secrets: Mapping[str, str] = field(default_factory=dict)
    agent_options: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    solutions: Mapping[str, Path] = field(default_factory=dict)  # task -> reference export (oracle)
    templates: Mapping[tuple[str, str], Path] = field(default_factory=dict)  # (task, schema) -> its database
    metering_ca: MeteringCA | None = None  # ends the CLIs' TLS in the egress proxy (None: tunnels not read)
    per_run_usd: float | None = None  # the proxy answers further model requests itself once a run spent this

    def scratch(self) -> Path:
        """The campaign's scratch folder (``scratch_root``), made on first use; ``campaign.run`` empties it
        when a start begins and removes it when the start ends."""
        path = scratch_root(self.campaign_id)
        path.mkdir(mode=0o700, exist_ok=True)
        return path

    def host_paths(self) -> list[str]:
        """Host paths no workspace should mention (the contamination lint looks for them)."""
        return sorted({str(self.data_dir), str(self.campaign_dir.resolve()), str(Path.home())} - {"/"})


def instruction_for(ctx: RunContext, spec: RunSpec) -> str:
    task = ctx.tasks[spec.task]
    rewrite = None
    if spec.schema != "native":
        def rewrite(text: str) -> str:
            return workspaces.rewrite_instruction(text, task, spec.schema, ctx.data_dir)
    return build_instruction(task, spec.condition, rewrite=rewrite)


def _write_secrets(folder: Path, secrets: Mapping[str, str], uid: int, gid: int) -> Path:
    path = folder / "env"
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as handle:
        for key, value in sorted(secrets.items()):
            handle.write(f"{key}={value}\n")
    if os.getuid() == 0:
        os.chown(path, uid, gid)
    return path


FORWARDER_COMMAND = ["python3", f"{layout.RUNTIME}/forwarder.py", "--listen", f"127.0.0.1:{layout.PROXY_PORT}",
                     "--socket", layout.EGRESS_SOCKET, "--ready", READY_FILE]  # the container's main process


def door(scratch: Path, secrets: Mapping[str, str], uid: int, gid: int) -> list[docker_layer.Bind]:
    """The way out and the keys: the forwarder's folder, the egress socket's folder and the secrets file,
    made under ``scratch`` and bound where ``layout`` says (every agent container, and the preflight's)."""
    runtime = scratch / "runtime"
    runtime.mkdir()
    shutil.copy(FORWARDER, runtime / "forwarder.py")
    egress_dir = scratch / "egress"
    egress_dir.mkdir()
    egress_dir.chmod(0o755)
    secrets_dir = scratch / "secrets"
    secrets_dir.mkdir(mode=0o700)
    if os.getuid() == 0:
        os.chown(secrets_dir, uid, gid)
    return [docker_layer.Bind(runtime, layout.RUNTIME),
            docker_layer.Bind(egress_dir, layout.EGRESS_DIR),  # read-only: connecting to a socket writes nothing
            docker_layer.Bind(_write_secrets(secrets_dir, secrets, uid, gid), layout.SECRETS_FILE)]


def neutral_source(source: Path, mounts: Path, index: int) -> Path:
    """A copy of ``source`` under the scratch folder, so a mount's source names nothing of the host's
    layout (``/proc/self/mountinfo`` shows it): hard links (a file, or a folder's files), else a copy
    of a file. A folder on another file system than the scratch folder is bound where it is (``source``)."""
    target = mounts / f"m{index}"
    if source.is_file():
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)
        return target
    try:
        for folder, _dirs, files in os.walk(source):
            place = target / Path(folder).relative_to(source)
            place.mkdir(parents=True, exist_ok=True)
            for name in files:
                os.link(Path(folder) / name, place / name)
    except OSError:
        shutil.rmtree(target, ignore_errors=True)
        return source
    return target


def agent_script(agent_command: list[str]) -> list[str]:
    """The agent's command wrapped: first in line for the OOM killer, secrets sourced from the mounted
    file, proxy set; when the agent's process ends, every other process of its user is killed at once
    (a child holding the output stream open writes nothing after the agent's exit)."""
    proxy = f"http://127.0.0.1:{layout.PROXY_PORT}"
    prelude = (f'echo {OOM_FIRST} > /proc/self/oom_score_adj 2>/dev/null; '
               f'if [ -r {layout.SECRETS_FILE} ]; then set -a; . {layout.SECRETS_FILE}; set +a; fi; '
               f'export HTTPS_PROXY={proxy} HTTP_PROXY={proxy} ALL_PROXY={proxy} https_proxy={proxy} '
               f'http_proxy={proxy} all_proxy={proxy} NO_PROXY=localhost,127.0.0.1 no_proxy=localhost,127.0.0.1; '
               '"$@"; code=$?; kill -KILL -1 2>/dev/null; exit $code')
    return ["bash", "-c", prelude, "m4agent-agent", *agent_command]


def run_attempt(ctx: RunContext, spec: RunSpec, agent: Agent, attempt: Path) -> AttemptRecord:
    """Run one attempt in a fresh container and record its outcome; never raises for the agent's faults."""
    number = int(attempt.name)
    record = AttemptRecord(number=number, outcome=Outcome.INFRA_ERROR, started_at=records.now())
    name = f"m4agent-{ctx.campaign_id[:8]}-{spec.key[:12]}-a{number}"
    record.container = name
    scratch = Path(tempfile.mkdtemp(prefix="a", dir=ctx.scratch()))
    try:
        _attempt_body(ctx, spec, agent, attempt, record, name, scratch)
    except M4AgentError as exc:
        record.outcome, record.reason = Outcome.INFRA_ERROR, str(exc)
    except Exception as exc:  # Docker or the file system failed: the harness's fault, retried
        record.outcome, record.reason = Outcome.INFRA_ERROR, f"{type(exc).__name__}: {exc}"
    finally:
        try:
            docker_layer.remove(ctx.engine, name)
        except M4AgentError as exc:
            record.outcome, record.reason = Outcome.INFRA_ERROR, str(exc)
        shutil.rmtree(scratch, ignore_errors=True)
    if interrupts.requested():  # Ctrl-C removed the container under the agent: not the agent's outcome
        record.outcome, record.reason = Outcome.INFRA_ERROR, records.INTERRUPTED
    record.ended_at = records.now()
    redactor = redact.Redactor(list(ctx.secrets.values()))
    held = _redact_records(redactor, attempt)
    if held:  # the agent printed or kept a secret it was given: gone from the records, and flagged
        record.extra.setdefault("flags", []).append({"rule": integrity.RULE_SECRET_VALUE, "path": ", ".join(held),
                                                    "excerpt": "a secret given to the agent (redacted)"})
    records.finish_attempt(attempt, record)
    try:  # the trace (redacted) stays as it is; its steps in the one trajectory format go beside it
        trajectory.write(attempt, agent)
    except Exception as exc:  # a trace no parser foresaw never fails the attempt; the raw trace is kept
        records.write_json_atomic(attempt / "trajectory.error.json", {"error": f"{type(exc).__name__}: {exc}"})
    if redactor:  # the record's reason and ledger were read from the trace before it was redacted
        redactor.file(attempt / records.ATTEMPT_FILE)
    return record


def _redact_records(redactor: redact.Redactor, attempt: Path) -> list[str]:
    """Every secret spelling removed from the attempt's records (all but the graded output); the files
    that held one."""
    return redactor.tree(attempt, untouched={layout.OUTPUT_NAME}) if redactor else []


def prepare_box(ctx: RunContext, spec: RunSpec, agent: Agent, scratch: Path, role: str, name: str,
                attempt_number: int, with_solution: bool = True) -> ContainerSpec:
    """Fill the seed (instruction, skills, database) and assemble the container: mounts, labels, limits.

    Every bind's source lies in ``scratch`` under a neutral name (``neutral_source``). The canary
    uses the same function, so it probes exactly what an agent gets."""
    task = ctx.tasks[spec.task]
    options = ctx.agent_options.get(spec.agent, {})
    uid, gid = docker_layer.container_user()
    seed = scratch / "seed"
    seed.mkdir()
    (seed / layout.INSTRUCTION_NAME).write_text(instruction_for(ctx, spec))
    place_skills(task, spec.condition, ctx.tasks, seed / agent.skills_dir)
    template = ctx.templates.get((spec.task, spec.schema))
    if template is None:
        raise M4AgentError(f"no workspace database built for {spec.task} ({spec.schema})")
    shutil.copyfile(template, seed / layout.DATABASE_NAME)  # kilobytes: the run's own database
    for folder, dirs, files in os.walk(seed):  # readable by the agent's user, whoever runs the harness
        for entry in dirs:
            os.chmod(os.path.join(folder, entry), 0o755)
        for entry in files:
            os.chmod(os.path.join(folder, entry), 0o644)
    seed.chmod(0o755)

    data_root = workspaces.data_root(ctx.data_dir, spec.schema)  # prepared once, at the campaign's start
    plan = workspaces.plan_for(task, ctx.data_dir, spec.schema)
    binds = [docker_layer.Bind(seed, layout.SEED), *door(scratch, ctx.secrets, uid, gid)]
    outside = list(workspaces.mounts(plan, data_root)) + list(agent.mounts(options))
    if metered(ctx, agent):
        assert ctx.metering_ca is not None
        outside.append((ctx.metering_ca.ca_file, layout.METERING_CA))
    if agent.needs_solution and with_solution:
        solution = ctx.solutions.get(spec.task)
        if solution is None:
            raise M4AgentError(f"no reference export for {spec.task} (the oracle needs one)")
        outside.append((solution, f"{layout.SOLUTION}/{layout.OUTPUT_NAME}"))
    mounts = scratch / "mounts"
    mounts.mkdir()
    for index, (host, target) in enumerate(outside):
        binds.append(docker_layer.Bind(neutral_source(Path(host), mounts, index), target))

    labels = {**docker_layer.campaign_labels(ctx.campaign_id, ctx.campaign_dir, role), docker_layer.LABEL_RUN: spec.key,
              docker_layer.LABEL_ATTEMPT: str(attempt_number)}
    return ContainerSpec(image=ctx.image, name=name, labels=labels, binds=binds, command=FORWARDER_COMMAND,
                         limits=ctx.limits, environment={"HOME": layout.HOME, "TMPDIR": layout.TMP,
                                                         "LANG": "C.UTF-8", "TZ": "UTC",
                                                         "PYTHONHASHSEED": "0"})


def metered(ctx: RunContext, agent: Agent) -> bool:
    """Whether the attempt's model traffic is read on the wire: a real CLI, and a campaign CA to do it."""
    return ctx.metering_ca is not None and agent.calls_models


def metering_for(ca: MeteringCA, agent: Agent, options: Mapping[str, str], log: metering.MeterLog) -> Metering:
    """How the proxy reads this agent's tunnels: the campaign CA toward the CLI, the system's CAs (and the
    agent's ``ca_cert``) toward the provider, every exchange into ``log``."""
    upstream_ca = getattr(agent, "upstream_ca", None)
    return Metering(ca, upstream_context(upstream_ca(options) if callable(upstream_ca) else None),
                    Meter(record=log.record, refusal=log.refusal))


def _meter_log(ctx: RunContext, spec: RunSpec, agent: Agent, attempt: Path) -> metering.MeterLog:
    options = ctx.agent_options.get(spec.agent, {})
    provider = ledger.pricing_provider(agent, options)

    def price(usage: ledger.Usage, model: str) -> float | None:
        return ledger.estimate(usage, provider, model or spec.model).usd

    return metering.MeterLog(attempt / metering.WIRE_FILE, list(ctx.secrets.values()), price,
                             per_run_usd=ctx.per_run_usd)


SETUP_COMMAND = ["bash", "-c", f"for i in $(seq 200); do [ -e {READY_FILE} ] && break; sleep 0.05; done; "
                 f"[ -e {READY_FILE} ] || {{ echo 'egress forwarder not ready' >&2; exit 3; }}; "
                 f"cp -R --no-dereference {layout.SEED}/. {layout.WORKSPACE}/ || exit 5; "
                 f"[ -r {layout.WORKSPACE}/{layout.DATABASE_NAME} ] || {{ echo 'no database' >&2; exit 4; }}"]


def _attempt_body(ctx: RunContext, spec: RunSpec, agent: Agent, attempt: Path, record: AttemptRecord,
                  name: str, scratch: Path) -> None:
    options = ctx.agent_options.get(spec.agent, {})
    box_spec = prepare_box(ctx, spec, agent, scratch, "agent", name, record.number)
    instruction = (scratch / "seed" / layout.INSTRUCTION_NAME).read_text()
    run_instruction = attempt.parent.parent / layout.INSTRUCTION_NAME
    if not run_instruction.exists():
        run_instruction.write_text(instruction)
    record.extra.update(image=ctx.image, policy_digest=ctx.policy.digest())
    egress_dir = scratch / "egress"
    egress_log = attempt / "egress.jsonl"
    egress_log.touch()
    limits = ctx.limits
    wire: metering.MeterLog | None = None
    reading: Metering | None = None
    if metered(ctx, agent):
        assert ctx.metering_ca is not None
        wire = _meter_log(ctx, spec, agent, attempt)
        reading = metering_for(ctx.metering_ca, agent, options, wire)
    with EgressProxy(egress_dir / Path(layout.EGRESS_SOCKET).name, ctx.policy, egress_log, metering=reading), \
            docker_layer.AgentContainer(ctx.engine, box_spec) as box:
        box.start()
        setup = box.exec(SETUP_COMMAND, limits.setup_seconds, log=attempt / "setup.log")
        record.phases["setup"] = round(setup.seconds, 3)
        if setup.timed_out or setup.exit_code != 0:
            why = "timed out" if setup.timed_out else f"exited {setup.exit_code}"
            raise M4AgentError(f"workspace setup {why} (see setup.log)")
        context = AgentContext(instruction_file=f"{layout.WORKSPACE}/{layout.INSTRUCTION_NAME}",
                               instruction=instruction, model=spec.model, options=options)
        ran = box.exec(agent_script(agent.command(context)), limits.agent_seconds,
                       log=attempt / "trace.log", environment={"M4AGENT_INSTRUCTION": context.instruction_file},
                       stop_agent_on_timeout=True)
        record.phases["agent"] = round(ran.seconds, 3)
        record.exit_code = ran.exit_code
        if ran.truncated:
            record.extra["trace_truncated"] = True
        started = time.monotonic()
        lint = integrity.Lint(None if agent.needs_solution else ctx.solutions.get(spec.task), ctx.host_paths(),
                              list(ctx.secrets.values()))
        collected = _collect(box, agent, attempt, scratch, lint)
        record.phases["collect"] = round(time.monotonic() - started, 3)
    summary = wire.close() if wire is not None else None  # the proxy has stopped: the tally is whole
    _classify(ctx, spec, agent, attempt, collected, ran.timed_out, ran.exit_code, record, summary)


def _collect(box: docker_layer.AgentContainer, agent: Agent, attempt: Path, scratch: Path,
             lint: integrity.Lint) -> collect.Collected:
    """Stop every process of the agent, then read the workspace out of the container (``collect``).

    A container the agent's processes could not be shown dead in, or one that is gone (the agent
    ran it out of memory), leaves nothing trustworthy to collect: the workspace is lost, which is
    the agent's outcome (``no_output``, with the reason), never a retried infrastructure error."""
    state = box.state()
    if not state.get("Running") or not box.stop_agent():
        why = "out of memory" if state.get("OOMKilled") else "its processes could not be stopped"
        return collect.Collected(why_no_output=f"the workspace was lost: the container ended during the agent "
                                               f"phase ({why})", findings=lint.findings())
    archive = scratch / ARCHIVE_NAME
    command = list(collect.TAR_COMMAND)
    if agent.collect_from_home:  # the adapter's own files in HOME, under COLLECT_DIR in the archive
        command = ["bash", "-c", f'mkdir -p {layout.WORKSPACE}/{COLLECT_DIR} && for p in "$@"; do '
                   f'[ -e "$HOME/$p" ] && cp -R --no-dereference "$HOME/$p" {layout.WORKSPACE}/{COLLECT_DIR}/; '
                   'done; exec ' + " ".join(command), "collect", *agent.collect_from_home]
    limit = docker_layer.memory_bytes(box.spec.limits.workspace_size) + 64 * 1024 * 1024  # tar's headers
    for _ in range(2):  # tar's archive is never empty: empty and silent, the exec did not run (the engine's)
        ran, errors = box.exec_capture(command, box.spec.limits.collect_seconds, archive, limit)
        if archive.stat().st_size > 0 or errors or ran.timed_out:  # tar ran: what it met is the agent's
            break
    else:
        raise M4AgentError(f"collection produced nothing (exit {ran.exit_code}): {errors[:200]!r}")
    complete = not ran.truncated and not ran.timed_out
    if not complete:
        box.kill()
    return collect.collect(archive, attempt, lint, complete=complete, tar_errors=errors)


def _classify(ctx: RunContext, spec: RunSpec, agent: Agent, attempt: Path, collected: collect.Collected,
              timed_out: bool, exit_code: int | None, record: AttemptRecord, wire: dict[str, Any] | None) -> None:
    """Decide the attempt's one outcome from what the harness saw, collected and read on the wire.

    With a wire record (the real CLIs), the ledger and a provider failure come from it alone;
    the CLI's own account of its tokens and cost is kept in the ledger as ``reported``."""
    record.has_output = collected.output is not None
    trace_text = (attempt / "trace.log").read_text(errors="replace") if (attempt / "trace.log").exists() else ""
    options = ctx.agent_options.get(spec.agent, {})
    reported = ledger.for_attempt(agent, spec.model, options, trace_text)
    entry = reported
    if wire is not None:
        provider = ledger.pricing_provider(agent, options)
        entry = metering.ledger_entry(wire, provider, spec.model, reported, ledger.load_prices().version)
        if wire.get("budget_spent"):
            record.extra["budget_exceeded"] = True
    if entry is not None:
        record.extra["ledger"] = entry
    allowed, denied = integrity.egress_verdict(attempt / "egress.jsonl", ctx.policy)
    flags = [f for f in collected.findings if f.rule in integrity.FLAG_RULES]
    record.add_violations({"rule": "egress", **event} for event in denied)
    record.add_violations(_violation_json(v) for v in collected.findings if v.rule not in integrity.FLAG_RULES)
    if flags:  # graded all the same, and reported apart for review
        record.extra["flags"] = [_violation_json(v) for v in flags]
    if record.violations:
        record.outcome = Outcome.POLICY_VIOLATION
        record.reason = "; ".join(sorted({v["rule"] for v in record.violations}))
    elif timed_out:
        record.outcome, record.reason = Outcome.TIMEOUT, f"agent phase over {ctx.limits.agent_seconds:g} s"
    elif exit_code != 0:
        record.outcome, record.reason = Outcome.AGENT_ERROR, f"agent exited {exit_code}"
    elif collected.output is None:
        record.outcome, record.reason = Outcome.NO_OUTPUT, collected.why_no_output
    else:
        record.outcome, record.reason = Outcome.SCORED, ""
    failed = None
    if record.outcome in (Outcome.AGENT_ERROR, Outcome.NO_OUTPUT, Outcome.TIMEOUT):
        failed = metering.failure(wire) if wire is not None else agent.failure(trace_text)
    if failed is not None:  # the provider failed, not the model: retried, never scored as the model's zero
        record.outcome, record.reason = Outcome(failed[0]), failed[1]
    elif record.extra.get("budget_exceeded") and record.outcome is not Outcome.SCORED:
        # like the time limit: the run had its allowance; what it left is graded
        record.reason = f"{record.reason}; the run's budget (per_run_usd) was spent, further model requests refused"


def _violation_json(violation: Any) -> dict[str, Any]:
    if isinstance(violation, dict):
        return violation
    if hasattr(violation, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(violation)
    return {"rule": str(violation)}
