"""The generative safety test: a seeded sample of generated attacks, each aimed at one registered guard.

Every kind of `tests/safety_attacks.py` runs at least once (an attacker's action as well as an input, uid
65534 through setpriv where another user can act: a directory swapped for a link after a point's checks,
links planted in a sticky directory before and after a path is resolved, root's fio servers driven over an
open socket or TCP, a database file they own; root's own processes where no one else can: a mount over a
checked directory, a loop device stacked in a held one, a file replaced between points; job files naming
victims through each option and name trick), with the real fio and the real run loop. With every guard
on, no victim changes, fio touches nothing outside the manifest, no attacker's action succeeds, no run
ends ok after fio wrote elsewhere, every refusal names its cause in at most two lines and nothing raises;
at least half the cases drawn after every kind's one case reach fio with their victims at hand (most kinds are
refused before fio by design, so the share of all cases is the draw's: 41 of 80 before the `planted-program` and
`import-link` kinds, 37 after, where the weights expect 37.6 and 35.4; 37 again, 30 of the 46 drawn, with
`import-log-swap` and `foreign-python`). `bench/safety_mutation.py` switches each registered guard off and runs these cases: each
guard must make them fail (docs/safety.md has the table); `bench/safety_generative.py` runs 200 or more.
"""

from __future__ import annotations

import shutil
import time

import pytest

from tests.loopdev import loop_skip_reason
from tests.safety_attacks import KINDS, run_cases

CASES = 80
SEED = 39


@pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed (.ci/run installs it)")
@pytest.mark.skipif(shutil.which("mkfs.ext4") is None, reason="mkfs.ext4 is not installed (e2fsprogs)")
def test_generated_attacks_change_no_victim_and_reach_fio(tmp_path, capsys):
    started = time.monotonic()
    outcome = run_cases(CASES, SEED, tmp_path)
    with capsys.disabled():
        print(
            f"\ngenerative safety: {outcome.cases} cases of {len(outcome.kinds)} kinds, {outcome.refused} refused, "
            f"{outcome.reached_fio} reached fio ({outcome.drawn_reached_fio} of the {outcome.drawn} drawn), "
            f"{len(outcome.failures)} failed, {time.monotonic() - started:.0f} s"
        )
    assert not outcome.failures, outcome.failures[:5]
    assert set(outcome.kinds) == set(KINDS)
    # Most kinds are refused before fio by design (their attack is an input or a move no run gets to), and each
    # runs once; the cases drawn after that are mostly kinds that reach fio, by weight, and must reach it.
    assert outcome.drawn_reached_fio * 2 >= outcome.drawn, "the drawn cases must reach fio, not only be refused"
