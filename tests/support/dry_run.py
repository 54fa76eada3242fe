"""Support for the agent tests: one campaign of a real agent CLI against the scripted model server.

``dry_run`` starts the scripted server over TLS (a throwaway CA, trusted in the
container through the adapter's ``ca_cert`` option), routes the provider's real host
name to it in the egress policy, plans a one-task campaign for the agent and runs it
through real containers; it returns the campaign folder and what the server saw.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from m4agent import campaign_folder
from m4agent.harness import campaign, records
from m4agent.model_server import ScriptedModelServer, make_certificates, parse_script
from m4agent.run_folder import RESULT_FILE, read_json
from support.harness import write_matrix

TASK = "mimic-sofa-24h"

# The model's one tool call: SQL on the workspace database, the answer's keys with every score 0.
# (A heredoc, not `python3 -c`, which Claude Code's disallowed tools refuse, as M4Bench sets them.)
SQL_TO_CSV = """python3 - <<'PY'
import duckdb
con = duckdb.connect('database.duckdb', read_only=True)
con.sql('''SELECT subject_id, hadm_id, stay_id, 0 AS sofa, 0 AS respiration, 0 AS coagulation, 0 AS liver,
           0 AS cardiovascular, 0 AS cns, 0 AS renal FROM mimiciv_icu.icustays ORDER BY stay_id''').write_csv('output.csv')
print(open('output.csv').read().count(chr(10)) - 1, 'rows written')
PY"""


def task_script(model: str) -> dict[str, Any]:
    """Two turns: run the SQL, then a final answer; usage with every kind of token."""
    return {"model": model, "turns": [
        {"shell": SQL_TO_CSV, "usage": {"input": 2400, "cache_write": 1800, "cache_read": 0, "output": 210,
                                        "reasoning": 60}},
        {"text": "output.csv is written.", "usage": {"input": 150, "cache_read": 4100, "output": 25}},
    ]}


@dataclass
class DryRun:
    campaign_dir: Path
    requests: list[dict[str, Any]]
    statuses: list[dict[str, Any]]  # what each `campaign run` returned

    def run_folders(self) -> list[Path]:
        return [campaign_folder.run_folder(self.campaign_dir, spec) for spec in campaign_folder.planned_runs(self.campaign_dir)]

    def run_folder(self) -> Path:
        (folder,) = self.run_folders()
        return folder

    def attempts(self) -> list[records.AttemptRecord]:
        return records.attempts(self.run_folder())

    def result(self) -> dict[str, Any] | None:
        path = self.run_folder() / RESULT_FILE
        return read_json(path) if path.exists() else None


def dry_run(tmp: Path, data_dir: Path, *, agent: str, hosts: list[str], script: dict[str, Any],
            secrets: dict[str, str], model: str = "default", options: dict[str, str] | None = None,
            agent_seconds: int = 240, max_retries: int = 0, trials: int = 1, runs: int = 1,
            matrix_extra: str = "", run_canary: bool = False, preflight: bool = False) -> DryRun:
    """Run ``agent`` on TASK against a scripted server standing in for ``hosts`` (``runs`` times: resumes)."""
    certs = make_certificates(tmp / "certs", hosts)
    opts = {"ca_cert": str(certs.ca), **(options or {})}
    with ScriptedModelServer(parse_script(script), certificates=certs, log=tmp / "requests.jsonl") as server:
        matrix = write_matrix(tmp / "matrix.toml", f"""
[campaign]
tasks = ["{TASK}"]
conditions = ["no-skill"]
workers = 1
trials = {trials}
max_retries = {max_retries}

[[agents]]
name = "{agent}"
models = ["{model}"]
options = {json.dumps(opts).replace('": "', '" = "')}

[limits]
agent_seconds = {agent_seconds}
{matrix_extra}
""")
        campaign_dir = tmp / "campaign"
        campaign.plan(matrix, campaign_dir)
        statuses = [campaign.run(campaign_dir, data_dir, secrets=secrets, run_canary=run_canary,
                                 routes=tuple((host, "127.0.0.1", server.port) for host in hosts),
                                 preflight=preflight)
                    for _ in range(runs)]
        return DryRun(campaign_dir, list(server.requests), statuses)
