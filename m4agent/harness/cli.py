"""The harness's commands: ``m4agent run``, ``m4agent campaign plan|run|status``, ``m4agent doctor``.

Wiring only: the work is in ``campaign``, ``matrix``, ``records`` and ``doctor``.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from m4agent import campaign_folder
from m4agent.campaign_folder import RunSpec
from m4agent.cli_options import DataDir, NoFail, TasksDir, announce_data_dir
from m4agent.errors import EXIT_ERROR, EXIT_INCOMPLETE, EXIT_STRICT_FAIL, M4AgentError
from m4agent.harness.records import AttemptRecord
from m4agent.run_folder import RESULT_FILE, read_json

console = Console(stderr=True)
campaign_app = typer.Typer(help="Campaigns: a matrix of tasks x conditions x schemas x agents/models x trials, "
                           "run in locked containers, crash-safe, graded as runs finish.", no_args_is_help=True)

CampaignDir = Annotated[Path, typer.Option("--dir", help="The campaign folder (run records, results, lock file).")]
AgentNames = Annotated[list[str] | None, typer.Option("--agent", help="Agent(s) to run (with a profile: "
                                                      "required; with a matrix file: a filter).", show_default=False)]


def _progress_runner(campaign_dir: Path, data_dir: Path, workers: int | None, wait: bool,
                     as_json: bool, canary: bool, secrets: dict[str, str] | None = None,
                     routes: tuple[tuple[str, str, int], ...] = (), preflight: bool = True) -> dict[str, Any]:
    """Run the campaign under a bar counting its runs: those finished before this start count as done,
    and a run counts when it leaves the queue with a final outcome (or out of retries)."""
    from m4agent.harness import campaign

    before = campaign.status(campaign_dir)
    finished = before["runs"] - before["states"].get("pending", 0)
    for line in campaign.routing(campaign_dir, routes):
        console.print(line, soft_wrap=True, markup=False)
    outcomes: Counter[str] = Counter()
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[counts]}"),
               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=console, disable=as_json, transient=False) as progress:
        bar = progress.add_task("runs", total=max(before["runs"], 1), completed=finished, counts="")

        def on_event(kind: str, spec: RunSpec, record: AttemptRecord | None) -> None:
            if kind == "finished":
                progress.advance(bar)
            elif kind == "end" and record is not None:
                outcomes[record.outcome.value] += 1
                progress.update(bar, counts=" ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))

        return campaign.run(campaign_dir, data_dir, workers=workers, wait=wait, on_event=on_event,
                            run_canary=canary, secrets=secrets, routes=routes, preflight=preflight,
                            say=None if as_json else lambda line: console.print(line, soft_wrap=True, markup=False))


def _incomplete(summary: dict[str, Any]) -> str | None:
    """Why some runs have no result after a campaign run, or None when every run has one."""
    pending, exhausted = summary["states"].get("pending", 0), summary["states"].get("exhausted", 0)
    waiting = summary["states"].get("grading", 0)
    if not pending and not exhausted and not waiting:
        return None
    parts = []
    if waiting:
        why = summary.get("grading_failed") or "grading did not reach them"
        parts.append(f"{waiting} run(s) waiting for grading (an infrastructure failure, no run's: {why}; "
                     "fix it and run the same command again to grade them)")
    if pending:
        parts.append(f"{pending} run(s) still pending (stopped by {', '.join(summary.get('stopped', [])) or 'a stop'}: "
                     "run the same command again later to resume them)")
    if exhausted:
        parts.append(f"{exhausted} run(s) out of retries after infrastructure failures (their attempts say "
                     "why; raise max_retries in the matrix and run again)")
    return "; ".join(parts)


def _print_status(summary: dict[str, Any], as_json: bool, campaign_dir: Path) -> None:
    if as_json:
        sys.stdout.write(json.dumps(summary) + "\n")
        return
    out = Console()
    table = Table("", "runs", box=None, title=f"campaign {campaign_dir}", title_justify="left")
    for state, count in sorted(summary["states"].items()):
        table.add_row(f"state {state}", str(count))
    for outcome, count in sorted(summary["outcomes"].items()):
        table.add_row(f"outcome {outcome}", str(count))
    table.add_row("attempts", str(summary["attempts"]))
    mean = summary["mean_reward"]
    table.add_row("mean reward (results written)", "-" if mean is None else f"{mean:.4f}")
    out.print(table)
    if summary.get("stopped"):
        out.print(f"stopped before their runs ended: {', '.join(summary['stopped'])} (a provider's quota or refused key, or the "
                  "campaign's budget); their runs stay pending: run the campaign again later", soft_wrap=True)


Route = Annotated[list[str] | None, typer.Option("--route", metavar="HOST=ADDRESS:PORT",
                                                 help="Send HOST's tunnels to ADDRESS:PORT (a local model endpoint, "
                                                 "or `m4agent model-server` for a dry run); logged, and part of "
                                                 "the egress policy.", show_default=False)]


NoPreflight = Annotated[bool, typer.Option("--no-preflight", help="Skip the one-token request per agent and model "
                                           "that checks keys, models and the route before any run.")]
SecretsFile = Annotated[Path | None, typer.Option("--secrets-file", help="KEY=VALUE lines (e.g. OPENAI_API_KEY=...) "
                                                  "given to the agent through a mounted file: never in the "
                                                  "container's environment, docker inspect or the records.",
                                                  show_default=False)]


def read_secrets(path: Path | None) -> dict[str, str]:
    """The secrets file: KEY=VALUE lines; blank lines and # comments are skipped."""
    if path is None:
        return {}
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise M4AgentError(f"cannot read the secrets file {path} ({exc.strerror})") from exc
    found = {}
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        key, sep, value = text.removeprefix("export ").partition("=")
        if not sep or not key.strip().isidentifier():
            raise M4AgentError(f"{path}, line {number}: expected KEY=VALUE")
        found[key.strip()] = value.strip().strip('"').strip("'")
    return found




