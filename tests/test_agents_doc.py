"""docs/agents.md names what the code holds, so it cannot go stale: every agent, its key variables,
login files, options and reasoning levels, every allowlisted host and every price entry."""

from __future__ import annotations

import tomllib

import pytest

from m4agent.harness.agents import all_agents
from m4agent.harness.agents.cli_agent import COMMON_OPTIONS, CliAgent
from m4agent.harness.agents.pi import CLOUD_KEYS
from m4agent.harness.egress import MODEL_HOSTS_FILE
from m4agent.harness.ledger import PRICES_FILE
from m4agent.paths import PROJECT_ROOT

DOC = (PROJECT_ROOT / "docs" / "agents.md").read_text()
CLIS = {name: agent for name, agent in all_agents().items() if isinstance(agent, CliAgent)}


def _named(text: str) -> bool:
    return f"`{text}`" in DOC


def test_the_doc_covers_the_four_agent_clis_and_the_built_in_agents() -> None:
    assert set(CLIS) == {"claude", "codex", "gemini", "pi"}
    assert [name for name in all_agents() if not _named(name)] == []


@pytest.mark.parametrize("name", sorted(CLIS))
def test_each_agents_key_variables_login_files_options_and_levels_are_named(name: str) -> None:
    agent = CLIS[name]
    keys = set(agent.key_variables({})) | (set(CLOUD_KEYS.values()) if name == "pi" else set())
    login = {f"~/{path}" for path in agent.auth_files}
    options = COMMON_OPTIONS | agent.extra_options
    missing = [item for item in (*keys, *login, *options, *agent.reasoning_levels, agent.cli_version)
               if not _named(item) and item not in DOC]
    assert missing == []


def test_every_allowlisted_host_is_named() -> None:
    table = tomllib.loads(MODEL_HOSTS_FILE.read_text())
    hosts = [host for entry in table.values() for host in entry["hosts"]]
    suffixes = [f"*{suffix}" for entry in table.values() for suffix in entry["suffixes"]]
    assert [item for item in hosts + suffixes if not _named(item)] == []


def test_every_price_entry_is_in_the_doc_with_the_tables_version() -> None:
    prices = tomllib.loads(PRICES_FILE.read_text())
    entries = [model for models in prices["providers"].values() for model in models if model]
    assert [model for model in entries if not _named(model)] == []
    assert _named(prices["version"])


def test_the_docs_prices_are_the_tables() -> None:
    prices = tomllib.loads(PRICES_FILE.read_text())["providers"]
    for provider, models in prices.items():
        for model, price in models.items():
            if not model:
                continue
            [row] = [line for line in DOC.splitlines() if line.startswith(f"| {provider} | `{model}` |")]
            cells = [float(cell) for cell in row.strip("|").split("|")[2:]]
            want = [price["input"], price.get("cache_read", price["input"]), price.get("cache_write", price["input"]),
                    price["output"]]
            assert cells == want, row


def test_the_readme_names_each_agent_cli_with_its_key_and_links_the_doc() -> None:
    readme = (PROJECT_ROOT / "README.md").read_text()
    section = readme.split("### Running a real agent", 1)[1].split("\n## ", 1)[0]
    for name, agent in CLIS.items():
        assert f"`{name}`" in section, name
        assert all(key in section for key in agent.key_variables({})), name
    assert "(docs/agents.md)" in section
