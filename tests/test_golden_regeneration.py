"""The golden files are what the original's code produces today: regenerated and diffed.

``scripts/regenerate_golden.py`` reruns M4Bench's ground-truth SQL (on m4-infra's
derived tables) and its grader on the golden data sets, reads the facts other tests
take from the original (task fields, instruction-line digests, urine cell paths, what
our harness makes of M4Bench's task tree; tests/support/original_facts.py), and
compares all of it with the committed files. It needs the original's repository, so
this is the one check that skips without ``$M4_ORIGINAL_REPO``; every test that uses
the committed facts runs on a clean clone.
"""

from __future__ import annotations

import sys

import original_ground_truth as original
import pytest
from support.golden import ROOT

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not original.mirror_available(),
                    reason="regeneration needs the original M4Bench repository: set M4_ORIGINAL_REPO "
                           "to a clone of hannesill/m4")
def test_golden_files_regenerate_identically(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import regenerate_golden
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    code = regenerate_golden.main([])
    assert code == 0, capsys.readouterr().out[-4000:]
