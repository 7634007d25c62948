"""How stable repeated measurements are: mean, sample stddev, CoV and a 95% CI.

Sample standard deviation (n-1), not population: with 3-5 repeats the
difference is 10-20% (pbench and IOR use n, and understate the spread).
The confidence interval of the mean uses Student's t, which matters at the
small n of benchmark repeats (t = 4.30 at n = 3 against 1.96 for large n).
"""

from __future__ import annotations

import math
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace

from iolab.analysis.student_t import t_quantile


@dataclass(frozen=True)
class Stability:
    """Summary of n repeats; spread figures are None when n < 2 (nothing to compare)."""

    n: int
    mean: float
    stddev: float | None
    cov: float | None
    ci95_low: float | None
    ci95_high: float | None
    # the repeats disagree so much that the interval spans more than MAX_RATE_INTERVAL_SPAN (its ends None)
    ci95_too_wide: bool = False


# A rate's interval whose high end is more than this many times its low end says nothing a reader can use:
# two repeats at 100 and 50 MB/s give Cox's interval 1.6 - 11,000 MB/s (t = 12.7 at one degree of freedom),
# and a repeat that nearly stalled gave an upper end of 1.2e44 bytes/s in a table. Such an interval is
# reported as too wide, with no ends, so no table, export or headline carries it as a figure. Two repeats up
# to about 45% apart, or three up to about 2x, still get theirs.
MAX_RATE_INTERVAL_SPAN = 100.0


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with `df` degrees of freedom."""
    if df < 1:
        raise ValueError("degrees of freedom must be >= 1")
    return t_quantile(0.975, df)


def summarize(values: Sequence[float]) -> Stability:
    """Mean, sample stddev, CoV (stddev/mean; None when the mean is 0) and the t-based 95% CI."""
    n = len(values)
    if n == 0:
        raise ValueError("summarize() needs at least one value")
    mean = math.fsum(values) / n
    if n == 1:
        return Stability(n=1, mean=mean, stddev=None, cov=None, ci95_low=None, ci95_high=None)
    stddev = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = t975(n - 1) * stddev / math.sqrt(n)
    cov = stddev / abs(mean) if mean != 0 else None
    return Stability(n=n, mean=mean, stddev=stddev, cov=cov, ci95_low=mean - half, ci95_high=mean + half)


def summarize_rate(values: Sequence[float]) -> Stability:
    """`summarize` for a rate (bandwidth, IOPS): its 95% interval computed on the log scale, so it stays above
    zero as a rate does (a t interval of 2 repeats, 600 and 720 MB/s, reaches -103 MB/s).

    Cox's interval for the mean of a log-normal quantity: exp(m + s²/2 ± t·sqrt(s²/n + s⁴/(2(n-1)))), with
    m and s the mean and sample stddev of the logs. Rates' noise is multiplicative, and this interval is
    around the arithmetic mean the table shows, not the geometric mean. A zero or negative value (a failed
    point) leaves the t interval: there is no log scale for it. An interval spanning more than
    `MAX_RATE_INTERVAL_SPAN` has no ends, only `ci95_too_wide`.
    """
    stats = summarize(values)
    if stats.n < 2 or any(v <= 0 for v in values):
        return stats
    logs = [math.log(v) for v in values]
    m = math.fsum(logs) / stats.n
    var = math.fsum((x - m) ** 2 for x in logs) / (stats.n - 1)
    half = t975(stats.n - 1) * math.sqrt(var / stats.n + var**2 / (2 * (stats.n - 1)))
    if 2 * half > math.log(MAX_RATE_INTERVAL_SPAN):
        return replace(stats, ci95_low=None, ci95_high=None, ci95_too_wide=True)
    centre = m + var / 2
    return replace(stats, ci95_low=math.exp(centre - half), ci95_high=math.exp(centre + half))


@dataclass(frozen=True)
class FarRepeat:
    """A repeat far from the others: its index, its value, and the others' median and range."""

    index: int
    value: float
    others_median: float
    others_low: float
    others_high: float


FAR_RATIO = 0.25  # a repeat at least 25% away from the others' median ...
FAR_SIGMAS = 4.0  # ... and beyond 4 robust standard deviations (1.4826 x MAD) of the others


def far_repeats(values: Sequence[float], ratio: float = FAR_RATIO, sigmas: float = FAR_SIGMAS) -> list[FarRepeat]:
    """Repeats that disagree with all the others (at least 3 repeats): each judged against the rest, so
    the odd one cannot pull the baseline towards itself, and only beyond both a relative and a robust
    distance: a noisy set (a COV problem) has no single odd repeat."""
    if len(values) < 3:
        return []
    if VECTOR_FROM <= len(values) <= VECTOR_UP_TO and (len(values) > LOAD_NUMPY_FROM or "numpy" in sys.modules):
        found = _far_at_once(values, ratio, sigmas)
    else:
        found = [far for i in range(len(values)) if (far := _far_one(values, i, ratio, sigmas)) is not None]
    return found if len(found) < len(values) / 2 else []


# Sets from this size are judged with numpy, every repeat against its others at once (the same figures as
# one by one: medians of the same numbers): 100 repeats took 0.8 ms one by one against 0.08 ms at once.
# Up to a size whose n x n matrix is small (2,048: 32 MiB); at 1,000 the medians dominate either way.
VECTOR_FROM = 16
VECTOR_UP_TO = 2048
# Loading numpy costs a process ~0.1 s of CPU: where nothing else has loaded it (an import of JSON outputs),
# sets of up to this many are judged one by one (about 10 ms at 300), not worth loading it for.
LOAD_NUMPY_FROM = 300


def _far_one(values: Sequence[float], i: int, ratio: float, sigmas: float) -> FarRepeat | None:
    others = sorted(v for j, v in enumerate(values) if j != i)
    median = statistics.median(others)
    mad = 1.4826 * statistics.median([abs(v - median) for v in others])
    if abs(values[i] - median) > max(ratio * abs(median), sigmas * mad):
        return FarRepeat(i, values[i], median, others[0], others[-1])
    return None


def _far_at_once(values: Sequence[float], ratio: float, sigmas: float) -> list[FarRepeat]:
    import numpy as np

    n = len(values)
    array = np.asarray(values, dtype=np.float64)
    others = np.broadcast_to(array, (n, n))[~np.eye(n, dtype=bool)].reshape(n, n - 1)  # row i: all but i
    medians = np.median(others, axis=1)
    mads = 1.4826 * np.median(np.abs(others - medians[:, None]), axis=1)
    far = np.abs(array - medians) > np.maximum(ratio * np.abs(medians), sigmas * mads)
    return [
        FarRepeat(i, values[i], float(medians[i]), float(others[i].min()), float(others[i].max()))
        for i in np.flatnonzero(far).tolist()
    ]
