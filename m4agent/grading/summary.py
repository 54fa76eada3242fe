"""What went wrong across many results, by kind (``m4agent grade --results-root`` prints it)."""

from __future__ import annotations

import re
from typing import Any

_STAGES = ("CSV read failed", "Comparison failed", "grading failed")


def failure_summary(results: dict[str, dict[str, Any]]) -> list[tuple[str, int]]:
    """How many runs failed for each kind of reason (the first error up to its first colon, or its
    second after a stage such as ``CSV read failed``; numbers and quoted text blanked), most frequent
    first."""
    kinds: dict[str, int] = {}
    for result in results.values():
        if result["errors"]:
            parts = result["errors"][0].split(": ")
            kind = ": ".join(parts[:2] if parts[0] in _STAGES and len(parts) > 1 else parts[:1])
            kind = re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'...'", kind))[:160]
            kinds[kind] = kinds.get(kind, 0) + 1
    return sorted(kinds.items(), key=lambda item: (-item[1], item[0]))
