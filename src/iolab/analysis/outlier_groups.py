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
not hold. The group is the split whose T_k is furthest past its own cut, named when it passes it.

The cuts (issue 40, fifth round): a clean array's largest split depends on the shape of its peers' spread, not only
on its size. Normal ln rates (lognormal peers) put their largest T_k at the few worst drives; flat peers (a uniform
log spread, no middle to the spread) split at their median read as two levels: at the cut of the normal null alone,
clean arrays of 8-32 drives spread uniformly passed it 1-2.3% of the time at a nominal 0.3%. So the null covers both
shapes (`SHAPES`): for each split the ratio r_k of the flat shape's 0.99 quantile of T_k to the normal's (at least
1), and the cut of split k is c r_k^g, g the smallest tilt (`TILTS`) at which flat peers pass the largest tilted
split no more often than normal ones, c the higher of the two shapes' 1 - `alarm` quantiles of max_k T_k / r_k^g
(arrays of n independent draws, simulated once per size with a fixed seed; T_k does not depend on the draws' mean or
sd). A clean array of either shape then passes in at most a share `alarm` (bench/outlier_clean.py measures a flat-
topped mixture between them too): the larger splits, where flat peers read as two levels, pay for it: the three
worst drives' cut is no higher than the normal null's alone from 12 drives on (lower at 12-28 drives, whose larger
splits take the flat shape's share), higher in 8-10 drives (13.5 against 9.7 at 8), and g is 0 from 56 drives on,
where flat peers do not pass the normal null's cut. Choosing k on the data is what the calibration pays for: T_3
alone of 64 clean drives is often past 3 (the third lowest against a rest cut from below). Peers spread in two humps
(two drive models) are two levels, which no null of one population covers:
`analysis.outliers.find_outliers_by_class` judges each model apart where the run knows them.

Each drive of the group must also be `rel_floor` off R's median: the group's own drives drag the median of all.

And the group's least slow drive must sit nearer the group than the rest (`nearer_group`: w_(k) at least halfway,
`OutlierParams.group_nearer`, from mean(R) to the median of the k - 1 worse drives). Why (issue 40, fourteenth round, twins): behind one or two
far slow drives, the split k = 3 weighs the lowest healthy drive, an untruncated draw of the n - 2 healthy ones,
at the cut of the third worst of a clean array (a truncated draw, 3.4-4.6 at 16-32 drives): it passed in some 1%
of twins with two slow drives at sigma 1-10%, and named a healthy drive with them, where the leave-out steps name
the two. A slow group sits at one level (a slow HBA shares its bandwidth out evenly); a healthy drive behind two
far ones sits nearer its peers than them. Holding the split at the null of two far slow drives instead (the
(k - 2)-th worst of n - 2 clean drives, a cut of 4.9-7.2) cost HBA groups at <= 60% 1-9 points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from iolab.analysis.medians import median_of

# The sizes the null distribution of the split statistics is simulated at: every size up to 128 (where the flat
# shape's tilt changes most with the size, `_calibrated`), then a ladder; a size between two is interpolated in ln(n), one
# past the last takes the last (the cut grows about as slowly as a normal quantile of n).
CALIBRATION_SIZES = (*range(8, 129), 160, 192, 256, 320, 384, 512, 768, 1024)
CALIBRATION_DRAWS = 20_000  # arrays drawn per size and shape: a 0.3% tail holds about 60 of them
SCALE_DRAWS = 5_000  # arrays per size and shape for each split's own 0.99 quantile (the tilt's shape)
CALIBRATION_SEED = 4040
# The peers' shapes the null covers (ln rates): normal (lognormal peers, reference/analysis.md section 5.4) and
# uniform, the flattest unimodal spread. With no middle to their spread, flat peers split at their median read as
# two levels: at the normal null's cut, clean arrays of 8-32 drives spread uniformly alarmed 1-2.3% at a nominal
# 0.3% (bench/simulated_arrays.py: 0.95% of noise-free arrays of 4-32 drives).
SHAPES = ("normal", "uniform")
# How far the cuts of the larger splits are tilted towards the flat shape's (each split's cut times its ratio of
# the two shapes' 0.99 quantiles to this power): the smallest at which flat peers alarm no more than normal ones.
TILTS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
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


