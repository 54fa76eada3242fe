"""Where things are inside an agent's container: one place for every path the harness mounts.

The container has no network and a read-only root; only these are mounted:

- ``WORKSPACE`` (a size-limited tmpfs, the agent's working directory): ``database.duckdb``,
  ``instruction.md``, the skills folder of the agent, and what the agent writes
  (``output.csv``). The setup phase copies them in from ``SEED``; nothing else is there.
- ``SEED`` (read-only): the workspace's starting content, prepared by the harness.
- ``DATA`` (read-only): the Parquet files of exactly the relations the task may see,
  under neutral names for transformed schema variants. The workspace database's views
  read them from here.
- ``RUNTIME`` (read-only): the harness's own in-container programs (the egress
  forwarder, the workspace setup script) and the setup plan.
- ``EGRESS_DIR`` (read-only socket folder): the Unix socket of the host-side egress
  proxy; the forwarder relays 127.0.0.1:``PROXY_PORT`` to it.
- ``SECRETS_FILE`` (read-only file): provider credentials as ``KEY=value`` lines,
  never in the container's environment (so never in ``docker inspect``).
- ``SOLUTION`` (read-only; the ``oracle`` agent only): the reference export.
- ``METERING_CA`` (read-only file): the certificate of the campaign's metering CA, which the
  CLIs trust so the egress proxy can read their model traffic (``harness.metering``).
- ``HOME`` (tmpfs): the agent user's home; ``TMP`` (tmpfs).

Every bind mount's source is a folder of the attempt's scratch space with a neutral name
(``neutral_source`` in ``run``), so ``/proc/self/mountinfo`` shows nothing of the host's
layout (data directory, campaign folder, run key, the user's paths).

The container's own processes (init, the egress forwarder) run as ``HARNESS_UID``; the agent
runs as another uid (``AGENT_UID``, or the invoking user's), so it cannot signal or trace them.
"""

from __future__ import annotations

from m4agent import run_folder

WORKSPACE = "/workspace"
DATA = "/data"
RUNTIME = "/m4agent"
EGRESS_DIR = "/run/m4agent-egress"
EGRESS_SOCKET = f"{EGRESS_DIR}/proxy.sock"
PROXY_PORT = 18080
SECRETS_FILE = "/run/m4agent-secrets/env"
SOLUTION = "/solution"
METERING_CA = "/run/m4agent-ca/ca.pem"
SEED = "/m4agent-seed"
HOME = "/home/agent"
TMP = "/tmp"

AGENT_USER = "agent"
AGENT_UID = 1000
HARNESS_UID = 65534  # "nobody": owns nothing the agent can write

DATABASE_NAME = "database.duckdb"
OUTPUT_NAME = run_folder.OUTPUT_NAME  # the agent's answer keeps its name from the workspace to the run folder
INSTRUCTION_NAME = "instruction.md"
