"""``m4agent doctor``: is this machine ready for a campaign? Each check says what to do when it fails."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from m4agent.errors import M4AgentError
from m4agent.paths import database_path

MIN_FREE_BYTES = 5 * 1024**3


def _check(name: str, ok: bool, detail: str) -> dict[str, Any]:
    return {"name": name, "ok": ok, "detail": detail}


def checks(data_dir: Path, reap: bool = False) -> list[dict[str, Any]]:
    from m4agent.harness import container
    from m4agent.harness.image import image_present, image_tag

    found = []
    engine = None
    try:
        engine = container.client()
        found.append(_check("docker", True, f"engine {engine.version().get('Version', '?')} reachable"))
    except M4AgentError as exc:
        found.append(_check("docker", False, str(exc)))
    if engine is not None:
        tag = image_tag()
        present = image_present(engine)
        found.append(_check("image", present, f"{tag} present" if present else
                            f"{tag} missing: build it with `scripts/build_image.sh` (offline) or "
                            f"`docker build -f docker/Dockerfile -t {tag} .`"))
        found.append(_containers(engine, reap))
        found.append(_clock(engine))
    for dataset in ("mimic-iv", "eicu"):
        db = database_path(data_dir, dataset)
        found.append(_check(f"data {dataset}", db.exists(), str(db) if db.exists() else
                            f"{db} missing: `m4agent quickstart` or `m4agent data load --dataset {dataset}`"))
    probe = data_dir if data_dir.exists() else data_dir.parent
    free = shutil.disk_usage(probe).free if probe.exists() else 0
    found.append(_check("disk", free >= MIN_FREE_BYTES, f"{free / 1024**3:.1f} GiB free at {probe}"
                        + ("" if free >= MIN_FREE_BYTES else f" (want {MIN_FREE_BYTES / 1024**3:.0f} GiB)")))
    from m4agent.skills.preflight import doctor_check  # instructions, skills and specs leak no answer

    found.append(doctor_check())
    return found


LIVE, LEFT, UNKNOWN = "live", "left behind", "unknown"


@contextlib.contextmanager
def _harness_state(campaign_dir: str | None) -> Iterator[str]:
    """Whether a harness runs the campaign in ``campaign_dir``, from its ``.harness.lock`` (the harness
    holds it exclusively while it runs, and the lock dies with it). Left behind, the lock is held
    shared for the ``with`` block, so a harness starting meanwhile waits until the leftovers are gone."""
    from m4agent.harness.campaign import MUTEX_FILE

    if not campaign_dir:  # a container of an m4agent older than the label: nothing says
        yield UNKNOWN
        return
    try:
        fd = os.open(Path(campaign_dir) / MUTEX_FILE, os.O_RDONLY)
    except FileNotFoundError:  # the folder or its lock is gone: no harness can hold it
        yield LEFT
        return
    except OSError:  # another user's campaign we cannot read: not ours to judge
        yield UNKNOWN
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            yield LIVE
            return
        yield LEFT
    finally:
        os.close(fd)


def _containers(engine: Any, reap: bool) -> dict[str, Any]:
    """m4agent's containers by campaign: those of a live harness are its business; those left behind
    by a dead one are reported, and removed with ``reap``; those nothing tells about are only named."""
    from m4agent.harness import container

    campaigns: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for box in container.labelled(engine):
        labels = box.labels or {}
        campaigns[(labels.get(container.LABEL_CAMPAIGN, ""), labels.get(container.LABEL_CAMPAIGN_DIR, ""))].append(box)
    counts: Counter[str] = Counter()
    removed = 0
    unknown: list[str] = []
    for (campaign_id, folder), boxes in sorted(campaigns.items()):
        with _harness_state(folder) as state:
            counts[state] += len(boxes)
            if state == LEFT and reap:
                removed += container.reap(engine, campaign=campaign_id)
            if state == UNKNOWN:
                unknown += [box.name for box in boxes]
    parts = []
    if counts[LIVE]:
        parts.append(f"{counts[LIVE]} running for a live campaign (left alone)")
    if removed:
        parts.append(f"removed {removed} left behind by a harness that died")
    elif counts[LEFT]:
        parts.append(f"{counts[LEFT]} left behind by a harness that died: `m4agent doctor --reap` removes them")
    if unknown:
        parts.append(f"{len(unknown)} of a campaign whose harness cannot be checked (another user's, or an older "
                     f"m4agent's), never removed by --reap: `docker rm -f {' '.join(unknown[:5])}` once no harness "
                     "runs it")
    left = counts[LEFT] - removed
    return _check("containers", not left, "; ".join(parts) or "none left behind")


def _clock(engine: Any) -> dict[str, Any]:
    """The Docker engine's clock against ours (timestamps of records and egress logs must agree)."""
    try:
        headers = engine.api.get(engine.api._url("/_ping")).headers
        theirs = parsedate_to_datetime(headers["Date"]).timestamp()
    except Exception as exc:  # an engine without a Date header: nothing to compare
        return _check("clock", True, f"not compared ({type(exc).__name__})")
    skew = abs(theirs - time.time())
    return _check("clock", skew < 5, f"engine clock {skew:.1f} s from ours" + ("" if skew < 5 else
                  ": fix the clock (records and egress logs are compared by time)"))
