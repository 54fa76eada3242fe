"""What a planned campaign will cost before it starts: tokens, dollars and wall time per agent and model.

A run's tokens come from, the first that has them:

1. **measured**: the ledgers (``attempt.json``'s ``extra.ledger.usage``) of ended attempts of the
   same agent and model, in the campaign itself or in earlier campaigns the user names
   (``campaign plan --usage-from DIR``), found by discovery's rule (``discovery.find``), never by a
   walk of our own: a record below an agent's workspace is the agent's word, not a measurement;
2. **published**: M4Bench's per-run usage, where its published tables give it. They give none: its
   run tables have no token columns, and its release's compute table holds campaign totals of
   cached and uncached input only (HARNESS.md 1.13), so nothing per run can be taken from it;
3. **unknown**: said as such, never a guess.

A count a provider's protocol does not report is ``None`` in a ledger: it is left out of the means
(shown "n/a"), never counted as 0. Dollars are the mean usage priced by ``ledger.estimate``
(``prices.toml``). Wall time is the mean measured agent phase (``phases.agent``), else the
attempt's limit (``[limits] agent_seconds``) as an upper bound, over the campaign's concurrency
(``workers``, and ``provider_caps`` per provider). Agents that call no model (oracle, null, shell)
cost nothing, and so does a model the price table prices at 0 (a local one), its tokens unknown or not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from m4agent import discovery
from m4agent.campaign_folder import RunSpec
from m4agent.errors import M4AgentError
from m4agent.harness import ledger, records
from m4agent.harness.matrix import Matrix

PUBLISHED_NOTE = "M4Bench publishes no per-run token counts"


@dataclass
class Samples:
    """What ended attempts of one agent and model measured: their usages, agent-phase seconds, and the
    provider and model their ledgers were priced under."""

    usages: list[dict[str, Any]] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    priced_as: Counter[tuple[str, str]] = field(default_factory=Counter)


def measure(folders: Iterable[Path]) -> dict[tuple[str, str], Samples]:
    """The measurements of every campaign at, inside or below ``folders``, per (agent, model).

    Only attempts with a final outcome count (a quota stop or an infrastructure failure says nothing
    of what a run costs); a campaign reached through two folders counts once."""
    found: dict[tuple[str, str], Samples] = {}
    seen: set[Path] = set()
    for folder in folders:
        for held in discovery.find(folder, (records.RUN_FILE,)).campaigns:
            if held.folder.resolve() in seen:
                continue
            seen.add(held.folder.resolve())
            for spec in held.specs:
                for attempt in records.attempts(held.run_folder(spec)):
                    if not attempt.outcome.retryable:
                        _add(found.setdefault((spec.agent, spec.model), Samples()), attempt)
    return found


def _add(samples: Samples, attempt: records.AttemptRecord) -> None:
    seconds = attempt.phases.get("agent")
    if isinstance(seconds, int | float):
        samples.seconds.append(float(seconds))
    entry = attempt.extra.get("ledger")
    if isinstance(entry, dict) and isinstance(entry.get("usage"), dict):
        samples.usages.append(entry["usage"])
        samples.priced_as[(str(entry.get("provider", "")), str(entry.get("model", "")))] += 1


def planned_runs_under(folder: Path) -> int:
    """How many campaign runs ``--usage-from FOLDER`` reads (0: it holds no campaign, or lies where
    discovery finds none, such as inside a run's attempts)."""
    if not folder.is_dir():
        raise M4AgentError(f"--usage-from {folder}: no such folder")
    return sum(len(found.specs) for found in discovery.find(folder, (records.RUN_FILE,)).campaigns)


def mean_usage(usages: list[dict[str, Any]]) -> dict[str, float | None]:
    """Each count's mean over the attempts that report it; None where none does."""
    means: dict[str, float | None] = {}
    for name in ledger.FIELDS:
        values = [float(u[name]) for u in usages if isinstance(u.get(name), int | float)]
        means[name] = sum(values) / len(values) if values else None
    return means


@dataclass(frozen=True)
class Row:
    """The estimate of one agent and model's runs."""

    agent: str
    model: str
    runs: int
    uses_model: bool
    usage: dict[str, float | None] | None  # mean tokens per run; None: unknown
    usd_per_run: float | None
    tokens_source: str  # "measured from N attempts", "no model", "unknown: ..."
    price: str  # provider/model priced, and the table's version
    seconds_per_run: float
    seconds_source: str  # "measured from N attempts" or "the agent_seconds limit (upper bound)"
    measured_seconds: bool
    providers: tuple[str, ...]

    @property
    def usd_total(self) -> float | None:
        return None if self.usd_per_run is None else self.usd_per_run * self.runs

    def as_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "model": self.model, "runs": self.runs, "tokens_per_run": self.usage,
                "tokens_source": self.tokens_source, "usd_per_run": self.usd_per_run, "usd_total": self.usd_total,
                "priced_as": self.price, "agent_seconds_per_run": self.seconds_per_run,
                "agent_seconds_source": self.seconds_source}


