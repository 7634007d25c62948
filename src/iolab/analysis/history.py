"""A metric over weeks of scheduled runs: is it healthy, and where did it change?

Rolling health (reference/analysis.md §2, NERSC practice): the coefficient of
variation over a *time* window (48 h for hourly runs) against a target (8%).
A time window, not a count of runs, so missed runs do not stretch it. A run
that failed or timed out is passed in as 0.0 throughput, as NERSC records
them: it raises the COV, which is the point -- a file system that drops runs
is not healthy. NaN means "no run" and is left out. Change points, by
default, leave zeros out (see `change_points`).

Change points (§3.1, Apache Otava's method, Matteson & James's E-divisive
with a t-test instead of the permutation test):

1. Split. Windows of `window_len` points, each starting `window_len/2` after
   the previous one (the last one ends at the series' end). In each window,
   the split that maximises the energy statistic
   Q(tau) = m n / (m + n) * (2/(mn) sum|x_i - y_j| - mean|x_i - x_k| - mean|y_j - y_k|)
   (alpha = 1) is a candidate if a t-test between the two parts gives
   p < 10 x max_pvalue (Otava's relaxed first pass); the two parts are then
   split again the same way.
2. Merge. Each candidate is re-tested between the whole segments reaching to
   its neighbouring candidates. While one has p >= max_pvalue, the weakest
   (highest p) goes; then, while one changes the mean by no more than
   `min_magnitude`, the smallest goes; the neighbours are re-tested after each
   removal.

The t-test is Student's, with the pooled variance, as Otava uses: a segment
of three points that happen to agree closely would make Welch's standard
error tiny and confirm a blip. Failed runs (zeros) inflate the pooled
variance, which only makes the test more cautious.

Cost: the split pass is O(n w) -- n/(w/2) windows of O(w^2) pairwise distances
each, all windows at once in numpy, and their t-tests at once too (one t
quantile instead of a tail probability per window; `_significant_windows`) --
and the merge pass is O(k^2) t-tests for k candidates. Nothing is O(n^2):
10,000 points take about 20 ms (bench/history_speed.py), 500 points 3 ms.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from iolab.analysis.compare import pooled_t_test

HOUR = 3600.0


# --------------------------------------------------------------------------- rolling health


@dataclass(frozen=True)
class HealthParams:
    window_s: float = 48 * HOUR
    cov_target: float = 0.08
    min_points: int = 24  # fewer runs in the window: "insufficient"


@dataclass(frozen=True)
class HealthPoint:
    """The window (time - window_s, time] ending at one run."""

    params: HealthParams
    time: float  # epoch seconds of the run
    value: float  # the run's own value (NaN if there was none)
    n: int  # runs in the window
    mean: float | None
    stddev: float | None  # sample stddev (n - 1)
    cov: float | None  # stddev / mean; None when the mean is 0 (every run in the window failed)
    state: str  # "healthy", "unhealthy" or "insufficient"


def rolling_health(
    times: Sequence[float],
    values: Sequence[float],
    window_s: float = 48 * HOUR,
    cov_target: float = 0.08,
    min_points: int = 24,
) -> list[HealthPoint]:
    """Rolling mean and COV per run, over the trailing `window_s` seconds, in time order.

    State: "insufficient" with fewer than `min_points` runs in the window;
    otherwise "healthy" when COV <= `cov_target`, else "unhealthy". A window
    whose mean is 0 (all runs failed) is unhealthy with no COV.

    Sums over each window come from prefix sums of values shifted by the
    median, so the variance does not lose its digits to cancellation when
    values are ~1e10 bytes/s and the spread is 1%.
    """
    import numpy as np

    params = HealthParams(window_s=window_s, cov_target=cov_target, min_points=min_points)
    if window_s <= 0 or min_points < 2:
        raise ValueError("window_s must be > 0 and min_points >= 2")
    t = np.asarray(times, dtype=float)
    x = np.asarray(values, dtype=float)
    if t.shape != x.shape or t.ndim != 1:
        raise ValueError("times and values must be one-dimensional and of equal length")
    if len(t) == 0:
        return []
    if np.isnan(t).any():
        raise ValueError("times must not be NaN")
    order = np.argsort(t, kind="stable")
    t, x = t[order], x[order]
    valid = ~np.isnan(x)
    shift = float(np.median(x[valid])) if valid.any() else 0.0
    centred = np.where(valid, x - shift, 0.0)
    zero = np.zeros(1)
    count = np.concatenate([zero, np.cumsum(valid)])
    total = np.concatenate([zero, np.cumsum(centred)])
    squares = np.concatenate([zero, np.cumsum(centred * centred)])
    start = np.searchsorted(t, t - window_s, side="right")
    # Ties in time: a run's window includes every run at the same instant.
    end = np.searchsorted(t, t, side="right")
    n = count[end] - count[start]
    s1 = total[end] - total[start]
    s2 = squares[end] - squares[start]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_centred = s1 / n
        var = np.maximum((s2 - s1 * mean_centred) / (n - 1), 0.0)
    points = []
    for i in range(len(t)):
        k = int(n[i])
        if k == 0:
            points.append(HealthPoint(params, float(t[i]), float(x[i]), 0, None, None, None, "insufficient"))
            continue
        mean = float(mean_centred[i]) + shift
        stddev = math.sqrt(float(var[i])) if k >= 2 else None
        cov = stddev / abs(mean) if stddev is not None and mean != 0.0 else None
        if k < min_points:
            state = "insufficient"
        elif cov is None or cov > cov_target:
            state = "unhealthy"
        else:
            state = "healthy"
        points.append(HealthPoint(params, float(t[i]), float(x[i]), k, mean, stddev, cov, state))
    return points


# --------------------------------------------------------------------------- change points


@dataclass(frozen=True)
class ChangePointParams:
    window_len: int = 30  # points per E-divisive window (30 for hourly runs, 20 for daily)
    max_pvalue: float = 0.001  # use 0.01 for series shorter than ~100 points
    min_magnitude: float = 0.05  # relative change of the mean a change point must exceed
    # Fewest points on either side of a split. A change is only reported once it has lasted this many runs:
    # with 3, a 10,000-run hourly history shows about one 3-run noise blip per 10,000 runs passing p < 0.001
    # (the test is not corrected for the scan over every position); with 5, about one per 100,000.
    min_size: int = 5
    skip_zeros: bool = True  # failed runs (0.0) say nothing about the level: leave them out like NaN
    # An outlier run (`outlier_runs`) is this many robust standard deviations of run-to-run noise away from the
    # median of its `outlier_neighbours` runs on each side, on both sides. 5 was chosen on half of a simulated
    # corpus (bench/simulated_histories.py): the smallest cut with under 1 false outlier run per 100,000 runs.
    outlier_sigmas: float = 5.0
    outlier_neighbours: int = 3


@dataclass(frozen=True)
class ChangePoint:
    """The first run of a new level; `index` counts positions in the series given (NaN included)."""

    params: ChangePointParams
    index: int
    mean_before: float
    mean_after: float
    relative_change: float | None  # mean_after / mean_before - 1; None when mean_before is 0
    magnitude: float  # max(|after/before - 1|, |before/after - 1|), Otava's measure
    pvalue: float  # Student's t between the segments on either side
    n_before: int
    n_after: int


def _best_energy_splits(windows, min_size: int):  # (m, L) array -> (m,) split positions, (m,) Q
    """For each row, the split tau (min_size <= tau <= L - min_size) maximising E-divisive's Q."""
    import numpy as np

    m, length = windows.shape
    distance = np.abs(windows[:, :, None] - windows[:, None, :])
    prefix = np.zeros((m, length + 1, length + 1))
    prefix[:, 1:, 1:] = distance.cumsum(axis=1).cumsum(axis=2)
    tau = np.arange(min_size, length - min_size + 1)
    left = prefix[:, tau, tau]  # ordered pairs within x[:tau]
    band = prefix[:, tau, length]  # rows < tau, all columns
    total = prefix[:, length, length][:, None]
    cross = band - left
    right = total - 2.0 * band + left
    a, b = tau.astype(float), (length - tau).astype(float)
    energy = 2.0 * cross / (a * b) - left / (a * (a - 1.0)) - right / (b * (b - 1.0))
    q = a * b / (a + b) * energy
    best = np.argmax(q, axis=1)
    return tau[best], q[np.arange(m), best]


