"""``m4agent doctor``: is this machine ready for a campaign? Each check says what to do when it fails."""

from __future__ import annotations

import shutil
import time
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
        leftovers = container.labelled(engine)
        if reap and leftovers:
            container.reap(engine)
            found.append(_check("containers", True, f"removed {len(leftovers)} m4agent container(s) left behind"))
        else:
            found.append(_check("containers", not leftovers, "none left behind" if not leftovers else
                                f"{len(leftovers)} m4agent container(s) left behind: `m4agent doctor --reap`"))
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
