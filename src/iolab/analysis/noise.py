"""How uncertain one point's figure is, from its own per-second samples.

A point's throughput is the mean of its seconds, and those seconds are
autocorrelated (a slow second is often followed by another), so the plain
standard error s / sqrt(n) is too small. The standard error here is that of
batch means (`analysis.stopping.batch_interval`: the smallest batch whose
means show no lag-1 autocorrelation beyond 0.2), which the outlier and
scaling verdicts compare with the effect they would report.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from iolab.analysis.stopping import CONFIDENCE, COUNT_VARIANCE, MIN_BATCHES, WANDER, batch_interval, mean
from iolab.analysis.student_t import t_quantile


def relative_error(values: Sequence[float]) -> float | None:
    """Standard error of the mean of `values` over the mean; None with too few seconds to tell (fewer than
    the batch-means interval needs) or a mean that is not positive. An interval always holds `MIN_BATCHES`
    batches or more (`batch_interval` never grows a batch past that), so Student's t has a degree of freedom."""
    interval = batch_interval(list(values))
    if interval is None or interval.mean <= 0:
        return None
    return interval.half_width / _t(interval.batches - 1) / interval.mean


@functools.lru_cache(maxsize=512)
def _t(df: int) -> float:
    """The two-sided `CONFIDENCE` quantile of Student's t at `df`: the doctor asks it of every point's series
    (a tenth of an import's doctor on fio-plot's collection), for a few dozen distinct `df`."""
    return t_quantile(1 - (1 - CONFIDENCE) / 2, df)


def own_noise(values: Sequence[float]) -> float | None:
    """A drive's noise as ARR-OUTLIER weighs it: the step-robust error, or the batch-means error where that is
    smaller. Steps only inflate the batch means' figure, which the step-robust one exists to remove; where the
    step-robust figure is the larger (its AR(1) reading of a short series can overshoot: on outlier_envelope's
    tuning arrays it cost 7 points of recall at spread 1-10%), the batch means, which hold every kind of noise,
    are the better figure. None where either is."""
    robust, batched = step_robust_error(values), relative_error(values)
    return None if robust is None or batched is None else min(robust, batched)


# The median of chi-square with one degree of freedom: a normal difference's square over its variance.
_CHI2_1_MEDIAN = 0.4549
_MAX_RHO = 0.9  # the lag-1 correlation a drive's seconds are taken to have at most
_LOWEST = 1e-3  # a second's rate over the mean below which its logarithm is taken at this (a stalled second)


def step_robust_error(values: Sequence[float]) -> float | None:
    """The standard error of the mean of `values` over the mean, as `relative_error` but blind to level steps.

    A drive slow for part of a run holds two levels; the spread of its batch means about their one mean counts
    that step as noise of the mean, and a verdict that excuses a drive by its own noise then excuses exactly
    the drive that was slow (issue 40). Here the noise is read from the seconds' successive differences, which
    each step enters once (lag 1) or twice (lag 2) of many: on the logarithm of the seconds (a drive's noise
    scales with its rate, so its two levels hold noise of one size; a second at `_LOWEST` of the mean or less
    counts as that), the lag-1 correlation rho is the mean square of differences at lag 2 over that at lag 1,
    less one, each without the terms two steps make (`_trimmed`), within 0..`_MAX_RHO`; the variance of a
    difference is the median squared difference over the median of chi-square(1); and the mean of n seconds
    of an AR(1) series with that variance of differences has variance d (1 + rho) / (2 (1 - rho)^2) / n.
    Student's t on n (1 - rho) / (1 + rho) effective seconds for the wander floor, as `relative_error`. None
    with fewer than `MIN_BATCHES` seconds or a mean that is not positive."""
    seconds = list(values)
    if len(seconds) < MIN_BATCHES or mean(seconds) <= 0:
        return None
    centre = mean(seconds)
    logs = [math.log(max(v, _LOWEST * centre)) for v in seconds]
    one = sorted((b - a) ** 2 for a, b in zip(logs, logs[1:], strict=False))
    two = sorted((b - a) ** 2 for a, b in zip(logs, logs[2:], strict=False))
    lag1 = _trimmed(one, 4)
    rho = min(max(_trimmed(two, 6) / lag1 - 1, 0.0), _MAX_RHO) if lag1 > 0 else 0.0
    difference = max(_median(one) / _CHI2_1_MEDIAN, 2 * COUNT_VARIANCE / centre**2)
    n = len(logs)
    spread = difference * (1 + rho) / (2 * (1 - rho) ** 2) / n
    t = _t(max(1, int(n * (1 - rho) / (1 + rho)) - 1))
    return math.sqrt(spread + (WANDER / t) ** 2)


def _trimmed(ordered: list[float], top: int) -> float:
    """The mean of `ordered` without its `top` largest (the terms level steps make), or without its largest
    quarter where that is fewer."""
    kept = ordered[: len(ordered) - min(top, len(ordered) // 4)]
    return sum(kept) / len(kept)


def _median(ordered: list[float]) -> float:
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
