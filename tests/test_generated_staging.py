"""The staging layer is generated from m4agent/data/schema.py (scripts/generate_staging.py): the committed
models are exactly what the generator writes, so a change to the schema or a hand edit of a staging
model cannot drift unnoticed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from m4agent.paths import PROJECT_ROOT

STAGING = PROJECT_ROOT / "models" / "staging"


def _generated() -> dict[Path, str]:
    spec = importlib.util.spec_from_file_location("generate_staging", PROJECT_ROOT / "scripts" / "generate_staging.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generated()


def test_committed_staging_models_are_what_the_generator_writes() -> None:
    differing = [str(relative) for relative, text in _generated().items()
                 if not (STAGING / relative).is_file() or (STAGING / relative).read_text() != text]
    assert not differing, f"run `python scripts/generate_staging.py`: {differing}"


def test_no_staging_file_lies_outside_the_generators_output() -> None:
    committed = {path.relative_to(STAGING) for path in STAGING.rglob("*") if path.is_file()}
    assert sorted(map(str, committed - set(_generated()))) == []
