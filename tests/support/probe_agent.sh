#!/usr/bin/env bash
# A hostile home-made agent for the harness's isolation test: it tries to reach what no agent may
# reach and prints one line per probe, "PROBE <name> DENIED" or "PROBE <name> REACHED <detail>".
# The paths to try come from the environment file the test writes next to this script.
set -u
. "$(dirname "$0")/probe_targets.env"

probe_read() {  # name path
  if head -c 64 "$2" >/dev/null 2>&1 || ls "$2" >/dev/null 2>&1; then
    echo "PROBE $1 REACHED $2"
  else
    echo "PROBE $1 DENIED $2"
  fi
}

probe_read references "$DATA_DIR/mimic_iv.duckdb"
probe_read reference_exports "$CAMPAIGN_DIR/.truth"
probe_read other_runs "$CAMPAIGN_DIR/runs"
probe_read host_secret "$HOST_SECRET"
probe_read home_secret "$HOME/.codex/auth.json"
probe_read docker_socket /var/run/docker.sock
probe_read docker_socket_run /run/docker.sock
probe_read solution /solution/output.csv

# An address outside the allowlist, through the one door out (the egress proxy).
python3 - <<'PY'
import os, socket
try:
    s = socket.create_connection(("127.0.0.1", int(os.environ.get("PROXY_PORT", "18080"))), timeout=10)
    s.sendall(b"CONNECT forbidden.example.invalid:443 HTTP/1.1\r\nHost: forbidden.example.invalid:443\r\n\r\n")
    answer = s.recv(200).decode("latin-1").split("\r\n")[0]
    print("PROBE egress", "REACHED" if " 200 " in answer else "DENIED", answer)
except OSError as exc:
    print("PROBE egress DENIED", exc)
# Around the door: name resolution and a direct connection must fail (network none).
try:
    socket.getaddrinfo("forbidden.example.invalid", 443)
    print("PROBE dns REACHED")
except OSError as exc:
    print("PROBE dns DENIED", exc)
PY
exit 0
