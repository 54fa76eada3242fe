"""Where things are inside an agent's container: one place for every path the harness mounts.

The container has no network and a read-only root; only these are mounted:

- ``WORKSPACE`` (read-write, the agent's working directory): ``database.duckdb``,
  ``instruction.md``, the skills folder of the agent, and what the agent writes
  (``output.csv``). It starts empty but for what the harness puts there.
- ``DATA`` (read-only): the Parquet files of exactly the relations the task may see,
  under neutral names for transformed schema variants. The workspace database's views
  read them from here.
- ``RUNTIME`` (read-only): the harness's own in-container programs (the egress
  forwarder, the workspace setup script) and the setup plan.
- ``EGRESS_DIR`` (read-write socket folder): the Unix socket of the host-side egress
  proxy; the forwarder relays 127.0.0.1:``PROXY_PORT`` to it.
- ``SECRETS_FILE`` (read-only file): provider credentials as ``KEY=value`` lines,
  never in the container's environment (so never in ``docker inspect``).
- ``SOLUTION`` (read-only; the ``oracle`` agent only): the reference export.
- ``HOME`` (tmpfs): the agent user's home; ``TMP`` (tmpfs).
"""

from __future__ import annotations

WORKSPACE = "/workspace"
DATA = "/data"
RUNTIME = "/m4agent"
EGRESS_DIR = "/run/m4agent-egress"
EGRESS_SOCKET = f"{EGRESS_DIR}/proxy.sock"
PROXY_PORT = 18080
SECRETS_FILE = "/run/m4agent-secrets/env"
SOLUTION = "/solution"
HOME = "/home/agent"
TMP = "/tmp"

AGENT_USER = "agent"
AGENT_UID = 1000

DATABASE_NAME = "database.duckdb"
OUTPUT_NAME = "output.csv"
INSTRUCTION_NAME = "instruction.md"