def _segment_test(x, lo: int, split: int, hi: int):  # -> (pvalue, mean_before, mean_after)
    """Student's t between x[lo:split] and x[split:hi]."""
    before, after = x[lo:split], x[split:hi]
    mb, ma = float(before.mean()), float(after.mean())
    test = pooled_t_test(mb, float(before.var(ddof=1)), len(before), ma, float(after.var(ddof=1)), len(after))
    return test.p, mb, ma


def _magnitude(before: float, after: float) -> float:
    if before == after:
        return 0.0
    if before == 0.0 or after == 0.0:
        return math.inf
    return max(abs(after / before - 1.0), abs(before / after - 1.0))


# Whether the split pass tests its windows' splits all at once (`_significant_windows`); False tests them
# one by one with `_segment_test`, as before: the tests compare the two.
_SCREEN = True
# A window whose |t| is this close (relatively) to the critical value, or whose standard error is this
# small against its values, is tested one by one: there the last bits of a sum could decide.
_MARGIN = 1e-6
_FLAT = 1e-9


def _significant_windows(rows, splits, relaxed: float):  # (m, L), (m,) -> (m,) bool
    """For each window, whether Student's t between its two parts at its split gives p < relaxed: the
    decision `_segment_test` makes, for every window at once.

    p < relaxed is |t| above the (1 - relaxed/2) quantile with the windows' degrees of freedom, so one
    quantile replaces a tail probability per window. The means and variances are numpy's over masked rows,
    equal to the slices' to within a few roundings; a window near the critical value, or nearly flat
    (where the slices' standard error may be exactly 0), is decided by `_segment_test` itself, so every
    decision is the one-by-one decision.
    """
    import numpy as np

    from iolab.analysis.student_t import t_quantile

    m, length = rows.shape
    before = np.arange(length)[None, :] < splits[:, None]
    nb, na = splits.astype(float), (length - splits).astype(float)
    mb = np.where(before, rows, 0.0).sum(axis=1) / nb
    ma = np.where(before, 0.0, rows).sum(axis=1) / na
    vb = (np.where(before, rows - mb[:, None], 0.0) ** 2).sum(axis=1) / (nb - 1.0)
    va = (np.where(before, 0.0, rows - ma[:, None]) ** 2).sum(axis=1) / (na - 1.0)
    df = float(length - 2)
    se = np.sqrt(((nb - 1.0) * vb + (na - 1.0) * va) / df * (1.0 / nb + 1.0 / na))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(ma - mb) / se
    critical = t_quantile(1.0 - relaxed / 2.0, df)
    unsure = ~np.isfinite(t) | (se <= _FLAT * np.abs(rows).max(axis=1)) | (np.abs(t - critical) <= _MARGIN * critical)
    return t > critical, unsure


