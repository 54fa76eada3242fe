"""Agent containers on the Docker SDK: locked down, labelled, timed per phase, reaped.

Each attempt gets a fresh container (``AgentContainer``):

- non-root users, read-only root filesystem, all capabilities dropped, no new
  privileges; writable only three tmpfs, each with a hard size limit enforced by the
  kernel: the workspace, ``/tmp`` and HOME. Nothing the agent writes reaches the host's
  disk; the harness copies out what it keeps (``collect``), bounded;
- two users: the container's own processes (an init that reaps, and the egress
  forwarder) run as ``layout.HARNESS_UID``, the agent as another uid, so the agent
  can neither signal nor trace them, and ``stop_agent`` can kill every process of the
  agent's uid at once without touching them;
- CPU, memory and pid limits (``Limits``); the tmpfs pages count against the memory
  limit;
- network ``none``: the one way out is the egress proxy's Unix socket, mounted by
  the caller (``egress``);
- labels naming the campaign, run and attempt, and a unique name, so leftovers of
  a dead harness are found and removed (``reap``) at every start;
- each phase (setup, agent, collect) runs as one ``exec`` with its own time limit;
  past it the container is killed, and the kill is verified: the container must be
  gone before the attempt is recorded.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import docker
import docker.errors
from docker.types import Mount

from m4agent import layout
from m4agent.errors import M4AgentError

LABEL_PREFIX = "io.m4agent"
LABEL_CAMPAIGN = f"{LABEL_PREFIX}.campaign"
LABEL_RUN = f"{LABEL_PREFIX}.run"
LABEL_ATTEMPT = f"{LABEL_PREFIX}.attempt"
LABEL_ROLE = f"{LABEL_PREFIX}.role"
LABEL_CAMPAIGN_DIR = f"{LABEL_PREFIX}.campaign-dir"  # whose lock says whether a harness still runs it (doctor)
TRACE_LIMIT_BYTES = 50 * 1024 * 1024
KILL_VERIFY_SECONDS = 30.0

# Run as the agent's uid: kill(-1) reaches every process of that uid but the caller, atomically with
# respect to fork (so no child escapes by forking during it); then /proc must list none of that uid
# alive but the caller (zombies cannot write). Python, so the check itself starts no process.
STOP_AGENT_SCRIPT = """
import os, signal, sys, time
me, uid = os.getpid(), os.getuid()
def alive():
    left = []
    for name in os.listdir('/proc'):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open('/proc/%s/status' % name) as handle:
                fields = dict(line.split(':', 1) for line in handle if ':' in line)
        except OSError:
            continue
        if int(fields['Uid'].split()[0]) == uid and not fields['State'].strip().startswith('Z'):
            left.append(name)
    return left
for _ in range(50):
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    time.sleep(0.02)
    if not alive():
        sys.exit(0)
sys.exit(1)
"""


@dataclass(frozen=True)
class Limits:
    """Resources and time limits of one attempt's container."""

    cpus: float = 1.0
    memory: str = "4g"
    pids: int = 512
    tmp_size: str = "1g"
    home_size: str = "512m"
    workspace_size: str = "2g"
    workspace_files: int = 100_000  # inodes of the workspace's tmpfs: a bound on the tree an agent can leave
    setup_seconds: float = 300.0
    agent_seconds: float = 1800.0
    collect_seconds: float = 60.0

    def as_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class Bind:
    """A bind mount: host path, container path, read-only or not."""

    source: Path
    target: str
    read_only: bool = True


@dataclass
class ExecResult:
    exit_code: int | None
    timed_out: bool
    seconds: float
    truncated: bool = False


@dataclass(frozen=True)
class ContainerSpec:
    image: str
    name: str
    labels: Mapping[str, str]
    binds: Sequence[Bind]
    command: Sequence[str]  # the main process (the egress forwarder); it keeps the container up
    limits: Limits = field(default_factory=Limits)
    environment: Mapping[str, str] = field(default_factory=dict)


def client() -> docker.DockerClient:
    """The Docker engine, or a message saying how to start one."""
    try:
        engine = docker.from_env(timeout=120)
        engine.ping()
    except docker.errors.DockerException as exc:
        raise M4AgentError(f"the Docker engine is not reachable ({exc}); start it (for example "
                           "`dockerd &` as root, or Docker Desktop) and check with `m4agent doctor`") from exc
    return engine


