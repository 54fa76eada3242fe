"""The filesystem canary: before each campaign, prove from inside a real agent container that
nothing outside the run's own workspace and data can be reached.

It starts a container exactly as an attempt gets it (``run.prepare_box``, same mounts,
user, limits; role ``canary``), builds the workspace database, and probes as the agent
user:

- the host paths of everything an agent must not see, as the container would find them
  if they were mounted: the data directory and its databases (references, derived
  tables), the workspaces' shared exports (dropped relations' files), the campaign
  folder (other runs, results, truth exports), the tasks folder (task notes, skills of
  other conditions), the host user's secrets (``~/.codex``, ``~/.claude``, ...) at their
  host path and under the container's HOME, and the Docker socket;
- the oracle's answer (``/solution``), absent for every other agent;
- every file under ``/data`` and every relation of the workspace database: nothing
  beyond the task's plan.

A probe passes when the path is absent or unreadable. The report (``canary.json``)
lists each probe; one reachable path fails the campaign before any run starts.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from m4agent import layout, workspaces
from m4agent.campaign_folder import RunSpec
from m4agent.harness import container as docker_layer
from m4agent.harness.agents import get_agent

SECRET_NAMES = (".codex", ".claude", ".claude.json", ".gemini", ".pi", ".ssh", ".aws", ".config/gcloud",
                ".netrc", ".docker/config.json", ".npmrc")
DOCKER_SOCKETS = ("/var/run/docker.sock", "/run/docker.sock")
CANARY_SECONDS = 120.0

PROBE_SCRIPT = r"""
for p in "$@"; do
  if [ -e "$p" ] || [ -L "$p" ]; then
    if [ -r "$p" ]; then echo "REACHABLE	$p"; else echo "UNREADABLE	$p"; fi
  else
    echo "ABSENT	$p"
  fi
done
echo "DATAFILES	$(cd /data 2>/dev/null && find . -type f -o -type l | sort | tr '\n' ' ')"
python3 - <<'PY'
import duckdb, json
con = duckdb.connect('/workspace/database.duckdb', read_only=True)
rows = con.execute("SELECT schema_name, table_name FROM duckdb_tables() UNION ALL "
                   "SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal").fetchall()
print("RELATIONS\t" + json.dumps(sorted(f"{s}.{t}" for s, t in rows)))
PY
"""


def probe_paths(ctx: Any, tasks_dir: Path | None = None) -> list[str]:
    """Every path the canary probes, host secrets included at their host and container places."""
    home = Path.home()
    paths = [str(ctx.data_dir), str(ctx.campaign_dir), str(ctx.campaign_dir / ".truth"),
             str(ctx.data_dir / "mimic_iv.duckdb"), str(ctx.data_dir / "eicu.duckdb"),
             str(ctx.data_dir / "workspaces"), layout.SOLUTION, *DOCKER_SOCKETS]
    if tasks_dir is not None:
        paths.append(str(tasks_dir))
    for name in SECRET_NAMES:
        paths += [str(home / name), f"{layout.HOME}/{name}", f"/root/{name}"]
    return sorted(set(paths))


def _expected(plan: Any) -> tuple[set[str], set[str]]:
    relations = {f"{r.schema}.{r.name}" for r in plan.relations}
    files = {f"./{r.path}" for r in plan.relations}
    return relations, files


def run_canary(ctx: Any, specs: list[RunSpec], tasks_dir: Path | None = None) -> dict[str, Any]:
    """Probe one container per schema variant in the campaign (with the first run of each); the report."""
    from m4agent.harness.run import SETUP_COMMAND, prepare_box

    report: dict[str, Any] = {"passed": True, "probes": [], "containers": []}
    chosen: dict[str, RunSpec] = {}
    for spec in specs:
        chosen.setdefault(spec.schema, spec)
    for schema, spec in sorted(chosen.items()):
        agent = get_agent(spec.agent)
        scratch = Path(tempfile.mkdtemp(prefix="c", dir=ctx.scratch()))
        name = f"m4agent-{ctx.campaign_id[:8]}-canary-{schema}"
        try:
            box_spec = prepare_box(ctx, spec, agent, scratch, "canary", name, 0, with_solution=False)
            plan = workspaces.plan_for(ctx.tasks[spec.task], ctx.data_dir, spec.schema)
            from m4agent.harness.egress import EgressProxy

            log = scratch / "egress.jsonl"
            with EgressProxy(scratch / "egress" / Path(layout.EGRESS_SOCKET).name, ctx.policy, log), \
                    docker_layer.AgentContainer(ctx.engine, box_spec) as box:
                box.start()
                setup = box.exec(SETUP_COMMAND, ctx.limits.setup_seconds, log=scratch / "setup.log")
                if setup.exit_code != 0:
                    raise RuntimeError(f"canary workspace setup failed: {(scratch / 'setup.log').read_text()[-500:]}")
                out = scratch / "probe.log"
                probed = box.exec(["bash", "-c", PROBE_SCRIPT, "canary", *probe_paths(ctx, tasks_dir)],
                                  CANARY_SECONDS, log=out)
            lines = out.read_text().splitlines()
            if probed.timed_out or probed.exit_code != 0:
                raise RuntimeError(f"canary probe failed (exit {probed.exit_code}): {lines[-5:]}")
            expected_relations, expected_files = _expected(plan)
            entry = {"schema": schema, "task": spec.task, "extra_relations": [], "extra_files": []}
            for line in lines:
                kind, _, rest = line.partition("\t")
                if kind in ("ABSENT", "UNREADABLE", "REACHABLE"):
                    denied = kind != "REACHABLE"
                    report["probes"].append({"schema": schema, "path": rest, "state": kind.lower(),
                                             "denied": denied})
                    report["passed"] &= denied
                elif kind == "DATAFILES":
                    entry["extra_files"] = sorted(set(rest.split()) - expected_files)
                elif kind == "RELATIONS":
                    entry["extra_relations"] = sorted(set(json.loads(rest)) - expected_relations)
            if entry["extra_files"] or entry["extra_relations"]:
                report["passed"] = False
                for path in entry["extra_files"] + entry["extra_relations"]:
                    report["probes"].append({"schema": schema, "path": path, "state": "unplanned",
                                             "denied": False})
            report["containers"].append(entry)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return report