def _candidates(x, params: ChangePointParams) -> list[int]:
    """Split pass: significant E-divisive splits in sliding windows, recursively within each window."""
    import numpy as np

    n, w, size = len(x), params.window_len, params.min_size
    relaxed = params.max_pvalue * 10.0 if params.max_pvalue < 0.05 else params.max_pvalue
    w = min(w, n)
    starts = list(range(0, n - w + 1, max(1, w // 2)))
    if starts[-1] != n - w:
        starts.append(n - w)
    rows = np.stack([x[s : s + w] for s in starts])
    splits, _ = _best_energy_splits(rows, size)
    windows = [(s, s + int(k), s + w) for s, k in zip(starts, splits, strict=True)]
    # Each window with whether it is already known significant; those known not to be are dropped.
    pending = [(window, False) for window in windows]
    if _SCREEN and 0.0 < relaxed < 1.0:
        significant, unsure = _significant_windows(rows, splits, relaxed)
        pending = [
            (window, not ask)
            for window, keep, ask in zip(windows, significant.tolist(), unsure.tolist(), strict=True)
            if keep or ask
        ]
    found: set[int] = set()
    while pending:
        (lo, split, hi), decided = pending.pop()
        if not decided and _segment_test(x, lo, split, hi)[0] >= relaxed:
            continue
        found.add(split)
        for a, b in ((lo, split), (split, hi)):
            if b - a >= 2 * size:
                (k,), _ = _best_energy_splits(x[None, a:b], size)
                pending.append(((a, a + int(k), b), False))
    return sorted(found)


def _refine(x, found: list[int], params: ChangePointParams) -> list[int]:
    """Move each change point to the least-squares split of the segment between its neighbours.

    E-divisive placed it using one window of points; the whole segments on
    either side hold many more, and for a shift in the mean the split that
    minimises the within-segment sum of squares is the maximum-likelihood
    one. The search stays within half a window of the first placement, so a
    point cannot wander to another change.
    """
    import numpy as np

    refined: list[int] = []
    for i, split in enumerate(found):
        lo = refined[-1] if refined else 0
        hi = found[i + 1] if i + 1 < len(found) else len(x)
        first = max(lo + params.min_size, split - params.window_len // 2)
        last = min(hi - params.min_size, split + params.window_len // 2)
        if last <= first:
            refined.append(split)
            continue
        seg = x[lo:hi] - x[lo:hi].mean()
        csum = np.cumsum(seg)
        k = np.arange(first, last + 1) - lo
        # Between-segment sum of squares of a split after k points: S_k^2 / k + S_k^2 / (L - k) (S_L = 0).
        gain = csum[k - 1] ** 2 * (1.0 / k + 1.0 / (len(seg) - k))
        refined.append(lo + int(k[np.argmax(gain)]))
    return refined


def _usable(values: Sequence[float], params: ChangePointParams):  # -> (positions, their values)
    """Positions of the runs change points look at (NaN is no run; zeros are failures unless asked for)."""
    import numpy as np

    raw = np.asarray(values, dtype=float)
    usable = ~np.isnan(raw) & ((raw != 0.0) if params.skip_zeros else True)
    positions = np.flatnonzero(usable)
    return positions, raw[positions]


def _lone_runs(x, params: ChangePointParams):  # (n,) -> (n,) bool
    """Which values stand apart from the runs on both sides of them: an outlier run, not a new level.

    One slow run in a history is a contended night or a failed component that came back; left in, it
    inflates the variance of the segment holding it so much that the t-test no longer confirms a real
    step next to it (issue 33: [216, 211, 215, 214, 127, 217, 217, 175, ...] hid a -20% step). A run is
    an outlier when it is more than `outlier_sigmas` robust standard deviations and more than
    `min_magnitude` away from the median of the `outlier_neighbours` runs before it and, as well, from the
    median of those after it. A step matches one side, so its first run is never one; two bad runs in a
    row are still each outvoted by the median of three. The noise is 1.4826 x the MAD of the run-to-run
    differences over sqrt(2): differences cancel levels and drifts, and a median ignores the few large
    differences that steps and outliers make.
    """
    import numpy as np

    n, k = len(x), params.outlier_neighbours
    if n < 5:
        return np.zeros(n, dtype=bool)
    diffs = np.diff(x)
    sigma = 1.4826 * float(np.median(np.abs(diffs - np.median(diffs)))) / math.sqrt(2.0)
    # Runs with fewer than two neighbours on a side are never outliers: the newest may start a new level.
    padded = np.concatenate([np.full(k, np.nan), x, np.full(k, np.nan)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, k)  # windows[j] = x[j - k : j]
    inner = x[2 : n - 2]
    left = np.nanmedian(windows[2 : n - 2], axis=1)
    right = np.nanmedian(windows[k + 3 : k + n - 1], axis=1)
    lone = np.ones(len(inner), dtype=bool)
    for side in (left, right):
        with np.errstate(divide="ignore", invalid="ignore"):
            relative = np.maximum(np.abs(inner / side - 1.0), np.abs(side / inner - 1.0))
        lone &= (np.abs(inner - side) > params.outlier_sigmas * sigma) & (relative > params.min_magnitude)
    return np.concatenate([np.zeros(2, dtype=bool), lone, np.zeros(2, dtype=bool)])


def outlier_runs(values: Sequence[float], params: ChangePointParams | None = None) -> list[int]:
    """Positions in `values` of the lone outlier runs `change_points` leaves out (see `_lone_runs`)."""
    import numpy as np

    params = params or ChangePointParams()
    positions, x = _usable(values, params)
    return [int(p) for p in positions[np.flatnonzero(_lone_runs(x, params))]]


def change_points(values: Sequence[float], params: ChangePointParams | None = None) -> list[ChangePoint]:
    """Lasting changes of level in a series of runs (oldest first), each confirmed by a t-test.

    NaN values (no run) are left out of the analysis; indices still refer to
    positions in `values`. Zeros (failed runs) are left out too unless
    `params.skip_zeros` is False: one zero among hundreds of runs is an
    outlier so far from the level that the points around it would pass for
    a short segment of their own; failures are what rolling health counts.
    With `skip_zeros=False` a long outage shows as a level of 0. Lone
    outlier runs (`outlier_runs`) are left out as well, so one slow run
    cannot hide a step beside it. Fewer than 2 x min_size values give no
    change points.
    """
    import numpy as np

    params = params or ChangePointParams()
    if params.min_size < 2 or params.window_len < 2 * params.min_size:
        raise ValueError("min_size must be >= 2 and window_len >= 2 x min_size")
    positions, x = _usable(values, params)
    keep = ~_lone_runs(x, params)
    positions, x = positions[keep], x[keep]
    n = len(x)
    if n < 2 * params.min_size:
        return []
    # Shift by the median for the distance sums: same statistic, fewer lost digits.
    found = _candidates(x - np.median(x), params)

    def test(i: int) -> tuple[float, float, float, int, int]:
        lo = found[i - 1] if i > 0 else 0
        hi = found[i + 1] if i + 1 < len(found) else n
        if found[i] - lo < 2 or hi - found[i] < 2:
            return 1.0, math.nan, math.nan, found[i] - lo, hi - found[i]
        p, mb, ma = _segment_test(x, lo, found[i], hi)
        return p, mb, ma, found[i] - lo, hi - found[i]

    def merge() -> list[tuple[float, float, float, int, int]]:
        """Drop the weakest point until every one left is significant and large enough; their statistics."""
        stats = [test(i) for i in range(len(found))]
        while found:
            worst = max(range(len(found)), key=lambda i: stats[i][0])
            if stats[worst][0] < params.max_pvalue:
                magnitudes = [_magnitude(s[1], s[2]) for s in stats]
                worst = min(range(len(found)), key=lambda i: magnitudes[i])
                if magnitudes[worst] > params.min_magnitude:
                    break
            del found[worst], stats[worst]
            for i in (worst - 1, worst):
                if 0 <= i < len(found):
                    stats[i] = test(i)
        return stats

    merge()
    found[:] = _refine(x, found, params)
    stats = merge()  # a moved point is re-tested, so what is reported always passed
    out = []
    for split, (p, mb, ma, nb, na) in zip(found, stats, strict=True):
        out.append(
            ChangePoint(
                params=params,
                index=int(positions[split]),
                mean_before=mb,
                mean_after=ma,
                relative_change=None if mb == 0.0 else ma / mb - 1.0,
                magnitude=_magnitude(mb, ma),
                pvalue=p,
                n_before=nb,
                n_after=na,
            )
        )
    return out