def container_user() -> tuple[int, int]:
    """The uid:gid the agent runs as: the invoking user's, or the image's agent user when that is root."""
    uid, gid = os.getuid(), os.getgid()
    if uid == 0:
        return layout.AGENT_UID, layout.AGENT_UID
    return uid, gid


def memory_bytes(text: str) -> int:
    units = {"k": 1024, "m": 1024**2, "g": 1024**3}
    text = text.strip().lower()
    return int(float(text[:-1]) * units[text[-1]]) if text[-1] in units else int(text)


class AgentContainer:
    """One attempt's container: created locked down, used through timed execs, always removed."""

    def __init__(self, engine: docker.DockerClient, spec: ContainerSpec):
        self.engine = engine
        self.spec = spec
        self.uid, self.gid = container_user()
        self.container: Any = None

    def start(self) -> None:
        spec, limits = self.spec, self.spec.limits
        mounts = [Mount(target=b.target, source=str(b.source), type="bind", read_only=b.read_only)
                  for b in spec.binds]
        owner = f"uid={self.uid},gid={self.gid}"
        self.container = self.engine.containers.create(
            spec.image,
            command=list(spec.command),
            name=spec.name,
            labels=dict(spec.labels),
            user=f"{layout.HARNESS_UID}:{layout.HARNESS_UID}",
            init=True,
            working_dir=layout.WORKSPACE,
            environment=dict(spec.environment),
            mounts=mounts,
            tmpfs={layout.TMP: f"rw,nosuid,nodev,size={limits.tmp_size},mode=1777",
                   layout.HOME: f"rw,nosuid,nodev,size={limits.home_size},mode=0700,{owner}",
                   layout.WORKSPACE: f"rw,nosuid,nodev,size={limits.workspace_size},"
                                     f"nr_inodes={limits.workspace_files},mode=0700,{owner}"},
            read_only=True,
            network_mode="none",
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            nano_cpus=int(limits.cpus * 1e9),
            mem_limit=memory_bytes(limits.memory),
            memswap_limit=memory_bytes(limits.memory),
            pids_limit=limits.pids,
            detach=True,
        )
        self.container.start()

    def exec(self, command: Sequence[str], timeout: float, log: Path | None = None,
             environment: Mapping[str, str] | None = None, workdir: str = layout.WORKSPACE,
             stop_agent_on_timeout: bool = False) -> ExecResult:
        """Run one phase as the agent's user, its output (merged) appended to ``log`` up to ``TRACE_LIMIT_BYTES``.

        Past ``timeout`` seconds the whole container is killed (and the kill verified); with
        ``stop_agent_on_timeout`` (the agent phase) only the agent's processes are, so what it
        left in the workspace can still be collected."""
        handle = log.open("ab") if log is not None else None
        try:
            return self._run(command, timeout, environment, workdir, handle, None, stop_agent_on_timeout)
        finally:
            if handle is not None:
                handle.close()

    def exec_capture(self, command: Sequence[str], timeout: float, out: Path, limit: int) -> tuple[ExecResult, bytes]:
        """Run a harness command (collection) as the agent's user: its standard output to ``out``, at most
        ``limit`` bytes (``truncated`` past it: nothing more is read, and the caller removes the container);
        returns the result and the first 64 KiB of its standard error."""
        errors = bytearray()
        with out.open("wb") as handle:
            ran = self._run(command, timeout, None, layout.WORKSPACE, handle, errors, False, limit)
        return ran, bytes(errors)

    def _run(self, command: Sequence[str], timeout: float, environment: Mapping[str, str] | None, workdir: str,
             sink: Any, errors: bytearray | None, stop_agent_on_timeout: bool,
             limit: int = TRACE_LIMIT_BYTES) -> ExecResult:
        api = self.engine.api
        created = api.exec_create(self.container.id, list(command), user=f"{self.uid}:{self.gid}",
                                  workdir=workdir, environment=dict(environment or {}), stdout=True,
                                  stderr=True, stdin=False, tty=False)
        exec_id = created["Id"]
        state: dict[str, Any] = {"truncated": False, "error": None}
        demux = errors is not None

        def pump() -> None:
            written = 0
            try:
                for chunk in api.exec_start(exec_id, stream=True, demux=demux):
                    if demux:
                        chunk, err = chunk
                        if err and errors is not None and len(errors) < 65536:
                            errors.extend(err[:65536 - len(errors)])
                    if not chunk or sink is None:
                        continue
                    room = limit - written
                    if room <= 0 or len(chunk) > room:
                        state["truncated"] = True
                    if room > 0:
                        sink.write(chunk[:room])
                        written += min(len(chunk), room)
                    if state["truncated"] and demux:
                        return  # a capture past its limit is abandoned (the caller kills the container)
            except Exception as exc:  # the stream ends with an error when the container is killed
                state["error"] = exc

        started = time.monotonic()
        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        reader.join(timeout)
        seconds = time.monotonic() - started
        if reader.is_alive():
            if not (stop_agent_on_timeout and self.stop_agent()):
                self.kill()
            reader.join(10)
            return ExecResult(exit_code=None, timed_out=True, seconds=seconds, truncated=state["truncated"])
        if state["truncated"] and demux:
            return ExecResult(exit_code=None, timed_out=False, seconds=seconds, truncated=True)
        code = api.exec_inspect(exec_id).get("ExitCode")
        return ExecResult(exit_code=code, timed_out=False, seconds=seconds, truncated=state["truncated"])

    def stop_agent(self) -> bool:
        """Kill every process of the agent's user (the container's own init and forwarder run as another
        user and stay), and check none is left; False when that could not be shown (the caller then
        removes the container). Nothing the agent started can write after this returns True."""
        api = self.engine.api
        try:
            created = api.exec_create(self.container.id, ["python3", "-c", STOP_AGENT_SCRIPT],
                                      user=f"{self.uid}:{self.gid}", workdir="/", stdout=True, stderr=True)
            api.exec_start(created["Id"], stream=False)
            return api.exec_inspect(created["Id"]).get("ExitCode") == 0
        except docker.errors.DockerException:
            return False

    def state(self) -> dict[str, Any]:
        """The engine's view of the container (``Running``, ``OOMKilled``, ...); empty when it is gone."""
        try:
            self.container.reload()
        except docker.errors.DockerException:
            return {}
        return dict(self.container.attrs.get("State", {}))

    def exec_detached(self, command: Sequence[str]) -> None:
        api = self.engine.api
        created = api.exec_create(self.container.id, list(command), user=f"{self.uid}:{self.gid}",
                                  workdir=layout.WORKSPACE)
        api.exec_start(created["Id"], detach=True)

    def kill(self) -> None:
        """Kill and remove the container, then verify it is gone; an infra error if it is not."""
        remove(self.engine, self.spec.name)

    def __enter__(self) -> AgentContainer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