def _rest_sums(a: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row of `a` (sorted worst first) and each count of `m`: the sum and the sum of squares of the row's
    last m values (the rest beside its n - m worst), each (rows, len(m)).

    The values are added best first, as np.cumsum along each row adds them (the same additions in the same
    order: the same bits), but each step for every row at once, one vectorised add of a column, where a running
    sum along each row is a short loop per row: simulating the null was mostly these sums."""
    best_first = np.ascontiguousarray(a[:, ::-1].T)
    total, squares = best_first[0].copy(), best_first[0] ** 2
    sums, sums2 = np.empty((len(m), a.shape[0])), np.empty((len(m), a.shape[0]))
    slot = {int(count) - 1: i for i, count in enumerate(m)}
    for j in range(max(slot) + 1):
        if j:
            total += best_first[j]
            squares += best_first[j] ** 2
        if j in slot:
            sums[slot[j]], sums2[slot[j]] = total, squares
    return sums.T, sums2.T


def _split_t(a: np.ndarray, ks: np.ndarray, noise2) -> np.ndarray:
    """T_k of each row of `a` (w sorted worst first) for each k of `ks`; `noise2` the group's own noise squared
    for each k (0: none), beside the rest's spread."""
    m = a.shape[1] - ks
    s1, s2 = _rest_sums(a, m)
    mean = s1 / m
    var = np.maximum(s2 - m * mean**2, 0.0) / (m - 1)
    scale = np.sqrt(var * (1 + 1 / m) + noise2)
    beyond = a[:, ks - 1] - mean
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(scale > 0, beyond / scale, np.where(beyond > 0, np.inf, 0.0))


def nearer_group(a: np.ndarray, ks: np.ndarray, nearer: float) -> np.ndarray:
    """For each row of `a` (w sorted worst first) and each k of `ks`: whether the k-th worst sits at least a share
    `nearer` of the way from the mean of the drives after it to the median of the k - 1 before it (module
    docstring; 0: any drive past the rest's mean), (rows, len(ks))."""
    n = a.shape[1]
    rest = (a.sum(axis=1, keepdims=True) - np.cumsum(a, axis=1)[:, ks - 1]) / (n - ks)
    worse = (a[:, (ks - 2) // 2] + a[:, (ks - 1) // 2]) / 2  # the median of the sorted k - 1 worse
    return np.asarray(a[:, ks - 1] - rest >= nearer * (worse - rest), dtype=bool)


def passes(a: np.ndarray, ks: np.ndarray, limits: np.ndarray, nearer: float) -> np.ndarray:
    """Whether any split of each row of `a` (w sorted worst first, no drive's own noise) passes the group search:
    T_k past its cut and its k-th worst drive `nearer` the group (`analysis.outlier_null`'s union)."""
    return np.asarray(((_split_t(a, ks, 0.0) > limits) & nearer_group(a, ks, nearer)).any(axis=1), dtype=bool)


def splits(a: np.ndarray, noise2: np.ndarray, share: float) -> tuple[np.ndarray, np.ndarray]:
    """(k, T_k) for every split of `a` (w sorted worst first) into its worst k and the rest (`_ks`); `noise2`
    each drive's own noise squared, in the same order: the group's typical one (the median over its k drives)
    counts beside the rest's spread."""
    ks = _ks(len(a), share)
    if not len(ks):
        return ks, np.empty(0)
    noise = noise2.tolist()
    typical = np.asarray([median_of(noise[:k]) for k in ks])
    return ks, _split_t((a - a.mean())[np.newaxis, :], ks, typical)[0]


def _draws(rng: np.random.Generator, shape: str, rows: int, n: int) -> np.ndarray:
    """`rows` clean arrays of n drives of one shape (unit scale; the statistic does not depend on it), each sorted
    worst first."""
    a = rng.standard_normal((rows, n)) if shape == "normal" else rng.uniform(-1.0, 1.0, (rows, n))
    a.sort(axis=1)  # in place: no copy of the draws
    return a[:, ::-1]


@lru_cache(maxsize=256)
def _calibration(n: int, share: float) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """For n drives: each split's ratio of the other shapes' 0.99 quantile of T_k to the normal's (at least 1), and
    for each shape, the largest tilted split `max_k T_k / ratio_k ** tilt` of CALIBRATION_DRAWS clean arrays at
    each of TILTS (a column each, sorted)."""
    ks = _ks(n, share)
    quantiles = {}
    for i, shape in enumerate(SHAPES):
        rng = np.random.default_rng([CALIBRATION_SEED, n, i, 1])
        quantiles[shape] = np.quantile(_split_t(_draws(rng, shape, SCALE_DRAWS, n), ks, 0.0), 0.99, axis=0)
    ratio = np.maximum(1.0, np.max([quantiles[shape] / quantiles[SHAPES[0]] for shape in SHAPES], axis=0))
    divisors = ratio[np.newaxis, :] ** np.asarray(TILTS)[:, np.newaxis]  # tilts x splits
    maxima = {}
    for i, shape in enumerate(SHAPES):
        rng = np.random.default_rng([CALIBRATION_SEED, n, i])
        chunk, out = max(1, 2_000_000 // n), []
        for start in range(0, CALIBRATION_DRAWS, chunk):
            t = _split_t(_draws(rng, shape, min(chunk, CALIBRATION_DRAWS - start), n), ks, 0.0)
            out.append((t[:, np.newaxis, :] / divisors[np.newaxis]).max(axis=2))
        maxima[shape] = np.sort(np.concatenate(out), axis=0)
    return ratio, maxima


def _calibrated(n: int, alarm: float, share: float) -> np.ndarray:
    """Each split's cut at a calibrated size n: c x ratio_k ** tilt, the tilt the smallest of TILTS at which the
    flat shape's 1 - `alarm` quantile of the largest tilted split is no higher than the normal's (else the
    largest), c the higher of the two."""
    ratio, maxima = _calibration(n, share)
    for column, tilt in enumerate(TILTS):
        normal, *others = (float(np.quantile(maxima[shape][:, column], 1 - alarm)) for shape in SHAPES)
        if max(others, default=normal) <= normal or tilt == TILTS[-1]:
            return max([normal, *others]) * ratio**tilt
    raise AssertionError("unreachable: the last tilt returns")


@lru_cache(maxsize=4096)
def cuts(n: int, alarm: float, share: float) -> np.ndarray:
    """The cut of each split k = MIN_GROUP .. (`_ks`) of n drives: T_k past its cut in a share `alarm` of clean
    arrays, normal or flat (module docstring). Between two calibrated sizes, each one's cuts are read at the same
    share k / n and weighed in ln(n)."""
    sizes = CALIBRATION_SIZES
    clamped = min(max(n, sizes[0]), sizes[-1])
    ks = _ks(n, share)
    if clamped in sizes:
        return _at_share(clamped, alarm, share, ks / n)
    high = next(i for i, size in enumerate(sizes) if size >= n)
    low_n, high_n = sizes[high - 1], sizes[high]
    weight = (math.log(n) - math.log(low_n)) / (math.log(high_n) - math.log(low_n))
    return (1 - weight) * _at_share(low_n, alarm, share, ks / n) + weight * _at_share(high_n, alarm, share, ks / n)


def _at_share(size: int, alarm: float, share: float, shares: np.ndarray) -> np.ndarray:
    """The calibrated size's cuts read at the splits' shares of the drives (exactly its own where it is n)."""
    own = _calibrated(size, alarm, share)
    return np.interp(shares, _ks(size, share) / size, own)


def cut(n: int, alarm: float, share: float) -> float:
    """The cut of the smallest group (MIN_GROUP drives) in n drives."""
    return float(cuts(n, alarm, share)[0])


def find_group(
    w: np.ndarray, order: Sequence[int], own: Sequence[float], edge: float, alarm: float, share: float, nearer: float
) -> Group | None:
    """The slow group of an array, if one passes (module docstring). `w`: sign x ln values (larger is worse);
    `order`: the drives to weigh, worst first; `own`: each drive's relative standard error; `edge`: how far past
    the rest's median (on w) each drive of the group must be (`rel_floor`); `nearer`: how far of the way to the
    group's other drives its least slow one must sit (`nearer_group`)."""
    n = len(order)
    if alarm <= 0 or n < CALIBRATION_SIZES[0]:
        return None
    a = np.asarray([w[i] for i in order], dtype=float)
    ks, t = splits(a, np.asarray([own[i] ** 2 for i in order]), share)
    if not len(ks):
        return None
    values = a.tolist()
    medians = np.asarray([median_of(values[k:]) for k in ks])
    t = np.where((a[ks - 1] - medians >= edge) & nearer_group(a[np.newaxis, :], ks, nearer)[0], t, -np.inf)
    limits = cuts(n, alarm, share)
    best = int(np.argmax(t / limits))
    if not t[best] > limits[best]:
        return None
    return Group(tuple(order[: int(ks[best])]), float(t[best]), float(limits[best]))


def group_reach(rest: np.ndarray, noise2: float, n: int, alarm: float, share: float) -> float:
    """How far past the mean of `rest` (w of the drives not named) a group of drives at one level would have had
    to sit to be named in an array of n drives (ln units): the power `OutlierReport.group_floor` states."""
    m = len(rest)
    if alarm <= 0 or n < CALIBRATION_SIZES[0] or m < MIN_REST:
        return math.inf
    return cut(n, alarm, share) * math.sqrt(float(rest.var(ddof=1)) * (1 + 1 / m) + noise2)
