"""A group of slow drives in an array: found as a group first, then judged against the remaining drives.

Why (issue 40, fourth round): the leave-out test of `analysis.outliers` sets aside the worst drive, then the next,
up to two. A group of three or more slow drives (drives behind one slow HBA, a bad batch) keeps the rest of the
group among the "peers": they widen the peers' spread and drag their mean, and the group hides itself (a group of
25-50% of the drives at <= 60% of the others was named 43, 4 and 0% at sigma 1-10, 10-20, 20-30% where a test
told which drives are healthy names 100, 78 and 51%).

The search: on w = sign x ln(value) (larger is worse), sorted worst first, each split k = 3 .. `group_share` x n
puts the worst k drives in a candidate group G and the rest R (m = n - k drives) beside it, and weighs the
least slow drive of G against R as the leave-out test weighs one drive:

    T_k = (w_(k) - mean(R)) / sqrt(var(R) (1 + 1/m) + e^2)

e^2 the group's typical own noise (the median of its drives' squared relative standard errors): drives behind
one HBA share their seconds' noise, so the group may sit low together by its noise alone, which R's spread does
not hold. The group is the split with the largest T_k, named when that passes `cut`: the 1 - `group_alarm`
quantile of max_k T_k over arrays of n drives whose ln rates are independent normal draws (computed once per
size by simulation with a fixed seed; the statistic does not depend on their mean or sd). Choosing k on the
data is what the calibration pays for: T_3 alone of 64 clean drives is often past 3 (the third lowest against a
rest cut from below).

Each drive of the group must also be `rel_floor` off R's median: the group's own drives drag the median of all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

# The sizes the null distribution of max_k T_k is simulated at; a size between two is interpolated in ln(n), one
# past the last takes the last (the cut grows about as slowly as a normal quantile of n).
CALIBRATION_SIZES = (
    8,
    9,
    10,
    12,
    14,
    16,
    20,
    24,
    28,
    32,
    40,
    48,
    64,
    80,
    96,
    128,
    160,
    192,
    256,
    320,
    384,
    512,
    768,
    1024,
)
CALIBRATION_DRAWS = 20_000  # arrays drawn per size: a 0.3% tail holds about 60 of them
CALIBRATION_SEED = 4040
MIN_GROUP = 3  # two slow drives are the leave-out test's: it sets aside two
MIN_REST = 4  # drives left beside a group to judge it against


@dataclass(frozen=True)
class Group:
    """A group of slow drives found by `find_group`: its drives (indices, worst first), the least slow one's T
    against the rest, the cut it passed, and the rest's mean and spread (on w) it was judged against."""

    members: tuple[int, ...]
    t: float
    cut: float


def _ks(n: int, share: float) -> np.ndarray:
    """The group sizes weighed in n drives: MIN_GROUP up to `share` x n, with at least MIN_REST left."""
    return np.arange(MIN_GROUP, min(int(share * n), n - MIN_REST) + 1)


def _split_t(a: np.ndarray, ks: np.ndarray, noise2) -> np.ndarray:
    """T_k of each row of `a` (w sorted worst first) for each k of `ks`; `noise2` the group's own noise squared
    for each k (0: none), beside the rest's spread."""
    n = a.shape[1]
    s1 = np.cumsum(a[:, ::-1], axis=1)[:, ::-1]  # s1[:, k]: sum of a[:, k:]
    s2 = np.cumsum((a**2)[:, ::-1], axis=1)[:, ::-1]
    m = n - ks
    mean = s1[:, ks] / m
    var = np.maximum(s2[:, ks] - m * mean**2, 0.0) / (m - 1)
    scale = np.sqrt(var * (1 + 1 / m) + noise2)
    beyond = a[:, ks - 1] - mean
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(scale > 0, beyond / scale, np.where(beyond > 0, np.inf, 0.0))