def remove(engine: docker.DockerClient, name: str) -> None:
    """Force-remove a container by name and wait until the engine no longer lists it."""
    deadline = time.monotonic() + KILL_VERIFY_SECONDS
    while True:
        try:
            engine.containers.get(name).remove(force=True)
        except docker.errors.NotFound:
            pass
        except docker.errors.APIError:
            pass  # removal already in progress; check below
        if not engine.containers.list(all=True, filters={"name": f"^/{name}$"}):
            return
        if time.monotonic() > deadline:
            raise M4AgentError(f"container {name} could not be removed within {KILL_VERIFY_SECONDS:.0f} s; "
                               f"remove it with `docker rm -f {name}`")
        time.sleep(0.2)


def campaign_labels(campaign_id: str, campaign_dir: Path, role: str) -> dict[str, str]:
    """The labels every container of a campaign carries: its id, its folder and the container's role."""
    return {LABEL_CAMPAIGN: campaign_id, LABEL_CAMPAIGN_DIR: str(campaign_dir), LABEL_ROLE: role}


def labelled(engine: docker.DockerClient, **labels: str) -> list[Any]:
    """Containers carrying all the given labels (keys without the prefix: campaign, run, attempt)."""
    filters = [f"{LABEL_PREFIX}.{key}={value}" for key, value in labels.items()] or [LABEL_CAMPAIGN]
    return engine.containers.list(all=True, filters={"label": filters})


def reap(engine: docker.DockerClient, **labels: str) -> int:
    """Remove leftovers carrying the labels (a campaign's, or every m4agent container); how many."""
    found = labelled(engine, **labels)
    for container in found:
        remove(engine, container.name)
    return len(found)
