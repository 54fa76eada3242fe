"""Campaigns: plan a matrix into run folders, run them crash-safely, grade them as they finish.

A campaign folder holds:

- ``campaign.json``: its id, every matrix it was planned from, as given, and the tasks folder;
- ``plan.json``: every planned run (spec and key), written by ``plan``;
- ``lock.json``: what the campaign ran with (image digest, CLI versions, project
  commit, task, skill and database digests, the isolation policy's digest), written
  at every ``run`` and kept per start in ``locks/``;
- ``canary.json``: the filesystem canary of the latest start;
- ``runs/<task>/<key>/``: the run records (``records``).

``run`` takes the campaign's lock file (one harness per campaign; a second waits
or fails), closes attempts a dead harness left open, removes containers carrying
the campaign's label, runs the canary, then works through the runs that
``records.state`` says are pending, ``workers`` containers at once (and at most
``provider_caps[p]`` per model provider). Retryable ends (quota, infra) are tried
again after a bounded backoff. A grader thread grades finished runs in batches
with the one-pass grader and writes each ``result.json``. Because every step is a
file written atomically and the next step is read from the files, a campaign
killed at any moment and started again ends with exactly the results of an
uninterrupted one.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import queue
import shutil
import subprocess
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

from m4agent import campaign_folder, interrupts
from m4agent.campaign_folder import CAMPAIGN_FILE, PLAN_FILE, RunSpec, planned_runs
from m4agent.errors import M4AgentError
from m4agent.harness import canary, ledger, probe, records, templates
from m4agent.harness import container as docker_layer
from m4agent.harness.conditions import skill_name_conflicts
from m4agent.harness.egress import EgressPolicy, policy_for
from m4agent.harness.image import cli_versions, ensure_image, image_tag
from m4agent.harness.matrix import Matrix, build, load_source, merge
from m4agent.harness.records import AttemptRecord, RunState
from m4agent.harness.run import RunContext, run_attempt, scratch_root
from m4agent.harness.wire.certs import MeteringCA
from m4agent.locking import data_dir_lock
from m4agent.paths import PROJECT_ROOT
from m4agent.registry import TASKS_DIR, Task, all_tasks
from m4agent.run_folder import (
    ATTEMPTS_DIR,
    EGRESS_FILE,
    OUTPUT_NAME,
    RESULT_FILE,
    TRACE_FILE,
    WIRE_FILE,
    read_json,
    write_json_atomic,
)

LOCK_FILE = "lock.json"
MUTEX_FILE = ".harness.lock"
PREFLIGHT_FILE = "preflight.json"  # the preflight's answer per agent and model (probe)
GRADE_BATCH_SECONDS = 5.0
BACKOFF_MAX_SECONDS = 60.0


def _tasks(tasks_dir: Path | None) -> dict[str, Task]:
    return all_tasks((tasks_dir or TASKS_DIR).resolve())


def plan(matrix: str | Path, campaign_dir: Path, agents: list[str] | None = None,
         tasks_dir: Path | None = None, add: bool = False) -> Matrix:
    """Plan a campaign folder from a matrix file or profile (``plan_doc``)."""
    doc, base = load_source(matrix, agents)
    return plan_doc(doc, base, campaign_dir, tasks_dir, add=add)


RUN_ORIGIN = "run"  # a folder planned by `m4agent run`, which adds each new trial to it


def origin(campaign_dir: Path) -> str | None:
    """Which command planned the campaign in ``campaign_dir``; None when it holds none."""
    path = campaign_dir / CAMPAIGN_FILE
    return read_json(path).get("origin", "campaign plan") if path.exists() else None


def plan_doc(doc: dict[str, Any], base: Path, campaign_dir: Path, tasks_dir: Path | None = None,
             add: bool = False, planned_by: str = "campaign plan") -> Matrix:
    """Write a campaign folder's plan: ``campaign.json`` (every matrix it was given), ``plan.json`` and
    each run's folder with its ``run.json``. Everything is checked before the first file is written.

    A folder already holding a campaign keeps it: the same matrix again changes nothing; another one
    is added only with ``add`` (its runs must be new and its settings the campaign's)."""
    tasks_root = (tasks_dir or TASKS_DIR).resolve()
    built = build(doc, base, _tasks(tasks_root))
    entry = {"matrix": doc, "matrix_base": str(base)}
    meta_path = campaign_dir / CAMPAIGN_FILE
    if meta_path.exists():
        meta = read_json(meta_path)
        if meta.get("tasks_dir") != str(tasks_root):
            raise M4AgentError(f"{campaign_dir} was planned with tasks from {meta.get('tasks_dir')}, "
                               f"not {tasks_root}; use another campaign folder")
        given = _matrices(meta)
        if entry in given:
            return built  # planned already: nothing to add
        if not add:
            held = len(planned_runs(campaign_dir))
            raise M4AgentError(f"{campaign_dir} already holds a campaign of {held} runs from another matrix; "
                               "plan into a new folder, or add this matrix's runs to it with `campaign plan --add`")
        merge([_build_entry(e, meta) for e in given] + [built])  # new runs only, the campaign's settings
        meta = {k: v for k, v in meta.items() if k not in ("matrix", "matrix_base")}
        meta["matrices"] = [*given, entry]
    else:
        meta = {"id": uuid.uuid4().hex, "created_at": records.now(), "tasks_dir": str(tasks_root),
                "origin": planned_by, "matrices": [entry]}
    campaign_dir.mkdir(parents=True, exist_ok=True)
    planned = {spec.key: asdict(spec) for spec in built.runs}
    skipped = built.skipped
    plan_path = campaign_dir / PLAN_FILE
    if plan_path.exists():
        before = read_json(plan_path)
        planned = {**before["runs"], **planned}
        skipped = [*before.get("skipped", []), *skipped]
    for spec in built.runs:
        records.write_run(campaign_folder.run_folder(campaign_dir, spec), spec)
    write_json_atomic(plan_path, {"runs": planned, "skipped": skipped})
    write_json_atomic(meta_path, meta)
    return built


def _matrices(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The matrices a campaign was planned from, in order (an earlier m4agent kept one, as `matrix`)."""
    if "matrices" in meta:
        return list(meta["matrices"])
    return [{"matrix": meta["matrix"], "matrix_base": meta["matrix_base"]}]


def _build_entry(entry: dict[str, Any], meta: dict[str, Any]) -> Matrix:
    return build(entry["matrix"], Path(entry["matrix_base"]), _tasks(Path(meta["tasks_dir"])))


def _matrix(campaign_dir: Path) -> tuple[Matrix, dict[str, Task], dict[str, Any]]:
    meta = campaign_folder.read_meta(campaign_dir)
    tasks = _tasks(Path(meta["tasks_dir"]))
    return merge([_build_entry(entry, meta) for entry in _matrices(meta)]), tasks, meta


@contextlib.contextmanager
def _exclusive(campaign_dir: Path, wait: bool) -> Iterator[None]:
    """One harness per campaign folder; the lock dies with its process, so a SIGKILL never leaves it held."""
    handle = (campaign_dir / MUTEX_FILE).open("a+")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            raise M4AgentError(f"another m4agent is running campaign {campaign_dir}; wait for it "
                               "(or drop --no-wait)") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        yield
    finally:
        handle.close()


def status(campaign_dir: Path) -> dict[str, Any]:
    """Counts per run state and per final outcome, and attempts, read from the records alone."""
    matrix, _, _ = _matrix(campaign_dir)
    states: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    attempts = 0
    rewards: list[float] = []
    for spec in planned_runs(campaign_dir):
        folder = campaign_folder.run_folder(campaign_dir, spec)
        states[records.state(folder, matrix.max_retries).value] += 1
        ended = records.attempts(folder)
        attempts += len(ended)
        final = records.final_attempt(ended)
        if final is not None:
            outcomes[final.outcome.value] += 1
        result = folder / RESULT_FILE
        if result.exists():
            rewards.append(float(read_json(result).get("reward", 0.0)))
    return {"runs": sum(states.values()), "states": dict(states), "outcomes": dict(outcomes),
            "attempts": attempts, "mean_reward": sum(rewards) / len(rewards) if rewards else None}


def _git_commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(PROJECT_ROOT), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _conflicts(tasks: dict[str, Task]) -> dict[str, list[str]]:
    """Skill names whose folders differ between tasks (with-skill-all keeps M4Bench's choice)."""
    return {name: list(owners) for name, owners in skill_name_conflicts(tasks).items()}


def _write_lock(campaign_dir: Path, ctx: RunContext, matrix: Matrix, tasks: dict[str, Task],
                versions: dict[str, str]) -> None:
    image = ctx.engine.images.get(ctx.image)
    used = sorted({spec.task for spec in matrix.runs})
    lock = {
        "written_at": records.now(),
        "image": {"tag": ctx.image, "id": image.id},
        "cli_versions": versions,
        "project_commit": _git_commit(),
        "tasks": {name: tasks[name].digest for name in used},
        "run_digests": {spec.key: spec.task_digest for spec in matrix.runs},
        "databases": {schema: templates.export_digest(ctx.data_dir, schema)
                      for schema in sorted({spec.schema for spec in matrix.runs})},
        "skill_name_conflicts": _conflicts(tasks) if any(s.condition == "with-skill-all" for s in matrix.runs)
        else {},
        "isolation_policy": {"egress": ctx.policy.digest(), "limits": ctx.limits.as_json(),
                             "network": "none", "read_only_root": True, "user": "non-root"},
        "agents": {name: {"version": e.agent.version_for(e.options), "models": list(e.models)}
                   for name, e in matrix.agents.items()},
        "budget": matrix.budget,  # [budget]'s caps in US dollars, for every agent's runs
    }
    write_json_atomic(campaign_dir / LOCK_FILE, lock)
    (campaign_dir / "locks").mkdir(exist_ok=True)
    stamp = lock["written_at"].replace(":", "").replace("-", "")
    write_json_atomic(campaign_dir / "locks" / f"{stamp}.json", lock)


def _truth_exports(campaign_dir: Path, data_dir: Path, tasks: dict[str, Task], names: set[str]) -> dict[str, Path]:
    """The reference export of every task in the campaign (host only: the oracle's answer, the lint's truth)."""
    from m4agent.reference_export import export

    folder = campaign_dir / ".truth"
    folder.mkdir(exist_ok=True, mode=0o700)
    found = {}
    for name in sorted(names):
        path = folder / f"{name}.csv"
        if not path.exists():
            export(name, data_dir, path)
        found[name] = path
    return found


def _result(spec: RunSpec, final: AttemptRecord, tried: int, grading: dict[str, Any] | None,
            publishable: bool, budget: ledger.Budget) -> dict[str, Any]:
    result: dict[str, Any] = {
        "key": spec.key, **asdict(spec), "outcome": final.outcome.value, "reason": final.reason,
        "attempt": final.number, "attempts": tried, "publishable": publishable,
        "phases": final.phases, "exit_code": final.exit_code,
        "reward": 0.0, "strict_pass": False,
    }
    if final.extra.get("flags"):  # graded, and set apart for review (integrity.FLAG_RULES)
        result["flags"] = final.extra["flags"]
    # cost more than [budget] per_run_usd (marked after the attempt; read from its ledger again, should a
    # kill have come between the two): graded all the same
    if final.extra.get("budget_exceeded") or budget.run_over(final.extra.get("ledger") or {}):
        result["budget_exceeded"] = True
    if grading is not None:
        result.update(reward=grading["reward"], strict_pass=grading["strict_pass"], grading=grading)
    return result


FINAL_FILES = (OUTPUT_NAME, TRACE_FILE, EGRESS_FILE, WIRE_FILE)


def _link_atomic(source: Path, target: Path) -> None:
    """``target`` becomes the final attempt's file: a hard link (the bytes are stored once), a copy
    where the file system has none."""
    tmp = target.with_name(f".{target.name}.copy.tmp")
    tmp.unlink(missing_ok=True)
    try:
        os.link(source, tmp)
    except OSError:
        shutil.copyfile(source, tmp, follow_symlinks=False)
    os.replace(tmp, target)


class Grader:
    """Grades finished runs in batches (one dbt pass each) on its own thread; writes result.json.

    A failure of the environment (dbt failing on every run of a batch, the data directory locked or
    damaged, a full disk: an ``M4AgentError`` or ``OSError``) is infrastructure, never the runs' zero:
    nothing is written, grading stops for this start (``failure`` says why), and the runs stay waiting
    for grading until the next start. Any other exception is a defect, raised by ``close``."""

    def __init__(self, campaign_dir: Path, data_dir: Path, tasks: dict[str, Task], matrix: Matrix):
        self.campaign_dir, self.data_dir, self.tasks, self.matrix = campaign_dir, data_dir, tasks, matrix
        self.budget = ledger.Budget(**matrix.budget)
        self.inbox: queue.Queue[RunSpec | None] = queue.Queue()
        self.done: Counter[str] = Counter()
        self.error: BaseException | None = None
        self.failure: str | None = None
        self.abandoned = False
        self.thread = threading.Thread(target=self._loop, name="m4agent-grader", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def submit(self, spec: RunSpec) -> None:
        self.inbox.put(spec)

    def abandon(self) -> None:
        """Drop what is queued (after Ctrl-C): those runs stay in state grading for the next start."""
        self.abandoned = True
        with contextlib.suppress(queue.Empty):
            while True:
                self.inbox.get_nowait()

    def close(self) -> None:
        self.inbox.put(None)
        self.thread.join()
        if self.error is not None:
            raise self.error

    def _loop(self) -> None:
        closing = False
        while not closing:
            batch: list[RunSpec] = []
            item = self.inbox.get()
            if item is None:
                closing = True
            else:
                batch.append(item)
            deadline = time.monotonic() + GRADE_BATCH_SECONDS
            while not closing:
                try:
                    item = self.inbox.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if item is None:
                    closing = True
                else:
                    batch.append(item)
            if batch and not self.abandoned:
                try:
                    self.grade(batch)
                except (M4AgentError, OSError) as exc:  # the environment's: the runs stay in state grading
                    self.failure = f"{type(exc).__name__}: {exc}"
                    return
                except BaseException as exc:  # reported by close(); the runs stay in state grading
                    self.error = exc
                    return

    def grade(self, batch: list[RunSpec]) -> None:
        from m4agent.grading.grade import grade_runs_each_if_needed
        from m4agent.grading.loader import Run

        to_grade: list[tuple[RunSpec, AttemptRecord, int, Path]] = []
        for spec in batch:
            folder = campaign_folder.run_folder(self.campaign_dir, spec)
            if (folder / RESULT_FILE).exists():
                continue
            ended = records.attempts(folder)
            final = records.final_attempt(ended)
            if final is None:
                continue
            output = folder / ATTEMPTS_DIR / f"{final.number:04d}" / OUTPUT_NAME
            publishable = self.matrix.agents[spec.agent].agent.publishable if spec.agent in self.matrix.agents \
                else False
            if final.outcome.graded and final.has_output:
                to_grade.append((spec, final, len(ended), output))
            else:
                self._write(spec, _result(spec, final, len(ended), None, publishable, self.budget))
        if not to_grade:
            return
        runs = [Run(run_id=spec.key, task=self.tasks[spec.task], output_path=output)
                for spec, _, _, output in to_grade]
        # an environment failure raises (see the class), never zeros
        graded = grade_runs_each_if_needed(runs, self.data_dir)
        for spec, final, tried, _ in to_grade:
            publishable = self.matrix.agents[spec.agent].agent.publishable
            self._write(spec, _result(spec, final, tried, graded[spec.key], publishable, self.budget))

    def _write(self, spec: RunSpec, result: dict[str, Any]) -> None:
        """The run's final files beside run.json (copies of the final attempt's), then result.json last."""
        folder = campaign_folder.run_folder(self.campaign_dir, spec)
        attempt = folder / ATTEMPTS_DIR / f"{result['attempt']:04d}"
        for name in FINAL_FILES:
            if (attempt / name).is_file() and not (attempt / name).is_symlink():
                _link_atomic(attempt / name, folder / name)
        write_json_atomic(folder / RESULT_FILE, result)
        self.done[result["outcome"]] += 1


def _preflight(tasks_dir: Path) -> None:
    """The task tree's leak lint (instructions, skills, specifications, raw mode): findings stop the start."""
    from m4agent.skills.preflight import lint_tree

    findings = lint_tree(tasks_dir)
    if findings:
        shown = "\n  ".join(str(f) for f in findings[:10])
        more = f"\n  ... and {len(findings) - 10} more" if len(findings) > 10 else ""
        raise M4AgentError(f"the preflight found {len(findings)} leak(s) in {tasks_dir}; no run was started:\n  "
                           f"{shown}{more}")


@contextlib.contextmanager
def _scratch(campaign_id: str) -> Iterator[None]:
    """The campaign's scratch folder, emptied when a start begins (a killed harness's leftovers) and
    removed when it ends, however it ends."""
    folder = scratch_root(campaign_id)
    shutil.rmtree(folder, ignore_errors=True)
    try:
        yield
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _preflight_models(ctx: RunContext, matrix: Matrix, pending: list[RunSpec],
                      say: Callable[[str], None] | None) -> None:
    """One minimal request per agent and model of the pending runs (``probe``); raise on any problem."""
    pairs = sorted({(spec.agent, spec.model) for spec in pending if matrix.agents[spec.agent].agent.calls_models})
    if not pairs:
        return
    assert ctx.metering_ca is not None
    labels = docker_layer.campaign_labels(ctx.campaign_id, ctx.campaign_dir, "probe")
    found = probe.preflight(ctx.engine, ctx.image,
                            [(matrix.agents[a].agent, matrix.agents[a].options, m) for a, m in pairs],
                            ctx.secrets, ctx.policy, ctx.scratch(), ctx.metering_ca, labels)
    records.write_json_atomic(ctx.campaign_dir / PREFLIGHT_FILE, {"probes": [p.to_json() for p in found]})
    for answer in found if say is not None else ():
        say(f"preflight: {answer.line()} ({answer.seconds:g} s)")
    probe.require(found)


def _check_keys(matrix: Matrix, secrets: dict[str, str]) -> None:
    """Every agent's API key is in the secrets: a missing one stops the start before any run, rather
    than failing every attempt as the provider's refusal."""
    missing = {name: absent for name, entry in sorted(matrix.agents.items())
               if (absent := [v for v in entry.agent.key_variables(entry.options) if not secrets.get(v)])}
    if missing:
        needs = "; ".join(f"agent {name} needs {', '.join(found)}" for name, found in missing.items())
        raise M4AgentError(f"{needs}: put KEY=VALUE lines in a file and pass --secrets-file FILE (or log in and "
                           "set the agent option auth = \"subscription\"; docs/agents.md); no run was started")


def _pin_data_dir(campaign_dir: Path, meta: dict[str, Any], data_dir: Path) -> None:
    """A campaign grades against one data directory: the first run records it, later runs must match."""
    given = str(data_dir.resolve())
    pinned = meta.get("data_dir")
    if pinned is None:
        meta["data_dir"] = given
        write_json_atomic(campaign_dir / CAMPAIGN_FILE, meta)
    elif pinned != given:
        raise M4AgentError(f"campaign {campaign_dir} runs against the data directory {pinned}, not {given}; "
                           f"pass --data-dir {pinned} (or plan a new campaign folder)")


# events: "start" and "end" of each attempt (with its record), "finished" when a run leaves the queue
# with a final outcome or out of retries
Progress = Callable[[str, RunSpec, AttemptRecord | None], None]


def run(campaign_dir: Path, data_dir: Path, workers: int | None = None, wait: bool = True,
        secrets: dict[str, str] | None = None, on_event: Progress | None = None,
        run_canary: bool = True, routes: tuple[tuple[str, str, int], ...] = (),
        preflight: bool = True, say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run (or resume) every pending run of a planned campaign, then grade; returns ``status``.

    ``routes`` send model hosts to given addresses (``(host, address, port)``, e.g. a provider's host
    to the scripted model server, or a local model endpoint); they are part of the egress policy.
    ``preflight`` first sends one minimal request per agent and model of the pending runs
    (``probe``): a rejected key, an unknown model or an unreachable provider stops the start
    before any run, and the answers are kept in ``preflight.json`` (and given to ``say``, a line each)."""
    campaign_dir = campaign_dir.resolve()
    matrix, tasks, meta = _matrix(campaign_dir)
    specs = planned_runs(campaign_dir)
    with _exclusive(campaign_dir, wait), _scratch(meta["id"]):
        _check_keys(matrix, secrets or {})
        _pin_data_dir(campaign_dir, meta, data_dir)
        _preflight(Path(meta["tasks_dir"]))
        engine = docker_layer.client()
        image = image_tag()
        ensure_image(engine)
        docker_layer.reap(engine, campaign=meta["id"])
        for spec in specs:
            records.close_interrupted(campaign_folder.run_folder(campaign_dir, spec))
        from m4agent import workspaces

        with data_dir_lock(data_dir):  # the exports write into the data directory
            for schema in sorted({spec.schema for spec in specs}):
                workspaces.prepare(data_dir, schema)
            truth = _truth_exports(campaign_dir, data_dir, tasks, {spec.task for spec in specs})
        built = templates.build(engine, image, campaign_dir, data_dir, tasks, {(s.task, s.schema) for s in specs},
                                meta["id"], matrix.limits)
        policy, _ = egress_policy(matrix, routes)
        ctx = RunContext(engine=engine, image=image, data_dir=data_dir, tasks=tasks, campaign_id=meta["id"],
                         campaign_dir=campaign_dir, policy=policy, limits=matrix.limits,
                         secrets=secrets or {},
                         agent_options={name: entry.options for name, entry in matrix.agents.items()},
                         solutions=truth, templates=built, per_run_usd=matrix.budget.get("per_run_usd"))
        ctx.metering_ca = MeteringCA(ctx.scratch() / "metering-ca")  # one per start; its key never leaves memory
        _write_lock(campaign_dir, ctx, matrix, tasks, cli_versions(engine, image))
        if preflight:
            _preflight_models(ctx, matrix, [s for s in specs if records.state(
                campaign_folder.run_folder(campaign_dir, s), matrix.max_retries) is RunState.PENDING], say)
        if run_canary:
            report = canary.run_canary(ctx, specs)
            write_json_atomic(campaign_dir / "canary.json", report)
            if not report["passed"]:
                failed = [p["path"] for p in report["probes"] if not p["denied"]]
                raise M4AgentError(f"filesystem canary failed: reachable from the container: {', '.join(failed)}"
                                   f" (details in {campaign_dir / 'canary.json'}); no run was started")
        grader = Grader(campaign_dir, data_dir, tasks, matrix)
        grader.start()
        try:
            pending = []
            for spec in specs:
                state = records.state(campaign_folder.run_folder(campaign_dir, spec), matrix.max_retries)
                if state is RunState.GRADING:
                    grader.submit(spec)
                elif state is RunState.PENDING:
                    pending.append(spec)
            stopped = _work(ctx, matrix, pending, workers or matrix.workers, grader, on_event)
        except KeyboardInterrupt:
            # Ctrl-C: no new attempt starts, running containers are removed (their attempts end as
            # infra_error/interrupted), and runs not yet graded are graded by the next start.
            grader.abandon()
            docker_layer.reap(engine, campaign=meta["id"])
            raise
        finally:
            grader.close()
    summary = status(campaign_dir)
    if grader.failure:  # infrastructure: the runs it left wait for grading at the next start
        summary["grading_failed"] = grader.failure
    if stopped:  # queues a quota refusal (a provider's name) or the spent budget ("budget") stopped
        summary["stopped"] = sorted(stopped)
    return summary


def egress_policy(matrix: Matrix, routes: tuple[tuple[str, str, int], ...]) -> tuple[EgressPolicy, list[str]]:
    """The campaign's egress policy, and the allowlisted hosts it refuses because routes were given.

    Without routes, the model hosts of the agents' providers. With routes (a dry run against
    `m4agent model-server`, or a local model endpoint), the routed hosts only: every other host and
    suffix of the providers is refused, so no part of a dry run reaches the real network."""
    providers = sorted({p for entry in matrix.agents.values() for p in entry.agent.providers_for(entry.options)})
    allowlisted = policy_for(providers)
    if not routes:
        return allowlisted, []
    routed = policy_for((), routes=routes)
    reached = {host for host, _, _ in routed.routes}
    refused = [host for host in sorted(allowlisted.hosts) if host not in reached]
    return routed, refused + [f"*{suffix}" for suffix in allowlisted.suffixes]


def routing(campaign_dir: Path, routes: tuple[tuple[str, str, int], ...]) -> list[str]:
    """What a start with ``routes`` does to the egress, in lines for the operator (none without routes)."""
    if not routes:
        return []
    policy, refused = egress_policy(_matrix(campaign_dir.resolve())[0], routes)
    lines = [f"routed: {host} -> {address}:{port}" for host, address, port in policy.routes]
    if refused:
        lines.append(f"refused (allowlisted for the agents, not routed): {', '.join(refused)}")
    return lines


def _mark_over_budget(attempt: Path, budget: ledger.Budget) -> None:
    """Record in ``attempt.json`` that the attempt cost more than ``[budget] per_run_usd``. The file is
    read back, not rewritten from the record in memory: the file on disk is the redacted one."""
    path = attempt / records.ATTEMPT_FILE
    data = records.read_json(path)
    data.setdefault("extra", {}).update(budget_exceeded=True, budget_per_run_usd=budget.per_run_usd)
    records.write_json_atomic(path, data)


def _work(ctx: RunContext, matrix: Matrix, pending: list[RunSpec], workers: int, grader: Grader,
          on_event: Progress | None) -> set[str]:
    caps = {provider: threading.Semaphore(cap) for provider, cap in matrix.provider_caps.items()}
    # A quota refusal stops its provider's queue for this campaign run: its runs stay pending (quota
    # attempts never use up a run's retries) and the next `campaign run` resumes them. The campaign's
    # budget ([budget] per_campaign_usd) stops every queue once spent; an attempt over [budget]
    # per_run_usd is recorded as such (the egress proxy is what stops it during the attempt).
    stopped: set[str] = set()
    budget = ledger.Budget(**matrix.budget)
    guard = threading.Lock()

    def one(spec: RunSpec) -> None:
        entry = matrix.agents[spec.agent]
        folder = campaign_folder.run_folder(ctx.campaign_dir, spec)
        held = [caps[p] for p in entry.agent.providers_for(entry.options) if p in caps]
        queues = set(entry.agent.providers_for(entry.options) or (entry.agent.name,))
        while records.state(folder, matrix.max_retries) is RunState.PENDING:
            if interrupts.requested():
                return
            with guard:
                if queues & stopped or "budget" in stopped:
                    return  # left pending for the next campaign run
            for sem in held:
                sem.acquire()
            try:
                attempt = records.new_attempt(folder)
                if on_event:
                    on_event("start", spec, None)
                record = run_attempt(ctx, spec, entry.agent, attempt)
            finally:
                for sem in held:
                    sem.release()
            if on_event:
                on_event("end", spec, record)
            if "ledger" in record.extra and budget.run_over(record.extra["ledger"]):
                _mark_over_budget(attempt, budget)
            with guard:
                if "ledger" in record.extra and not budget.spend(record.extra["ledger"]):
                    stopped.add("budget")
                if record.outcome.stops_queue:
                    stopped.update(queues)
                    continue
            if record.outcome.retryable:
                tries = records.counted_retries(records.attempts(folder))
                time.sleep(min(BACKOFF_MAX_SECONDS, 2.0 ** tries))
        final = records.state(folder, matrix.max_retries)
        if final is RunState.GRADING:
            grader.submit(spec)
        if final is not RunState.PENDING and on_event:
            on_event("finished", spec, None)

    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="m4agent-run")
    try:
        for future in [pool.submit(one, spec) for spec in pending]:
            future.result()
    finally:
        pool.shutdown(wait=not interrupts.requested(), cancel_futures=True)
    return stopped


def write_planned(campaign_dir: Path) -> str:
    """The plan as JSON lines (for --json)."""
    return "\n".join(json.dumps({"key": s.key, **asdict(s)}) for s in planned_runs(campaign_dir))
