"""Campaign matrices: tasks x conditions x schemas x agents/models x trials, from a TOML file or a profile.

A matrix file::

    [campaign]
    description = "oracle over every task and condition"
    tasks = ["*"]                      # "*" = every task; or names
    conditions = ["no-skill", "with-skill"]
    schemas = ["native"]
    trials = 1
    workers = 2                        # containers at once
    max_retries = 3                    # infra_error/quota attempts tried again, per run

    [[agents]]
    name = "shell"
    models = ["default"]
    options = { script = "my_agent.sh" }   # relative to the matrix file

    [limits]                           # per attempt (container.Limits)
    agent_seconds = 1800
    cpus = 1.0
    memory = "4g"

    [provider_caps]                    # containers at once per model provider
    anthropic = 1

    [budget]                           # US dollars (ledger.Budget), for every agent's runs
    per_run_usd = 2.0                  # a run over it is recorded as such
    per_campaign_usd = 200.0           # no attempt starts once spent

``[[blocks]]`` tables (each with its own tasks, conditions, schemas, trials, an
optional ``first_trial`` and an optional ``agents`` filter) replace the single block
of ``[campaign]``; the built-in profiles (``profiles/*.toml``: M4Bench's
``rerun-v1.1`` and ``operational-spec``) are written that way and take their models
per agent from ``[models]``. A run two blocks (or one block twice) would plan is an
error naming both: a design where one block silently absorbs another's runs is not
the design written. eICU tasks have no transformed schema variants: such cells are
skipped and counted, as M4Bench's matrix rejects them.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from m4agent.campaign_folder import RunSpec
from m4agent.errors import M4AgentError
from m4agent.harness.agents import Agent, get_agent
from m4agent.harness.conditions import CONDITIONS, skills_digest
from m4agent.harness.container import Limits
from m4agent.registry import Task

PROFILES_DIR = Path(__file__).resolve().parent / "profiles"
SCHEMAS = ("native", "obfuscated", "restructured")


@dataclass(frozen=True)
class AgentEntry:
    agent: Agent
    models: tuple[str, ...]
    options: dict[str, str]


@dataclass
class Matrix:
    """A parsed matrix: the runs it plans and the settings a campaign runs them with."""

    description: str
    runs: list[RunSpec]
    agents: dict[str, AgentEntry]
    limits: Limits
    workers: int = 1
    max_retries: int = 3
    provider_caps: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    source: dict[str, Any] = field(default_factory=dict)
    blocks: dict[str, str] = field(default_factory=dict)  # run key -> the block that planned it
    budget: dict[str, float] = field(default_factory=dict)  # [budget]: per_run_usd, per_campaign_usd


def profiles() -> list[str]:
    return sorted(p.stem for p in PROFILES_DIR.glob("*.toml"))


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise M4AgentError(f"matrix file {path} not found") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise M4AgentError(f"{path}: cannot read the matrix ({exc})") from exc


def load_source(matrix: str | Path, agents: list[str] | None = None) -> tuple[dict[str, Any], Path]:
    """The matrix's TOML as data, from a file or a built-in profile name (with ``--agent`` names)."""
    path = Path(matrix)
    if not path.exists() and str(matrix) in profiles():
        doc = _read(PROFILES_DIR / f"{matrix}.toml")
        if not agents:
            raise M4AgentError(f"profile {matrix} needs the agents to run: --agent NAME "
                               f"(models per agent: {', '.join(doc.get('models', {}))})")
        models = doc.get("models", {})
        doc["agents"] = [{"name": name, "models": models.get(name, ["default"])} for name in agents]
        doc["campaign"]["profile"] = str(matrix)
        return doc, PROFILES_DIR
    if not path.exists():
        raise M4AgentError(f"matrix {matrix} is neither a file nor a profile ({', '.join(profiles())})")
    doc = _read(path)
    if agents:
        doc["agents"] = [entry for entry in doc.get("agents", []) if entry.get("name") in agents]
    return doc, path.resolve().parent


