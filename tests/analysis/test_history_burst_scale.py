"""Two bursts of three bad runs in a short history do not set the scale they are judged by (issue 40, tenth look).

A burst too shallow to be named outlier runs is set aside when it stands `_BURST_SIGMAS` sds off the levels on both
of its sides. Read from `noise_scale`, those sds were the bursts' own: two bursts of three 30-45% down in 60-100 runs
at COV 2-4% make a tenth of the runs, winsorised at 5 MAD-sds and read again as phi 0.4-0.6, and the sd came out
three times the noise's; the bursts stood under 4 of it, stayed in, and a -15% step beside them went unfound. Generated
over the class, each history judged against itself without its bursts.
"""

from __future__ import annotations

import numpy as np

from iolab.analysis import history
from iolab.analysis.history import ChangePointParams, analyse_history

PARAMS = ChangePointParams()
CASES = 60  # the ninth round's scale lost 4 of these steps


def _case(rng):
    n = int(rng.integers(60, 101))
    cov = rng.uniform(0.02, 0.04)
    step_at = int(rng.integers(25, n - 25))
    clean = 1.0 + cov * rng.standard_normal(n)
    clean[step_at:] *= 0.85
    values = clean.copy()
    for start in (int(rng.integers(3, step_at - 8)), int(rng.integers(step_at + 5, n - 6))):
        values[start : start + 3] *= 1.0 - rng.uniform(0.30, 0.45)
    return clean, values, step_at


def _found(values, step_at: int) -> bool:
    times = [1.7e9 + 3600.0 * k for k in range(len(values))]
    return any(abs(c.index - step_at) <= 3 for c in analyse_history(values.tolist(), PARAMS, times).change_points)


def test_two_bursts_do_not_hide_a_step_beside_them():
    rng = np.random.default_rng(4010)
    lost = []
    for case in range(CASES):
        clean, values, step_at = _case(rng)
        if not _found(values, step_at) and _found(clean, step_at):  # the clean history read only for a lost step
            lost.append(case)
    assert not lost, f"steps found without the bursts and lost with them: {lost}"


def test_the_difference_sd_is_not_moved_by_two_bursts():
    rng = np.random.default_rng(4011)
    _, values, _ = _case(rng)
    u = history._relative(values)
    assert history._difference_sd(u) < 1.6 * 0.04
