"""One token and cost ledger for every agent: usage normalised, priced from a versioned table.

Every adapter reads its own trace into ``Usage``, the same five counts for every
provider, none overlapping:

- ``input``: uncached input tokens;
- ``cache_read``: input tokens read from the provider's prompt cache;
- ``cache_write``: input tokens written to the cache (Anthropic's cache creation;
  providers that do not report writes leave 0);
- ``output``: every output token billed, reasoning included;
- ``reasoning``: the part of ``output`` spent on reasoning (not added again).

So total input is ``input + cache_read + cache_write``, and nothing is counted
twice. (M4Bench's Claude sums add every event's usage, counting a message once per
content block, and leave out cache creation: ``HARNESS.md`` section 1.13.)

``cost`` prices a ``Usage`` with ``prices.toml`` (dollars per million tokens, by
provider and model, with the table's version and date); ``Cost.source`` says whether
the figure was reported by the provider's CLI or estimated from the table. Budget
caps (``Budget``) stop a campaign cleanly once spent.
"""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from m4agent.errors import M4AgentError

PRICES_FILE = Path(__file__).with_name("prices.toml")
FIELDS = ("input", "cache_read", "cache_write", "output", "reasoning")


@dataclass(frozen=True)
class Usage:
    """Normalised token counts of one attempt (see the module's docstring for what each holds)."""

    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0
    requests: int = 0  # model turns the counts cover

    def __add__(self, other: Usage) -> Usage:
        return Usage(**{name: getattr(self, name) + getattr(other, name) for name in (*FIELDS, "requests")})

    @property
    def total_input(self) -> int:
        return self.input + self.cache_read + self.cache_write

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Usage:
        return cls(**{name: int(data.get(name, 0) or 0) for name in (*FIELDS, "requests")})


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens of one model; cache prices default from input when the table omits them."""

    input: float
    output: float
    cache_read: float
    cache_write: float


@dataclass(frozen=True)
class PriceTable:
    version: str
    as_of: str
    models: dict[str, Price]  # "provider/model"

    def price(self, provider: str, model: str) -> Price | None:
        """The price of ``model``: an exact entry, else the longest entry that prefixes it (dated ids)."""
        key = f"{provider}/{model}"
        if key in self.models:
            return self.models[key]
        matches = [k for k in self.models if key.startswith(k)]
        return self.models[max(matches, key=len)] if matches else None


@dataclass(frozen=True)
class Cost:
    """A cost in US dollars and where it comes from: ``reported`` (by the CLI), ``estimated`` (from the
    price table), or ``unknown`` (no price for the model)."""

    usd: float | None
    source: str
    price_table: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@cache
def load_prices(path: Path = PRICES_FILE) -> PriceTable:
    """Read the price table (``prices.toml``): ``version``, ``as_of``, ``[provider."model"]`` tables."""
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise M4AgentError(f"cannot read the price table {path}: {exc}; restore it from the package") from exc
    models: dict[str, Price] = {}
    for provider, entries in doc.get("providers", {}).items():
        for model, raw in entries.items():
            try:
                models[f"{provider}/{model}"] = Price(
                    input=float(raw["input"]), output=float(raw["output"]),
                    cache_read=float(raw.get("cache_read", raw["input"])),
                    cache_write=float(raw.get("cache_write", raw["input"])))
            except (KeyError, TypeError, ValueError) as exc:
                raise M4AgentError(f"{path}: [{provider}.\"{model}\"] needs numbers input and output "
                                   f"({exc}); fix the table") from exc
    return PriceTable(str(doc.get("version", "")), str(doc.get("as_of", "")), models)


def estimate(usage: Usage, provider: str, model: str, table: PriceTable | None = None) -> Cost:
    """The cost of ``usage`` at the table's price of ``provider/model`` (``unknown`` without a price)."""
    table = table or load_prices()
    price = table.price(provider, model)
    if price is None:
        return Cost(None, "unknown", table.version)
    usd = (usage.input * price.input + usage.cache_read * price.cache_read
           + usage.cache_write * price.cache_write + usage.output * price.output) / 1_000_000
    return Cost(round(usd, 6), "estimated", table.version)


def account(usage: Usage, provider: str, model: str, reported_usd: float | None = None) -> dict[str, Any]:
    """The ledger entry of one attempt: usage, cost (reported when the CLI gave one, else estimated), both
    figures kept when both exist so a report can compare them."""
    estimated = estimate(usage, provider, model)
    cost = Cost(round(reported_usd, 6), "reported", estimated.price_table) if reported_usd is not None \
        else estimated
    return {"usage": usage.as_dict(), "provider": provider, "model": model, "cost": cost.as_dict(),
            "estimated_usd": estimated.usd}


@dataclass
class Budget:
    """Spending caps in dollars, per run and per campaign; ``spend`` says whether to go on."""

    per_run_usd: float | None = None
    per_campaign_usd: float | None = None
    spent_usd: float = 0.0

    def run_over(self, entry: dict[str, Any]) -> bool:
        usd = (entry.get("cost") or {}).get("usd")
        return self.per_run_usd is not None and usd is not None and usd > self.per_run_usd

    def spend(self, entry: dict[str, Any]) -> bool:
        """Add an attempt's cost; False once the campaign's cap is reached (start no more attempts)."""
        usd = (entry.get("cost") or {}).get("usd")
        if usd is not None:
            self.spent_usd += usd
        return self.per_campaign_usd is None or self.spent_usd < self.per_campaign_usd


def pricing_provider(agent: Any, options: Any) -> str:
    """The ``prices.toml`` section an agent's usage is priced under (its adapter says, else its provider)."""
    pricing = getattr(agent, "pricing_provider", None)
    return pricing(options) if callable(pricing) else getattr(agent, "provider", "") or "unknown"


def for_attempt(agent: Any, model: str, options: Any, trace_text: str) -> dict[str, Any] | None:
    """The ledger entry of one attempt from its trace, for agents that read usage from their traces
    (the real CLIs); None for agents that report none (oracle, null, shell)."""
    raw = agent.usage(trace_text)
    if not raw:
        return None
    usage = Usage.from_dict(raw)
    provider = pricing_provider(agent, options)
    used = getattr(agent, "model_used", None)
    model_name = used(trace_text, model) if callable(used) else model
    reported = getattr(agent, "reported_cost", None)
    return account(usage, provider, model_name, reported(trace_text) if callable(reported) else None)