def _names(value: Any, what: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise M4AgentError(f"matrix: {what} must be a list of names")
    return list(value)


def _tasks(wanted: list[str], tasks: dict[str, Task]) -> list[str]:
    if wanted == ["*"]:
        return list(tasks)
    unknown = [name for name in wanted if name not in tasks]
    if unknown:
        raise M4AgentError(f"matrix: unknown task(s) {', '.join(unknown)}; `m4agent tasks list` shows them")
    return wanted


def _agents(doc: dict[str, Any], base: Path) -> dict[str, AgentEntry]:
    entries: dict[str, AgentEntry] = {}
    for raw in doc.get("agents", []):
        agent = get_agent(str(raw.get("name", "")))
        options = {str(k): str(v) for k, v in raw.get("options", {}).items()}
        if "script" in options:
            options["script"] = str((base / options["script"]).resolve())
        entries[agent.name] = AgentEntry(agent, tuple(_names(raw.get("models", ["default"]), "models")),
                                         options)
    if not entries:
        raise M4AgentError("matrix: no agents; add [[agents]] tables (or --agent NAME)")
    return entries


def build(doc: dict[str, Any], base: Path, tasks: dict[str, Task]) -> Matrix:
    """Expand the matrix into run specs, in a stable order; a run planned twice is an error."""
    campaign = doc.get("campaign", {})
    agents = _agents(doc, base)
    blocks = doc.get("blocks") or [campaign]
    runs: dict[str, tuple[RunSpec, str]] = {}  # key -> (spec, the block that planned it)
    skipped: list[str] = []
    digests: dict[tuple[str, str], str] = {}
    for number, block in enumerate(blocks, 1):
        where = _block_name(block, number) if doc.get("blocks") else "[campaign]"
        wanted_agents = _names(block.get("agents", list(agents)), "agents")
        trials = int(block.get("trials", campaign.get("trials", 1)))
        first_trial = int(block.get("first_trial", 1))
        if first_trial < 1:
            raise M4AgentError(f"matrix: {where}: first_trial must be at least 1")
        schemas = _names(block.get("schemas", campaign.get("schemas", ["native"])), "schemas")
        conditions = _names(block.get("conditions", campaign.get("conditions", ["no-skill"])), "conditions")
        for bad in [s for s in schemas if s not in SCHEMAS]:
            raise M4AgentError(f"matrix: unknown schema {bad!r}; choose from {', '.join(SCHEMAS)}")
        names = [c.name for c in CONDITIONS]
        for bad in [c for c in conditions if c not in names]:
            raise M4AgentError(f"matrix: unknown condition {bad!r}; choose from {', '.join(names)}")
        for task_name in _tasks(_names(block.get("tasks", campaign.get("tasks", ["*"])), "tasks"), tasks):
            task = tasks[task_name]
            for condition in conditions:
                if (task_name, condition) not in digests:
                    digests[(task_name, condition)] = _digest(task, condition, tasks)
                for schema in schemas:
                    if schema != "native" and task.dataset != "mimic-iv":
                        skipped.append(f"{task_name} {condition} {schema}: {task.dataset} has no {schema} schema")
                        continue
                    for name in wanted_agents:
                        if name not in agents:
                            continue
                        entry = agents[name]
                        version = entry.agent.version_for(entry.options)
                        for model in entry.models:
                            for trial in range(first_trial, first_trial + trials):
                                spec = RunSpec(task=task_name, task_digest=digests[(task_name, condition)],
                                               condition=condition, schema=schema, agent=name,
                                               agent_version=version, model=model, trial=trial)
                                if spec.key in runs:
                                    raise M4AgentError(
                                        f"matrix: {where} plans {spec.label}, which {runs[spec.key][1]} "
                                        "already plans; give one of them other tasks, conditions, models or "
                                        "trials (first_trial = N numbers a block's trials from N)")
                                runs[spec.key] = (spec, where)
    limits_doc = doc.get("limits", {})
    unknown = set(limits_doc) - set(Limits.__dataclass_fields__)
    if unknown:
        raise M4AgentError(f"matrix: unknown [limits] setting(s) {', '.join(sorted(unknown))}")
    return Matrix(
        description=str(campaign.get("description", "")),
        runs=[spec for spec, _ in runs.values()],
        blocks={key: where for key, (_, where) in runs.items()},
        budget=_budget(doc.get("budget", {})),
        agents=agents,
        limits=Limits(**limits_doc),
        workers=int(campaign.get("workers", 1)),
        max_retries=int(campaign.get("max_retries", 3)),
        provider_caps={str(k): int(v) for k, v in doc.get("provider_caps", {}).items()},
        skipped=skipped,
        source=doc,
    )


BUDGET_KEYS = ("per_run_usd", "per_campaign_usd")


def _budget(raw: Any) -> dict[str, float]:
    """``[budget]``: caps in US dollars, each a positive number, applying to every agent's runs."""
    if not isinstance(raw, dict):
        raise M4AgentError("matrix: [budget] must be a table (per_run_usd = 2.0, per_campaign_usd = 200.0)")
    unknown = sorted(set(raw) - set(BUDGET_KEYS))
    if unknown:
        raise M4AgentError(f"matrix: unknown [budget] setting(s) {', '.join(unknown)}; it takes "
                           f"{', '.join(BUDGET_KEYS)}")
    found = {}
    for name, value in raw.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise M4AgentError(f"matrix: [budget] {name} must be a positive number of US dollars, not {value!r}")
        found[name] = float(value)
    return found


def settings(matrix: Matrix) -> dict[str, Any]:
    """What a campaign runs its runs with (as opposed to which runs): one set per campaign."""
    return {"limits": matrix.limits.as_json(), "workers": matrix.workers, "max_retries": matrix.max_retries,
            "provider_caps": matrix.provider_caps, "budget": matrix.budget}


def block_counts(matrix: Matrix) -> dict[str, Counter[str]]:
    """Runs per block, and per agent/model in each block, in the order the blocks plan them."""
    counts: dict[str, Counter[str]] = {}
    for spec in matrix.runs:
        counts.setdefault(matrix.blocks.get(spec.key, "[campaign]"), Counter())[f"{spec.agent}/{spec.model}"] += 1
    return counts


def merge(matrices: list[Matrix]) -> Matrix:
    """The matrices a campaign was planned from, as one: every run of each (a run planned twice is an
    error), their agents (one agent, one set of options), the settings they share."""
    first, *rest = matrices
    runs = {spec.key: spec for spec in first.runs}
    blocks = dict(first.blocks)
    agents = dict(first.agents)
    for number, other in enumerate(rest, 2):
        if settings(other) != settings(first):
            differ = [k for k, v in settings(other).items() if settings(first)[k] != v]
            raise M4AgentError(f"matrix {number} of the campaign sets {', '.join(differ)} otherwise than the first; "
                               "a campaign runs with one set of settings: plan the new matrix in another folder, "
                               "or give it the first's settings")
        twice = [spec for spec in other.runs if spec.key in runs]
        if twice:
            raise M4AgentError(f"matrix {number} of the campaign plans {len(twice)} run(s) the campaign already "
                               f"has (e.g. {twice[0].label}); leave them out, or number its trials on "
                               "(first_trial = N in a block)")
        runs.update((spec.key, spec) for spec in other.runs)
        blocks.update(other.blocks)
        for name, entry in other.agents.items():
            known = agents.get(name)
            if known is None:
                agents[name] = entry
            elif known.options != entry.options:
                raise M4AgentError(f"agent {name} has other options in matrix {number} than in the campaign; "
                                   "one campaign runs one agent one way: plan it in another folder")
            else:
                models = known.models + tuple(m for m in entry.models if m not in known.models)
                agents[name] = AgentEntry(known.agent, models, known.options)
    return Matrix(description="; ".join(m.description for m in matrices if m.description),
                  runs=list(runs.values()), agents=agents, limits=first.limits, workers=first.workers,
                  max_retries=first.max_retries, provider_caps=first.provider_caps,
                  skipped=[line for m in matrices for line in m.skipped], source=first.source, blocks=blocks,
                  budget=first.budget)


def _block_name(block: dict[str, Any], number: int) -> str:
    name = block.get("name")
    return f"block {number} ({name})" if name else f"block {number}"


def _digest(task: Task, condition: str, tasks: dict[str, Task]) -> str:
    """The task's own digest combined with what the condition places (with-skill-all reads every task)."""
    import hashlib

    return hashlib.sha256(f"{task.digest}:{skills_digest(task, condition, tasks)}".encode()).hexdigest()[:20]
