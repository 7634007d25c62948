"""Masking: a slow drive hidden behind a slower one (issue 40, ninth round), and the option that names the pair.
Two slow drives of one array widen each other's reference spread: the worst, weighed against peers that hold the
milder one, does not pass, and the milder one, weighed against the healthy drives, passes only at the first step's
Bonferroni cut. With `step_share` the later steps spend their own share of the array's false-alarm budget, their
alarm and the first step's simulated per size (`analysis.outlier_null.later_alarm`). Not shipped: the later step's
looser cut also names the lowest healthy drive behind a single slow one (docs/arrays.md, ninth round), and the
share held to arrays of fewer than 16 drives (`step_share_below`), judged on fresh sets, cost arrays of one slow
drive 3.05 points at sigma 20-30% against the 3.00 its pre-declared rule allowed (tenth round)."""

from __future__ import annotations

from dataclasses import replace
from statistics import NormalDist

import numpy as np

from iolab.analysis import outlier_groups, outlier_null
from iolab.analysis.outliers import OutlierParams, find_outliers

# The later steps at their own share of the budget: not shipped (issue 40, ninth round: it names a healthy drive
# behind a single slow one ten times as often as the shipped steps), kept as an option with its tests
SHARED = OutlierParams(step_share=0.5, mixture_below=0)  # the steps judge 8-15 drives (not the mixture test)
# ... at that share in arrays of fewer than 16 drives only (issue 40, tenth round: not shipped either)
LIMITED = replace(SHARED, step_share_below=16)


def _masking_array(spread: float = 0.12, drives: int = 11, mild: float = 0.54, far: float = 0.38) -> dict[str, float]:
    """The audit's case: 11 drives, 9 healthy ones spread `spread` (sd of ln rate, exactly), one at 54% and one at
    38% of their geometric mean."""
    q = np.array([NormalDist().inv_cdf((i + 0.5) / (drives - 2)) for i in range(drives - 2)])
    peers = np.exp(q / q.std(ddof=1) * spread) * 1000.0
    centre = float(np.exp(np.log(peers).mean()))
    return {f"d{i}": float(v) for i, v in enumerate(peers)} | {"mild": mild * centre, "far": far * centre}


def test_two_slow_drives_that_mask_each_other_are_both_named_with_the_later_steps_share(fewer_draws):
    """The worst (38%) weighed against peers holding the milder one scores about -3.8 (not named); the milder (54%)
    against the healthy drives about -4.9, past the second step's cut at its share of the budget: both are named.
    With one step (`loo_block` 1) or the later steps at the first's alarm (`step_share` 0) neither is."""
    values = _masking_array()
    assert sorted(s.device for s in find_outliers(values, SHARED).outliers) == ["far", "mild"]
    assert sorted(s.device for s in find_outliers(values, LIMITED).outliers) == ["far", "mild"]
    assert find_outliers(values, replace(SHARED, loo_block=1)).outliers == []
    assert find_outliers(values, replace(SHARED, step_share=0.0)).outliers == []


def test_from_the_size_limit_on_the_later_steps_keep_the_equal_cuts(fewer_draws):
    """20 drives, 18 spread 12%, one at 30% of them and one at 61%, 4.1 sds below the healthy ones, where a healthy
    drive behind a single fault sits at the share's looser cut: the share names both, the shipped equal cuts the
    far one only, and so does the share limited to fewer than 16 drives. Fails with the limit off
    (`step_share_below` 0)."""
    values = _masking_array(drives=20, mild=0.61, far=0.30)
    assert sorted(s.device for s in find_outliers(values, SHARED).outliers) == ["far", "mild"]
    for params in (OutlierParams(), LIMITED):
        assert [s.device for s in find_outliers(values, params).outliers] == ["far"], params


def _passed(a: np.ndarray, group: float, first: float, later: float) -> tuple[float, float]:
    """Of clean arrays `a` (rows, worst first): the share any test names (the group search at `group`, the first
    leave-out step at `first`, the second at `later`), and the share the second step alone names."""
    n = a.shape[1]
    split = outlier_groups._split_t(a, np.arange(1, 3), 0.0)
    grouped = (outlier_groups._split_t(a, outlier_groups._ks(n, 0.5), 0.0) > outlier_groups.cuts(n, group, 0.5)).any(
        axis=1
    )
    cuts = outlier_null.step_cuts(n, 2, first, later / first)
    union = grouped | outlier_null._steps_passed(split, cuts)
    return float(union.mean()), float(outlier_null._steps_passed(split[:, 1:], cuts[1:]).mean())


def test_the_later_steps_share_holds_the_array_alarm_on_fresh_clean_arrays(fewer_draws):
    """Generative, on normal clean arrays drawn apart from the calibration (2% alarms, so 3,000 arrays tell): the
    second step alone passes at most its share of the array alarm, and with the group search and the first step
    (recalibrated for what the second spends) at most the array alarm, with room for sampling. The first step left
    at its alarm without the second's share passes more."""
    rng = np.random.default_rng(901)
    spend, array, group = SHARED.step_share, 0.02, 0.01
    for n in (8, 12, 16):
        a = np.sort(rng.standard_normal((3_000, n)), axis=1)[:, ::-1]
        later = outlier_null.later_alarm(n, spend * array, 2, group, 0.5)
        first = outlier_null.loo_alarm(n, array, 2, group, 0.5, 2e-5, later=later)
        alone = outlier_null.loo_alarm(n, array, 2, group, 0.5, 2e-5)
        union, second = _passed(a, group, first, later)
        assert second <= spend * array + 0.006, (n, second)
        assert union <= array + 0.008, (n, first, union)
        assert first < alone and _passed(a, group, alone, later)[0] > union, (n, first, alone)