def splits(a: np.ndarray, noise2: np.ndarray, share: float) -> tuple[np.ndarray, np.ndarray]:
    """(k, T_k) for every split of `a` (w sorted worst first) into its worst k and the rest (`_ks`); `noise2`
    each drive's own noise squared, in the same order: the group's typical one (the median over its k drives)
    counts beside the rest's spread."""
    ks = _ks(len(a), share)
    if not len(ks):
        return ks, np.empty(0)
    typical = np.asarray([float(np.median(noise2[:k])) for k in ks])
    return ks, _split_t((a - a.mean())[np.newaxis, :], ks, typical)[0]


@lru_cache(maxsize=64)
def _null_maxima(n: int, share: float) -> np.ndarray:
    """max_k T_k of CALIBRATION_DRAWS arrays of n independent standard normal drives, sorted."""
    rng = np.random.default_rng([CALIBRATION_SEED, n])
    out: list[float] = []
    chunk = max(1, 2_000_000 // n)
    for start in range(0, CALIBRATION_DRAWS, chunk):
        draws = np.sort(rng.standard_normal((min(chunk, CALIBRATION_DRAWS - start), n)), axis=1)[:, ::-1]
        out.extend(_batch_max(draws, share))
    return np.sort(np.asarray(out))


def _batch_max(a: np.ndarray, share: float) -> np.ndarray:
    """`splits`'s largest T_k for each row of `a` (rows sorted worst first), without noise."""
    return _split_t(a, _ks(a.shape[1], share), 0.0).max(axis=1)


@lru_cache(maxsize=4096)
def cut(n: int, alarm: float, share: float) -> float:
    """The value max_k T_k passes in a share `alarm` of clean arrays of n drives (module docstring)."""
    sizes = CALIBRATION_SIZES
    if n <= sizes[0] or n >= sizes[-1]:
        return _quantile(min(max(n, sizes[0]), sizes[-1]), alarm, share)
    high = next(i for i, size in enumerate(sizes) if size >= n)
    if sizes[high] == n:
        return _quantile(n, alarm, share)
    low_n, high_n = sizes[high - 1], sizes[high]
    weight = (math.log(n) - math.log(low_n)) / (math.log(high_n) - math.log(low_n))
    return (1 - weight) * _quantile(low_n, alarm, share) + weight * _quantile(high_n, alarm, share)


def _quantile(n: int, alarm: float, share: float) -> float:
    maxima = _null_maxima(n, share)
    return float(np.quantile(maxima, 1 - alarm))


def find_group(
    w: np.ndarray, order: Sequence[int], own: Sequence[float], edge: float, alarm: float, share: float
) -> Group | None:
    """The slow group of an array, if one passes (module docstring). `w`: sign x ln values (larger is worse);
    `order`: the drives to weigh, worst first; `own`: each drive's relative standard error; `edge`: how far past
    the rest's median (on w) each drive of the group must be (`rel_floor`)."""
    n = len(order)
    if alarm <= 0 or n < CALIBRATION_SIZES[0]:
        return None
    a = np.asarray([w[i] for i in order], dtype=float)
    ks, t = splits(a, np.asarray([own[i] ** 2 for i in order]), share)
    if not len(ks):
        return None
    medians = np.asarray([float(np.median(a[k:])) for k in ks])
    t = np.where(a[ks - 1] - medians >= edge, t, -np.inf)
    best = int(np.argmax(t))
    limit = cut(n, alarm, share)
    if not t[best] > limit:
        return None
    return Group(tuple(order[: int(ks[best])]), float(t[best]), limit)


def group_reach(rest: np.ndarray, noise2: float, n: int, alarm: float, share: float) -> float:
    """How far past the mean of `rest` (w of the drives not named) a group of drives at one level would have had
    to sit to be named in an array of n drives (ln units): the power `OutlierReport.group_floor` states."""
    m = len(rest)
    if alarm <= 0 or n < CALIBRATION_SIZES[0] or m < MIN_REST:
        return math.inf
    return cut(n, alarm, share) * math.sqrt(float(rest.var(ddof=1)) * (1 + 1 / m) + noise2)
