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

from iolab.analysis.invariants import interval_holds
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
    kind: str = "signed"  # what is estimated (one of KINDS): it decides the interval's method
    method: str = "t"  # how the interval was computed (`METHODS`), carried to every view and the JSON


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


# The kinds of statistic a page shows. Every one but SIGNED is a quantity that cannot be negative (a rate, a
# latency, a percentile of repeats, CPU, a ratio of two such, a spread, a duration), so every one but SIGNED
# gets the one interval method that suits a positive quantity (`estimate`): its interval never reaches below
# zero, and one spanning more than MAX_RATE_INTERVAL_SPAN is "too wide to say". A latency's t interval of
# three repeats at 61, 62 and 219 µs reached -112 µs on every page of a QD sweep; on the log scale it cannot.
RATE = "rate"
LATENCY = "latency mean"
PERCENTILE = "percentile"
CPU = "CPU"
RATIO = "ratio"
SPREAD = "spread"  # a standard deviation within a run: positive, like the rest
DURATION = "duration"
SIGNED = "signed"  # a difference or anything that may be negative: Student's t, as `summarize`
KINDS = (RATE, LATENCY, PERCENTILE, CPU, RATIO, SPREAD, DURATION, SIGNED)
POSITIVE = frozenset(KINDS) - {SIGNED}

# How an interval was computed, as the JSON and the pages name it.
LOG_NORMAL = "log-normal (Cox), 95%"
T_BOUNDED = "Student's t bounded at 0, 95%"  # a positive quantity with a zero among its values
T = "Student's t, 95%"
ONE_VALUE = "one value: no interval"
METHODS = (LOG_NORMAL, T_BOUNDED, T, ONE_VALUE)


def estimate(values: Sequence[float], kind: str) -> Stability:
    """The one estimate of a figure of this `kind`: mean, sample stddev, CoV and the interval its kind
    calls for, carried as one value to every table, headline, finding, chart and the JSON.

    A positive quantity's interval is Cox's interval for the mean of a log-normal quantity:
    exp(m + s²/2 ± t·sqrt(s²/n + s⁴/(2(n-1)))), with m and s the mean and sample stddev of the logs. Its
    noise is multiplicative, and this interval is around the arithmetic mean the table shows, not the
    geometric mean. A zero among the values (an idle CPU, a flat per-second series) has no log: Student's t,
    with its low end bounded at 0 — the mean of a quantity that cannot be negative cannot be, so cutting the
    interval there keeps every mean it could contain. A negative value means the figure is SIGNED after all:
    the plain t interval. An interval whose high end exceeds `MAX_RATE_INTERVAL_SPAN` times its low end
    (or whose low end is 0 while its high end is not) has no ends, only `ci95_too_wide`.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind of statistic {kind!r}")
    stats = replace(summarize(values), kind=kind)
    if stats.n < 2:
        return replace(stats, method=ONE_VALUE)
    if kind == SIGNED or any(v < 0 for v in values):
        return replace(stats, method=T)
    if any(v == 0 for v in values):
        assert stats.ci95_low is not None and stats.ci95_high is not None
        low, high = max(0.0, stats.ci95_low), stats.ci95_high
        return _bounded(replace(stats, method=T_BOUNDED), low, high)
    logs = [math.log(v) for v in values]
    m = math.fsum(logs) / stats.n
    var = math.fsum((x - m) ** 2 for x in logs) / (stats.n - 1)
    half = t975(stats.n - 1) * math.sqrt(var / stats.n + var**2 / (2 * (stats.n - 1)))
    if 2 * half > math.log(MAX_RATE_INTERVAL_SPAN):
        return replace(stats, ci95_low=None, ci95_high=None, ci95_too_wide=True, method=LOG_NORMAL)
    centre = m + var / 2
    return replace(stats, ci95_low=math.exp(centre - half), ci95_high=math.exp(centre + half), method=LOG_NORMAL)


def _bounded(stats: Stability, low: float, high: float) -> Stability:
    """`stats` with the interval low - high, or too wide when it spans more than MAX_RATE_INTERVAL_SPAN."""
    if high > 0 and (low <= 0 or high > MAX_RATE_INTERVAL_SPAN * low):
        return replace(stats, ci95_low=None, ci95_high=None, ci95_too_wide=True)
    return replace(stats, ci95_low=low, ci95_high=high)


def interval_problem(stats: Stability) -> str | None:
    """What is wrong with an estimate's interval against its kind's rule, or None: it contains its estimate,
    a positive quantity's stays above zero and within MAX_RATE_INTERVAL_SPAN (or is too wide, with no ends),
    and repeats of a positive quantity always have one or the other."""
    positive = stats.kind in POSITIVE
    if stats.ci95_too_wide:
        return None if stats.ci95_low is None and stats.ci95_high is None else "a too-wide interval kept its ends"
    if stats.ci95_low is None or stats.ci95_high is None:
        return f"{stats.n} repeats of a {stats.kind} have no interval" if positive and stats.n >= 2 else None
    problem = interval_holds(stats.mean, stats.ci95_low, stats.ci95_high, positive=positive)
    if problem is None and positive and stats.ci95_high > MAX_RATE_INTERVAL_SPAN * stats.ci95_low:
        problem = f"the interval spans more than {MAX_RATE_INTERVAL_SPAN:g}x and is not called too wide"
    return problem


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