@campaign_app.command("plan")
def campaign_plan(
    matrix: Annotated[str, typer.Argument(help="A matrix TOML file, or a built-in profile: rerun-v1.1, "
                                          "operational-spec.")],
    campaign_dir: CampaignDir,
    agent: AgentNames = None,
    tasks_dir: TasksDir = None,
    add: Annotated[bool, typer.Option("--add", help="Add this matrix's runs to the campaign the folder already "
                                      "holds (without it, such a folder is refused).")] = False,
    usage_from: Annotated[list[Path] | None, typer.Option("--usage-from", metavar="DIR", help="An earlier campaign (or a folder "
                                                          "of campaigns) whose measured tokens and times the "
                                                          "estimate uses; repeatable.", show_default=False)] = None,
    workers: Annotated[int | None, typer.Option("--workers", help="Containers at once the wall time is estimated "
                                                "for (default: the matrix's).", show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan (runs, blocks, estimate) as JSON.")] = False,
) -> None:
    """Plan a campaign: expand the matrix into runs, each with a content-hash key and a folder, and estimate
    its tokens, dollars and wall time before any is run."""
    from m4agent.harness import campaign, estimate, records
    from m4agent.harness.matrix import block_counts

    for folder in usage_from or []:  # checked before the plan is written: a refused command writes nothing
        if estimate.planned_runs_under(folder) == 0:
            raise M4AgentError(f"--usage-from {folder} holds no campaign's runs (give a campaign folder, "
                               "holding campaign.json and plan.json, or a folder of them)")
    built = campaign.plan(matrix, campaign_dir, agents=agent, tasks_dir=tasks_dir, add=add)
    whole, _, _ = campaign._matrix(campaign_dir)
    left = [spec for spec in campaign_folder.planned_runs(campaign_dir)
            if records.state(campaign_folder.run_folder(campaign_dir, spec), whole.max_retries) is records.RunState.PENDING]
    found = estimate.estimate(whole, left, estimate.measure([campaign_dir, *(usage_from or [])]), workers)
    blocks = block_counts(built)
    if as_json:
        sys.stdout.write(json.dumps({
            "campaign_dir": str(campaign_dir), "planned": len(built.runs), "skipped": built.skipped,
            "blocks": [{"block": name, "runs": sum(c.values()), "agent_models": dict(c)} for name, c in blocks.items()],
            "runs": [json.loads(line) for line in campaign.write_planned(campaign_dir).splitlines()],
            "estimate": found.as_json()}) + "\n")
        return
    total = len(campaign_folder.planned_runs(campaign_dir))
    console.print(f"planned {len(built.runs)} runs in {campaign_dir}"
                  + (f" ({len(built.skipped)} cells skipped: eICU has no transformed schema)" if built.skipped else "")
                  + (f"; the campaign holds {total}" if total != len(built.runs) else ""), soft_wrap=True)
    _print_blocks(blocks)
    _print_estimate(found)
    keys = sorted({key for entry in built.agents.values() for key in entry.agent.key_variables(entry.options)})
    secrets = f" --secrets-file FILE   (FILE: {', '.join(f'{k}=...' for k in keys)}; docs/agents.md)" if keys else ""
    console.print(f"next: m4agent campaign run --dir {campaign_dir}{secrets}", soft_wrap=True, markup=False)


def _print_blocks(blocks: dict[str, Counter[str]]) -> None:
    columns = list(dict.fromkeys(name for counts in blocks.values() for name in counts))
    table = Table("block", "runs", *columns, box=None, pad_edge=False)
    for name, counts in blocks.items():
        table.add_row(name, str(sum(counts.values())), *(str(counts.get(c, 0)) for c in columns))
    console.print(table)


def _tokens(usage: dict[str, float | None] | None, uses_model: bool) -> str:
    """Tokens per run: input / cache read / cache write / output ("n/a" where the provider reports none)."""
    if not uses_model:
        return "none (no model)"
    if usage is None:
        return "unknown"
    return " / ".join("n/a" if usage.get(name) is None else f"{usage[name]:,.0f}"
                      for name in ("input", "cache_read", "cache_write", "output"))


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.2f}"


def _print_estimate(found: Any) -> None:
    """The estimate as a table, each row's sources under it, and the totals."""
    if not found.rows:
        console.print("estimate: no run left to run")
        return
    console.print(f"estimate for the {found.runs} runs to run (tokens: input / cache read / cache write / output; "
                  "time: the agent phase):", soft_wrap=True)
    table = Table("agent/model", "runs", "tokens per run", "$ per run", "$ total", "minutes per run",
                  box=None, pad_edge=False)
    notes = []
    for row in found.rows:
        minutes = f"{'' if row.measured_seconds else '<= '}{row.seconds_per_run / 60:.1f}"
        table.add_row(f"{row.agent}/{row.model}", str(row.runs), _tokens(row.usage, row.uses_model),
                      _usd(row.usd_per_run), _usd(row.usd_total), minutes)
        notes.append(f"  {row.agent}/{row.model} tokens: {row.tokens_source}")
        notes.append(f"  {row.agent}/{row.model} {'price: ' + row.price + '; ' if row.price else ''}"
                     f"time: {row.seconds_source}")
    console.print(table)
    for line in notes:
        console.print(line, soft_wrap=True, markup=False)
    if found.usd is not None:
        usd = _usd(found.usd)
    elif found.usd_known:
        usd = f"unknown ({_usd(found.usd_known)} for the agent/models whose cost is known)"
    else:
        usd = "unknown"
    bound = {"measured": "about ", "upper bound": "at most "}.get(found.wall_kind, "about ")
    partly = " (the limit where not measured)" if found.wall_kind == "partly upper bound" else ""
    caps = "".join(f", {p} at most {c} at once" for p, c in sorted(found.provider_caps.items()))
    console.print(f"total: dollars {usd}; wall time {bound}{found.wall_seconds / 3600:.1f} h{partly} at "
                  f"{found.workers} worker(s){caps} (campaign run --workers N)", soft_wrap=True, markup=False)
    caps_set = ", ".join(f"{name} = {value:g}" for name, value in found.budget.items())
    console.print(f"budget: {caps_set or 'none'} ([budget] in the matrix: per_run_usd, per_campaign_usd)",
                  soft_wrap=True, markup=False)


@campaign_app.command("run")
def campaign_run(
    campaign_dir: CampaignDir,
    data_dir: DataDir = None,
    workers: Annotated[int | None, typer.Option("--workers", help="Containers at once (default: the matrix's).",
                                                show_default=False)] = None,
    no_wait: Annotated[bool, typer.Option("--no-wait", help="Fail at once when another m4agent process runs this "
                                          "campaign, instead of waiting for it.")] = False,
    no_canary: Annotated[bool, typer.Option("--no-canary", help="Skip the filesystem canary (development only).")] = False,
    secrets_file: SecretsFile = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the final status as JSON.")] = False,
    route: Route = None,
    no_preflight: NoPreflight = False,
) -> None:
    """Run or resume a planned campaign: pending runs in containers, then grading; safe to kill and restart.

    First one minimal request per agent and model (the preflight) checks keys, models and routes;
    a problem stops the start before any run. Exit 0 when every planned run has its result, 3 when
    some have none yet (see the exit codes)."""
    from m4agent.model_server.cli import parse_route

    summary = _progress_runner(campaign_dir, announce_data_dir(data_dir, console), workers, not no_wait, as_json,
                               not no_canary, read_secrets(secrets_file), tuple(parse_route(r) for r in route or ()),
                               preflight=not no_preflight)
    _print_status(summary, as_json, campaign_dir)
    missing = _incomplete(summary)
    if missing:
        console.print(f"[yellow]incomplete[/]: {missing}", soft_wrap=True)
        raise typer.Exit(EXIT_INCOMPLETE)


@campaign_app.command("status")
def campaign_status(
    campaign_dir: CampaignDir,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Counts of runs per state and outcome, read from the run records alone (never blocks a running campaign)."""
    from m4agent.harness import campaign

    summary = campaign.status(campaign_dir)
    _print_status(summary, as_json, campaign_dir)


def run_one(
    task: Annotated[str, typer.Argument(help="Task name, e.g. mimic-sofa-24h.")],
    campaign_dir: CampaignDir,
    agent: Annotated[str, typer.Option("--agent", help="oracle, null, shell, or an agent CLI: claude, codex, "
                                       "gemini, pi (docs/agents.md).")] = "oracle",
    condition: Annotated[str, typer.Option("--condition", help="no-skill, with-skill, with-skill-all, "
                                           "with-skill-decoy, with-skill-rawsql, operational-spec.")] = "no-skill",
    schema: Annotated[str, typer.Option("--schema", help="native, obfuscated or restructured.")] = "native",
    model: Annotated[str, typer.Option("--model", help="Model name, or default.")] = "default",
    trial: Annotated[int, typer.Option("--trial", help="Trial number.")] = 1,
    option: Annotated[list[str] | None, typer.Option("--agent-option", metavar="KEY=VALUE",
                                                     help="An option of the agent, e.g. script=./my_agent.sh for "
                                                     "shell.", show_default=False)] = None,
    data_dir: DataDir = None,
    tasks_dir: TasksDir = None,
    secrets_file: SecretsFile = None,
    route: Route = None,
    no_preflight: NoPreflight = False,
    no_fail: NoFail = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the run's result.json.")] = False,
) -> None:
    """Run one task with one agent in a locked container and grade it (a one-run campaign in --dir).

    Exit 0 on a strict pass, 2 on a strict failure or no output, 3 when the run got no result (see the
    exit codes). Again with another --trial, the same --dir holds the new trial beside the first."""
    from m4agent.harness import campaign
    from m4agent.model_server.cli import parse_route

    options = _agent_options(option)
    doc = {"campaign": {"tasks": [task], "conditions": [condition], "schemas": [schema], "trials": 1,
                        "first_trial": trial},
           "agents": [{"name": agent, "models": [model], "options": options}]}
    routes = tuple(parse_route(r) for r in route or ())
    own = campaign.origin(campaign_dir) == campaign.RUN_ORIGIN
    built = campaign.plan_doc(doc, Path.cwd(), campaign_dir, tasks_dir, add=own,
                              planned_by=campaign.RUN_ORIGIN)
    [spec] = built.runs
    folder = campaign_folder.run_folder(campaign_dir, spec)
    if (folder / RESULT_FILE).exists():
        trials = [s.trial for s in campaign_folder.planned_runs(campaign_dir) if s.task == spec.task
                  and (s.condition, s.schema, s.agent, s.model) == (spec.condition, spec.schema, spec.agent, spec.model)]
        console.print(f"[yellow]already run[/]: this run finished before; its result is shown, nothing was run. "
                      f"Another trial: the same command with --trial {max(trials) + 1}", soft_wrap=True)
    else:
        summary = _progress_runner(campaign_dir, announce_data_dir(data_dir, console), 1, True, as_json, True,
                                   read_secrets(secrets_file), routes, preflight=not no_preflight)
        if not (folder / RESULT_FILE).exists():
            console.print(f"[yellow]incomplete[/]: no result for the run: {_incomplete(summary)}", soft_wrap=True)
            raise typer.Exit(EXIT_INCOMPLETE)
    result = read_json(folder / RESULT_FILE)
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        Console().print(f"{task} {agent}: outcome [bold]{result['outcome']}[/], reward {result['reward']:.6f}, "
                        f"{'strict pass' if result['strict_pass'] else 'strict fail'} ({folder})")
    if not result["strict_pass"] and not no_fail:
        raise typer.Exit(EXIT_STRICT_FAIL)


def doctor(
    data_dir: DataDir = None,
    reap: Annotated[bool, typer.Option("--reap", help="Also remove the m4agent containers of campaigns whose "
                                       "harness died (never those of a running campaign).")] = False,
    agent: Annotated[str | None, typer.Option("--agent", help="Also send this agent's one-token request to its "
                                              "provider (claude, codex, gemini, pi): is the key accepted, the "
                                              "model known, the provider reachable?", show_default=False)] = None,
    model: Annotated[str, typer.Option("--model", help="The model to ask for (with --agent).")] = "default",
    option: Annotated[list[str] | None, typer.Option("--agent-option", metavar="KEY=VALUE",
                                                     help="An option of the agent (with --agent).",
                                                     show_default=False)] = None,
    secrets_file: SecretsFile = None,
    route: Route = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Check what campaigns need: Docker reachable, the agent image present, data built, disk space, clock;
    with --agent, one request to the agent's provider through a real container (key, model, route)."""
    from m4agent.harness.doctor import checks

    found = checks(announce_data_dir(data_dir, console), reap=reap)
    if agent is not None and all(check["ok"] for check in found if check["name"] in ("docker", "image")):
        try:
            found.append(_probe_check(agent, model, _agent_options(option), read_secrets(secrets_file), route))
        except M4AgentError as exc:
            found.append({"name": f"provider ({agent})", "ok": False, "detail": str(exc)})
    if as_json:
        sys.stdout.write(json.dumps(found) + "\n")
    else:
        out = Console()
        for check in found:
            mark = "[green]ok[/]" if check["ok"] else "[red]FAIL[/]"
            out.print(f"{mark} {check['name']}: {check['detail']}", soft_wrap=True)
    if not all(check["ok"] for check in found):
        raise typer.Exit(EXIT_ERROR)


def _agent_options(items: list[str] | None) -> dict[str, str]:
    options = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise M4AgentError(f"--agent-option takes KEY=VALUE, not {item!r}")
        options[key] = str(Path(value).resolve()) if key == "script" else value
    return options


def _probe_check(name: str, model: str, options: dict[str, str], secrets: dict[str, str],
                 route: list[str] | None) -> dict[str, Any]:
    """The preflight of one agent and model, as a doctor check."""
    import tempfile

    from m4agent.harness import container, probe
    from m4agent.harness.agents import get_agent
    from m4agent.harness.egress import policy_for
    from m4agent.harness.image import image_tag
    from m4agent.harness.wire.certs import MeteringCA
    from m4agent.model_server.cli import parse_route

    adapter = get_agent(name)
    adapter.mounts(options)  # checks the options (and a subscription's files) before anything starts
    routes = tuple(parse_route(r) for r in route or ())
    policy = policy_for((), routes=routes) if routes else policy_for(adapter.providers_for(options))
    with tempfile.TemporaryDirectory(prefix="m4a-probe-") as scratch:
        ca = MeteringCA(Path(scratch) / "ca")
        answer = probe.probe(container.client(), image_tag(), adapter, options, model, secrets, policy,
                             Path(scratch), ca, {container.LABEL_ROLE: "probe"})
    return {"name": f"provider ({name} {answer.model})", "ok": answer.ok,
            "detail": answer.detail if answer.ok else f"{answer.problem}: {answer.detail}"}
