"""The generative safety test: 200 seeded job files made from the whole option table, each prepared by
iolab and, where it passes, run by the real fio under strace (`tests/safety_corpus.py` says how).

0 victims changed, 0 tracebacks, and every path fio touched is in the run's manifest.
`bench/safety_generative.py` runs the same with 2,000 cases.
"""

from __future__ import annotations

import shutil

import pytest

from tests.loopdev import loop_skip_reason
from tests.safety_corpus import run_cases

CASES = 200
SEED = 30


@pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed (.ci/run installs it)")
def test_generated_jobs_touch_only_the_manifest_and_change_no_victim(tmp_path, capsys):
    outcome, changed = run_cases(CASES, SEED, tmp_path)
    with capsys.disabled():
        print(
            f"\ngenerative safety: {CASES} cases, {outcome.refused} refused, {outcome.points_run} points run by fio, "
            f"{outcome.fio_paths} paths fio touched, {len(outcome.outside)} outside the manifest"
        )
    assert not outcome.tracebacks, outcome.tracebacks[:3]
    assert not changed, changed
    assert not outcome.outside, outcome.outside[:5]
    assert outcome.points_run >= CASES // 10  # the sample must reach fio, not only be refused
    assert outcome.refused >= CASES // 10
