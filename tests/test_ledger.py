"""The token and cost ledger: each CLI's trace read into one usage, nothing counted twice, priced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from m4agent.errors import M4AgentError
from m4agent.harness.agents import get_agent
from m4agent.harness.ledger import Budget, Usage, account, estimate, for_attempt, load_prices


def _lines(*events: dict) -> str:
    return "\n".join(json.dumps(e) for e in events) + "\n"


# Claude Code's stream repeats a message's usage once per content block (here: a text and a tool call)
SPLIT = {"id": "msg_1", "usage": {"input_tokens": 10, "cache_creation_input_tokens": 3000,
                                  "cache_read_input_tokens": 0, "output_tokens": 90}}
CLAUDE_TRACE = _lines(
    {"type": "system", "subtype": "init", "model": "claude-sonnet-4-5-20250929"},
    {"type": "assistant", "message": {**SPLIT, "content": [{"type": "text", "text": "Let me look."}]}},
    {"type": "assistant", "message": {**SPLIT, "content": [{"type": "tool_use", "id": "t", "name": "Bash",
                                                           "input": {"command": "ls"}}]}},
    {"type": "assistant", "message": {"id": "msg_2", "content": [{"type": "text", "text": "Done."}],
                                      "usage": {"input_tokens": 4, "cache_read_input_tokens": 3000,
                                                "output_tokens": 12}}},
    {"type": "result", "subtype": "success", "num_turns": 2, "total_cost_usd": 0.0215,
     "usage": {"input_tokens": 14, "cache_creation_input_tokens": 3000, "cache_read_input_tokens": 3000,
               "output_tokens": 102}},
)


def test_claude_usage_takes_the_result_totals_with_cache_writes() -> None:
    usage = Usage.from_dict(get_agent("claude").usage(CLAUDE_TRACE))
    assert usage == Usage(input=14, cache_read=3000, cache_write=3000, output=102, requests=2)


def test_claude_usage_without_a_result_counts_each_message_once() -> None:
    killed = CLAUDE_TRACE.rsplit("\n", 2)[0] + "\n"  # the run was killed before its result event
    usage = Usage.from_dict(get_agent("claude").usage(killed))
    # M4Bench's sum over events would count msg_1 twice (20 input, 180 output) and drop the 3000 written
    assert usage == Usage(input=14, cache_read=3000, cache_write=3000, output=102, requests=2)


def test_codex_usage_splits_cached_input_out_of_input() -> None:
    trace = _lines({"type": "turn.completed", "usage": {"input_tokens": 5000, "cached_input_tokens": 4000,
                                                        "output_tokens": 300}})
    assert Usage.from_dict(get_agent("codex").usage(trace)) == Usage(input=1000, cache_read=4000, output=300,
                                                                     requests=1)


def test_pi_usage_sums_its_assistant_messages_and_keeps_its_cost() -> None:
    trace = _lines(*[{"type": "message_end", "message": {"role": "assistant", "model": "m", "usage": {
        "input": 10, "output": 5, "cacheRead": 100, "cacheWrite": 0, "cost": {"total": 0.5}}}}] * 2,
        {"type": "message_end", "message": {"role": "toolResult", "content": []}})
    pi = get_agent("pi")
    assert Usage.from_dict(pi.usage(trace)) == Usage(input=20, cache_read=200, output=10, requests=2)
    assert pi.reported_cost(trace) == 1.0


def test_a_dated_model_id_is_priced_by_its_family_entry() -> None:
    cost = estimate(Usage(input=1_000_000, output=1_000_000), "anthropic", "claude-sonnet-4-5-20250929")
    assert cost.source == "estimated" and cost.usd == pytest.approx(18.0)
    assert cost.price_table == load_prices().version


def test_cache_reads_and_writes_have_their_own_prices() -> None:
    cost = estimate(Usage(cache_read=1_000_000, cache_write=1_000_000), "anthropic", "claude-sonnet-4-5")
    assert cost.usd == pytest.approx(0.30 + 3.75)


def test_an_unpriced_model_costs_unknown_not_zero() -> None:
    assert estimate(Usage(input=10), "openai", "no-such-model").usd is None


def test_a_reported_cost_wins_and_the_estimate_is_kept_beside_it() -> None:
    entry = for_attempt(get_agent("claude"), "default", {}, CLAUDE_TRACE)
    assert entry is not None
    assert entry["cost"] == {"usd": 0.0215, "source": "reported", "price_table": load_prices().version}
    assert entry["model"] == "claude-sonnet-4-5-20250929" and entry["estimated_usd"] is not None


def test_agents_without_a_trace_parser_have_no_ledger_entry() -> None:
    assert for_attempt(get_agent("oracle"), "default", {}, "anything") is None


def test_a_campaign_budget_says_stop_once_spent() -> None:
    budget = Budget(per_campaign_usd=1.0, per_run_usd=0.6)
    entry = account(Usage(), "ollama", "x", reported_usd=0.7)
    assert budget.run_over(entry)
    assert budget.spend(entry) is True
    assert budget.spend(entry) is False


def test_a_broken_price_table_is_an_error_naming_the_entry(tmp_path: Path) -> None:
    bad = tmp_path / "prices.toml"
    bad.write_text('version = "x"\n[providers.openai."gpt-x"]\ninput = 1.0\n')
    with pytest.raises(M4AgentError, match='openai."gpt-x"'):
        load_prices(bad)