@dataclass(frozen=True)
class Estimate:
    rows: list[Row]
    workers: int
    provider_caps: dict[str, int]
    budget: dict[str, float]

    @property
    def runs(self) -> int:
        return sum(row.runs for row in self.rows)

    @property
    def usd(self) -> float | None:
        """The whole campaign's dollars; None when any row's is unknown."""
        totals = [row.usd_total for row in self.rows]
        return None if any(t is None for t in totals) else sum(t for t in totals if t is not None)

    @property
    def usd_known(self) -> float:
        """The dollars of the rows whose cost is known."""
        return sum(row.usd_total for row in self.rows if row.usd_total is not None)

    @property
    def wall_seconds(self) -> float:
        """Agent time over the concurrency: ``workers`` containers at once, and no more than a provider's
        cap on its runs; the longest of these bounds."""
        total = sum(row.seconds_per_run * row.runs for row in self.rows)
        bounds = [total / max(1, self.workers)]
        for provider, cap in self.provider_caps.items():
            held = sum(row.seconds_per_run * row.runs for row in self.rows if provider in row.providers)
            bounds.append(held / max(1, cap))
        return max(bounds)

    @property
    def wall_kind(self) -> str:
        """``measured``, ``upper bound`` (the limit stands for every time) or ``partly upper bound``."""
        measured = {row.measured_seconds for row in self.rows}
        return "measured" if measured == {True} else "upper bound" if measured == {False} else "partly upper bound"

    def as_json(self) -> dict[str, Any]:
        return {"runs": self.runs, "rows": [row.as_json() for row in self.rows], "usd_total": self.usd,
                "usd_known_rows": self.usd_known, "workers": self.workers, "provider_caps": self.provider_caps,
                "wall_seconds": self.wall_seconds,
                "wall_seconds_kind": self.wall_kind,
                "budget": self.budget, "price_table": ledger.load_prices().version}


def estimate(matrix: Matrix, specs: Iterable[RunSpec], measured: dict[tuple[str, str], Samples],
             workers: int | None = None) -> Estimate:
    """The estimate of running ``specs`` (runs of ``matrix``) with what ``measured`` holds."""
    counts = Counter((spec.agent, spec.model) for spec in specs)
    order = [(name, model) for name, entry in matrix.agents.items() for model in entry.models]
    rows = [_row(matrix, agent, model, counts[(agent, model)], measured.get((agent, model), Samples()))
            for agent, model in order if counts[(agent, model)]]
    return Estimate(rows, workers or matrix.workers, dict(matrix.provider_caps), dict(matrix.budget))


def _row(matrix: Matrix, agent: str, model: str, runs: int, samples: Samples) -> Row:
    entry = matrix.agents[agent]
    providers = tuple(entry.agent.providers_for(entry.options))
    if samples.seconds:
        seconds = sum(samples.seconds) / len(samples.seconds)
        seconds_source = f"measured from {len(samples.seconds)} attempts"
    else:
        seconds = float(matrix.limits.agent_seconds)
        seconds_source = "the agent_seconds limit, an upper bound"
    common = dict(agent=agent, model=model, runs=runs, seconds_per_run=seconds, seconds_source=seconds_source,
                  measured_seconds=bool(samples.seconds), providers=providers)
    pricing = getattr(entry.agent, "pricing_provider", None)
    if not callable(pricing):  # oracle, null, shell: no model is called
        return Row(**common, uses_model=False, usage=None, usd_per_run=0.0, tokens_source="no model",
                   price="")
    if samples.priced_as:  # as the ledgers priced them (the model the CLI reported using)
        provider, priced = samples.priced_as.most_common(1)[0][0]
    else:
        provider, priced = pricing(entry.options), model
    table = ledger.load_prices()
    found = table.price(provider, priced)
    price = f"{provider}/{priced}{': no price in' if found is None else ' at'} prices.toml {table.version}"
    usage = mean_usage(samples.usages)
    reported = {name: round(value) for name, value in usage.items() if value is not None}
    if not reported:
        why = "the measured attempts report no token counts" if samples.usages else "no measured attempts"
        free = found is not None and not any((found.input, found.output, found.cache_read, found.cache_write))
        return Row(**common, uses_model=True, usage=None, usd_per_run=0.0 if free else None, price=price,
                   tokens_source=f"unknown ({why}; {PUBLISHED_NOTE})")
    cost = ledger.estimate(ledger.Usage(**reported), provider, priced)
    return Row(**common, uses_model=True, usage=usage, usd_per_run=cost.usd, price=price,
               tokens_source=f"measured from {len(samples.usages)} attempts")
