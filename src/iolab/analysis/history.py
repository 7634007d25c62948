"""A metric over weeks of scheduled runs: is it healthy, and where did it change?

Rolling health (reference/analysis.md §2, NERSC practice): the coefficient of
variation over a *time* window (48 h for hourly runs) against a target (8%).
A time window, not a count of runs, so missed runs do not stretch it. A run
that failed or timed out is passed in as 0.0 throughput, as NERSC records
them: it raises the COV, which is the point -- a file system that drops runs
is not healthy. NaN means "no run" and is left out. Change points, by
default, leave zeros out (see `change_points`).

Change points (§3.1, Apache Otava's method, Matteson & James's E-divisive,
judged against the history's own noise, §5.4):

0. Outlier runs (`_lone_runs`: one run, or a burst of up to three, far off
   the runs on both sides) are set aside and named, and runs off both sides
   by more than `_BURST_SIGMAS` sds (a burst too shallow to name, `_bursts`)
   are set aside unnamed; the rest is taken
   relative to its median; a daily (and weekly) profile is removed once the
   runs span three cycles (fitted again away from the steps where two lie
   within a period: `history_noise.crowded`); the noise's robust sd and the correlation of
   successive runs are measured (`analysis.history_noise`), first with the
   differences that straddle a step of a first, most sensitive look left out;
   runs further than `clip_sigmas` sds from their local level are pulled in.
1. Split. Windows of `window_len` points, each starting `window_len/2` after
   the previous one (the last one ends at the series' end). In each window,
   the split that maximises the energy statistic
   Q(tau) = m n / (m + n) * (2/(mn) sum|x_i - y_j| - mean|x_i - x_k| - mean|y_j - y_k|)
   (alpha = 1) is a candidate if the test between the two parts gives
   p < 10 x max_pvalue (Otava's relaxed first pass); the two parts are then
   split again the same way.
2. Merge. Each candidate is re-tested between the whole segments reaching to
   its neighbouring candidates. While one has p >= max_pvalue, the weakest
   (highest p) goes; then, while one changes the level by no more than
   `min_magnitude`, the smallest goes; the neighbours are re-tested after each
   removal.
3. Place. Each change point left is tested at its least-squares split and reported where the runs within
   3 of it hold the most of the split's likelihood under the history's AR(1) noise (`PLACE_GLS`), moved (the
   least it must) only where some place's runs hold 5% more of it than the split's own (`_place`): around a
   small step the likelihood is flat and its peak is where the noise put it.

The test is a normal z of the difference of the two segments' means over
the larger of two standard errors: the history's long-run sd (its robust sd
times sqrt((1 + phi) / (1 - phi)), the effective sample size of AR(1)
noise, phi taken one sampling sd above its reading: `NoiseModel.phi_upper`),
and the two segments' own pooled sd times the same factor (a stretch
noisier than the rest is judged by its own spread). A short dip or bump
that comes back is judged without its three runs farthest off (`_brief`). A t-test of the segments
alone took correlated runs for independent ones and a daily cycle for steps:
on hourly monitoring it named a false change point every 800 runs.

Cost: the split pass is O(n w) -- n/(w/2) windows of O(w^2) pairwise distances
each, all windows at once in numpy, and their tests at once too (one normal
quantile instead of a tail probability per window; `_significant_windows`) --
and the merge pass is O(k^2) tests for k candidates; the cycles, the noise
and the outlier runs are O(n) rolling medians and one least-squares fit.
Nothing is O(n^2) (bench/history_speed.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

from iolab.analysis.history_noise import (
    MAD_TO_SD,
    NoiseModel,
    crowded,
    gls_split_gains,
    mad_sd,
    noise_scale,
    remove_cycles,
    rolling_median,
    split_gains,
)

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
    # The p a change point must reach, its test judging the step against the history's own noise
    # (`analysis.history_noise`). Chosen on the tuning half of bench/simulated_histories.py: the largest with at
    # most 0.1 false change points per 1,000 runs over COV 2-10%, daily and weekly cycles, AR(1) phi <= 0.7 and
    # t4 noise. One p for every length: the test is not corrected for the scan over every position, and the
    # false change points per run, not per history, are what a user meets.
    max_pvalue: float = 1e-4
    min_magnitude: float = 0.05  # relative change of the level a change point must exceed
    # Fewest runs on either side of a split. A change is only reported once it has lasted this many runs.
    min_size: int = 5
    skip_zeros: bool = True  # failed runs (0.0) say nothing about the level: leave them out like NaN
    # An outlier run (`outlier_runs`) is this many robust sds of its own deviation away from the median of
    # its `outlier_neighbours` runs on each side, on both sides, and `outlier_floor` away in relative terms,
    # the sds widened by the history's tail factor (`tail_factor`). The cut and how the tail factor is read
    # (margin, power) were chosen together on the tuning half of bench/simulated_histories.py's
    # outlier corpus (bench/history_outlier_corpus.py): the rule finding the most planted runs under Gaussian
    # noise whose unplanted runs under t4 noise stay at most 1 per 10,000 at the upper end of a 90% interval
    # in every length bin (30-199, 200-1,999, 2,000+ runs) and every phi bin (0, 0-0.35, 0.35-0.7, 0.7-0.8,
    # 0.8-0.9), not over their mixture (a mixture let the short bin sit at 1.24 per 10,000, and independent
    # runs at 1.08 while correlated ones pulled the average under 1).
    outlier_sigmas: float = 6.5
    # The tail factor the cut is widened by is read at its upper end, (1 + this / sqrt(m)) times the one read
    # from m runs (`tail_factor`); 0 reads it as measured.
    outlier_tail_margin: float = 8.0
    # The tail factor is extrapolated from the 99th percentile out to the cut as this power of its reading. A
    # 99th percentile 1.3 times a Gaussian's lies further out still at 1 in 10,000 in independent t4 runs (the
    # cut that meets 1 per 10,000 was 2.30 times the reading at phi 0); correlated runs average their shocks,
    # so the median of the next runs follows one and the reading itself falls with phi (1.27 at phi 0, 0.92
    # at 0.7-0.8 in the corpus): a power of the reading is a phi-dependent extrapolation already (a slope on
    # the history's own phi besides was offered to the tuning and gained nothing). 1: the reading as it is.
    outlier_tail_power: float = 2.0
    outlier_neighbours: int = 5  # a median of 5 outvotes a burst of up to 3 bad runs, which stays outliers
    outlier_floor: float = 0.10  # a run 5% off its neighbours is not worth a look, however quiet they are
    # Runs further than this many sds from their local level are pulled in to that distance before the test:
    # a burst of three bad runs too shallow to be named an outlier (a 35% dip at COV 8%) must not pass for a
    # level of its own, nor one heavy-tailed run make a segment of five look like one.
    clip_sigmas: float = 3.0


@dataclass(frozen=True)
class ChangePoint:
    """The first run of a new level; `index` counts positions in the series given (NaN included)."""

    params: ChangePointParams
    index: int
    mean_before: float
    mean_after: float
    relative_change: float | None  # mean_after / mean_before - 1; None when mean_before is 0
    magnitude: float  # max(|after/before - 1|, |before/after - 1|), Otava's measure
    pvalue: float  # the step against the history's noise (cycles out, correlation and tails accounted for)
    n_before: int
    n_after: int
    # The share of its place's likelihood within PLACE_RUNS runs of `index` (`_place`; 1 where it was not moved),
    # and the shortest span of runs (first, last; positions in the series given) holding PLACE_CREDIBLE of it.
    place_mass: float = 1.0
    span: tuple[int, int] | None = None


# A step is called found with this probability when it is `detectable_step`'s size.
POWER_Z = 1.2816  # the 90% normal quantile


@dataclass(frozen=True)
class HistoryAnalysis:
    """Change points and outlier runs of one history, with the noise they were judged against."""

    params: ChangePointParams
    change_points: list[ChangePoint]
    outlier_runs: list[int]  # positions in the values given
    runs: int  # runs judged: usable (not NaN, not failed) and not outlier runs
    noise: NoiseModel | None  # None when too few runs to tell
    # The newest runs, fewer than min_size, that all sit off the level before them the same way:
    # (how many, their median relative to that level); None when they do not. A step there cannot be
    # confirmed yet, and "no change points" alone would say the history holds none.
    pending: tuple[int, float] | None = None
    # Level changes whose place the runs cannot tell to within PLACE_RUNS runs (`place_mass` under
    # PLACE_MIN_MASS): each a claim that the level moved somewhere in its `span`, not at its `index`. Each still
    # bounds the segments the levels of its neighbours (and `pending`) are read from.
    unplaced: list[ChangePoint] = field(default_factory=list)

    @property
    def too_few(self) -> bool:
        """Fewer runs than a change point needs on both of its sides."""
        return self.runs < 2 * self.params.min_size

    def detectable_step(self, n_before: int, n_after: int) -> float | None:
        """The smallest relative step between `n_before` and `n_after` runs that this history's noise lets
        the test find nine times in ten (its power); None when the noise is unknown (too few runs)."""
        if self.noise is None or n_before < 1 or n_after < 1:
            return None
        return (
            (_critical(self.params.max_pvalue) + POWER_Z)
            * self.noise.long_run_sigma
            * math.sqrt(1.0 / n_before + 1.0 / n_after)
        )


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


@dataclass(frozen=True)
class _Noise:
    """What a split's test divides by: the history's long-run sd (`NoiseModel.long_run_sigma`), and the
    factor that turns the two segments' own pooled sd into a long-run one (a noisier stretch than the
    history's usual is judged by its own spread, whichever is larger)."""

    scale: float
    factor: float


def _segment_test(
    x, lo: int, split: int, hi: int, noise: _Noise, brief: tuple[bool, bool] = (False, False)
):  # -> (pvalue, mean_before, mean_after)
    """The step between x[lo:split] and x[split:hi] against the larger of the history's long-run sd and the
    segments' own, as a normal z (the sd is not the segments' estimate alone, so not Student's t); a side that
    is a short dip or bump (`brief`, `_brief`) judged without its burst (`_held`)."""
    before, after = x[lo:split], x[split:hi]
    if brief[0]:
        before = _held(before, after)
    if brief[1]:
        after = _held(after, before)
    nb, na = len(before), len(after)
    mb, ma = float(before.mean()), float(after.mean())
    pooled = ((nb - 1) * float(before.var(ddof=1)) + (na - 1) * float(after.var(ddof=1))) / (nb + na - 2)
    se = max(noise.scale, math.sqrt(pooled) * noise.factor) * math.sqrt(1.0 / nb + 1.0 / na)
    if se == 0.0:
        return (1.0 if ma == mb else 0.0), mb, ma
    return math.erfc(abs(ma - mb) / se / math.sqrt(2.0)), mb, ma


# A level of fewer than `_SHORT_LEVEL` runs that the runs on both sides of it lie off the same way (a dip or a bump
# that comes back) is judged without its `_BURST` runs farthest off (`_brief`); 0 judges every run.
_BURST = 3
_SHORT_LEVEL = 10  # twice the default min_size: a level this short is a burst of three and a few runs beside it


def _brief(x, a: int, b: int, c: int, d: int) -> bool:
    """Whether x[b:c] is a short level between x[a:b] and x[c:d] that both lie off the same way: a dip or bump
    that comes back, where a burst of bad runs too shallow to be named outlier runs would sit."""
    import numpy as np

    if not _BURST or c - b >= _SHORT_LEVEL or c - b - _BURST < 2 or b <= a or d <= c:
        return False
    level = float(np.median(x[b:c]))
    return (float(np.median(x[a:b])) > level) == (float(np.median(x[c:d])) > level)


def _held(part, other):  # (m,), (k,) -> the runs of `part` its level is judged by
    """`part` without its `_BURST` runs farthest off the level of `other`, in the direction it differs: a dip that
    comes back must hold once a burst of three is set aside. A burst of three bad runs too shallow to be named
    outlier runs (a 45% dip at COV 9%), pulled in to 3 sds, still moves a segment of five or six by about two
    sds, and two change points bracketed it as a level of its own; a real short level keeps its shift in the
    runs left."""
    import numpy as np

    away = 1.0 if float(np.median(part)) >= float(np.median(other)) else -1.0
    return part[np.argsort(away * part)[: len(part) - _BURST]]


def _magnitude(before: float, after: float) -> float:
    if before == after:
        return 0.0
    if before == 0.0 or after == 0.0:
        return math.inf
    return max(abs(after / before - 1.0), abs(before / after - 1.0))


# Whether the split pass tests its windows' splits all at once (`_significant_windows`); False tests them
# one by one with `_segment_test`, as before: the tests compare the two.
_SCREEN = True
# A window whose z is this close (relatively) to the critical value, or whose standard error is this
# small against its values, is tested one by one: there the last bits of a sum could decide.
_MARGIN = 1e-6
_FLAT = 1e-9


def _critical(p: float) -> float:
    """The |z| a two-sided normal test passes at p: the one `_segment_test`'s p (erfc) is exact at. Read from the
    lower tail: 1 - p/2 rounds away p's last digits, and at p 1e-13 the value read from it was 1.4e-5 off, past
    `_MARGIN`; the screen and the binary pass read it here alike, so both decide as `_segment_test` would."""
    return -NormalDist().inv_cdf(p / 2.0)


def _significant_windows(rows, splits, relaxed: float, noise: _Noise):  # (m, L), (m,) -> (m,) bool, (m,) bool
    """For each window, whether the test between its two parts at its split gives p < relaxed: the
    decision `_segment_test` makes, for every window at once.

    p < relaxed is |z| above the (1 - relaxed/2) normal quantile, so one quantile replaces a tail
    probability per window. The means and variances are numpy's over masked rows, equal to the slices'
    to within a few roundings; a window near the critical value, or nearly flat (where the slices'
    standard error may be exactly 0), is decided by `_segment_test` itself, so every decision is the
    one-by-one decision.
    """
    import numpy as np

    m, length = rows.shape
    before = np.arange(length)[None, :] < splits[:, None]
    nb, na = splits.astype(float), (length - splits).astype(float)
    mb = np.where(before, rows, 0.0).sum(axis=1) / nb
    ma = np.where(before, 0.0, rows).sum(axis=1) / na
    vb = (np.where(before, rows - mb[:, None], 0.0) ** 2).sum(axis=1) / (nb - 1.0)
    va = (np.where(before, 0.0, rows - ma[:, None]) ** 2).sum(axis=1) / (na - 1.0)
    pooled = np.sqrt(((nb - 1.0) * vb + (na - 1.0) * va) / float(length - 2))
    se = np.maximum(noise.scale, pooled * noise.factor) * np.sqrt(1.0 / nb + 1.0 / na)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(ma - mb) / se
    critical = _critical(relaxed)
    unsure = ~np.isfinite(z) | (se <= _FLAT * np.abs(rows).max(axis=1)) | (np.abs(z - critical) <= _MARGIN * critical)
    return z > critical, unsure


def _candidates(x, params: ChangePointParams, noise: _Noise) -> list[int]:
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
        significant, unsure = _significant_windows(rows, splits, relaxed, noise)
        pending = [
            (window, not ask)
            for window, keep, ask in zip(windows, significant.tolist(), unsure.tolist(), strict=True)
            if keep or ask
        ]
    found: set[int] = set()
    while pending:
        (lo, split, hi), decided = pending.pop()
        if not decided and _segment_test(x, lo, split, hi, noise)[0] >= relaxed:
            continue
        found.add(split)
        for a, b in ((lo, split), (split, hi)):
            if b - a >= 2 * size:
                (k,), _ = _best_energy_splits(x[None, a:b], size)
                pending.append(((a, a + int(k), b), False))
    return sorted(found)


def _binary_candidates(x, params: ChangePointParams, noise: _Noise) -> list[int]:
    """Binary segmentation over whole segments: the split of largest standardised mean difference, kept
    when it passes the relaxed test against the history's noise, and each side split again.

    The windows of `_candidates` see 30 runs at a time: in noisy or correlated histories a 25% step
    between two levels of a thousand runs each is not significant inside any one of them, yet beyond doubt
    over the whole segments. This pass sees those; the merge judges both passes' candidates alike."""
    import numpy as np

    relaxed = params.max_pvalue * 10.0 if params.max_pvalue < 0.05 else params.max_pvalue
    critical = _critical(relaxed)
    size, found, pending = params.min_size, [], [(0, len(x))]
    while pending:
        lo, hi = pending.pop()
        length = hi - lo
        if length < 2 * size:
            continue
        k = np.arange(size, length - size + 1)
        # |mean after - mean before| x sqrt(k (L - k) / L) = |S_k| x sqrt(L / (k (L - k))): the gain's root.
        stat = np.sqrt(split_gains(x[lo:hi], k))
        best = int(np.argmax(stat))
        split = lo + int(k[best])
        if noise.scale > 0.0 and stat[best] / noise.scale < critical:
            continue
        if noise.scale == 0.0 and stat[best] == 0.0:
            continue
        found.append(split)
        pending += [(lo, split), (split, hi)]
    return found


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
        k = np.arange(first, last + 1) - lo
        refined.append(lo + int(k[np.argmax(split_gains(x[lo:hi], k))]))
    return refined


# How a change point's place is chosen (`_place`), on tuning seeds of bench/simulated_histories.py only (issue 40,
# eighth round: the -10% and -15% must-show cells from 8,000,000 and 9,000,000, 3,000 histories of 30-199 runs
# from 7,100,000, 600 of 30-1,999 from 7,000,000, the main draw's training half), from temperatures 0.5-8 and
# ties 0.001-0.2: the most steps found within 3 runs and the fewest false change points among the rules that
# leave at least all but 5 in 100 of the steps main placed exactly where they were (a change point's host
# differences are read between the run before it and it). The likelihood is tempered by this many times the
# variance its gains are in (`PLACE_GLS`: the innovations', sigma^2 (1 - phi^2); without it the long-run one):
PLACE_TEMPERATURE = 1.0
# Whether the likelihood a change point is placed by is its split's under AR(1) noise at the history's phi (its
# upper reading, as the test's: `NoiseModel.phi_upper`), the runs prewhitened (`history_noise.gls_split_gains`);
# False: least squares, as if successive runs were independent (the eighth round). Issue 40, eleventh look: under
# correlated noise the least-squares gain wanders with the noise's slow swings and its flat top is wider; the
# prewhitened runs carry the step as one sharp run (the step's whole size at its first run, 1 - phi of it after),
# which is where the envelope bench's placing oracle puts it. Chosen on tuning seeds of the bench's draw only (1,500
# histories each: the -10% and -15% must-show cells from 20,000,000 and 21,000,000, a -15% cell with one or two
# neighbouring steps 20-40 runs away from 22,000,000, 60-1,999 runs of the main space from 23,000,000), against
# least squares, phi read as is, and a second pass between the placed neighbours: steps found within 3 runs
# 1,304 / 1,312 / 1,312 (this) / 1,304 of 1,359, 1,298 / 1,311 / 1,313 / 1,299 of 1,382, 2,281 / 2,287 / 2,288
# / 2,281 of 2,609, 896 / 899 / 903 / 895 of 1,018; false change points 424 / 395 / 387 / 425 (docs/history.md,
# eleventh look).
PLACE_GLS = True
# Runs either side of a place whose likelihood `_place` adds up: a change point within this many runs of the step
# is in the right place (the envelope bench's NEAR); 0 reports the likelihood's peak, as found and tested.
PLACE_RUNS = 3
# A change point moves from the peak only where a neighbourhood holds more likelihood than the peak's own by at
# least this share of all of it (at 0.001, 25 in 100 of the steps placed exactly moved by 1-3 runs).
_PLACE_TIE = 0.05


# A change point is reported at its place only where at least this share of its place's likelihood lies within
# PLACE_RUNS runs of it: more likely than not within PLACE_RUNS runs, the bench's own test of a right place. Fixed by
# that principle, not tuned (issue 40, twenty-second look). Below it the change is reported as a level change
# somewhere in its credible span (`HistoryAnalysis.unplaced`): the nineteenth look found the share calibrated (within
# 3 runs of a true step 44% at 0.5-0.7, 99% from 0.99) and such a point wrong about its place about half the time.
# 0 places every change point (the method before).
PLACE_MIN_MASS = 0.5
# The span an unplaced change is reported over: the shortest run of places holding this share of the likelihood.
PLACE_CREDIBLE = 0.9


@dataclass(frozen=True)
class _Placement:
    """Where `_place` puts a change point (`at`), the share of its likelihood within PLACE_RUNS runs of there
    (`mass`), and the shortest span of places holding PLACE_CREDIBLE of it (`first`, `last`, inclusive)."""

    at: int
    mass: float
    first: int
    last: int

    def shifted(self, by: int) -> _Placement:
        return _Placement(self.at + by, self.mass, self.first + by, self.last + by)


def _placed(x, found: list[int], params: ChangePointParams, temperature: float, phi: float = 0.0) -> list[_Placement]:
    """Each change point (a least-squares split, tested there) moved within half a window of it to where the
    segment between its neighbours places it (`_place`) under AR(1) noise of correlation `phi`
    (`gls_split_gains`), oldest first, so that each keeps `min_size` runs from the last one placed and from the
    next one; unmoved (and sure of its place) without PLACE_RUNS or a temperature (in units of the gains: the
    innovations' variance)."""
    import numpy as np

    placed: list[_Placement] = []
    if not PLACE_RUNS or temperature <= 0.0:
        return [_Placement(split, 1.0, split, split) for split in found]
    for i, split in enumerate(found):
        lo = placed[-1].at if placed else 0
        hi = found[i + 1] if i + 1 < len(found) else len(x)
        k = np.arange(lo + params.min_size, hi - params.min_size + 1)
        near = np.abs(k - split) <= params.window_len // 2
        if not near.any():
            placed.append(_Placement(split, 1.0, split, split))
            continue
        placed.append(_place(gls_split_gains(x[lo:hi], k - lo, phi), near, temperature).shifted(int(k[0])))
    return placed


def _place(gains, allowed, temperature: float) -> _Placement:
    """Of the splits whose `split_gains` are `gains` (every split of a segment, in order), the allowed one nearest
    the likelihood's peak whose neighbourhood of +/- `PLACE_RUNS` runs holds as much of the likelihood,
    exp(gain / (2 temperature)), as the most likely neighbourhood to within `_PLACE_TIE` of all of it: the peak
    itself where its own neighbourhood does. With the share its neighbourhood holds and the likelihood's credible
    span (`_credible`); indices count the splits of `gains`.

    Why: around a small step the gain is nearly flat over several runs (a 15% step at COV 10% is 1.5 sds: the
    likelihood of its place varies by less than the noise over +/-10 runs), and its peak is wherever the noise
    happened to put it, often at an edge of the flat top, 4-10 runs from the step: a misplaced step is a step
    missed and a false change point. Where the likelihood's mass lies to one side of its peak, the place whose
    neighbourhood holds it is the more probable one to within that many runs. Where the likelihood is sharp (a
    clear step), the peak's neighbourhood holds nearly all of it and the peak is kept. Where no neighbourhood holds
    PLACE_MIN_MASS of it, the place is not known and the span is what can be said."""
    import numpy as np

    where = np.flatnonzero(allowed)
    peak = int(where[np.argmax(gains[allowed])])
    if not PLACE_RUNS or temperature <= 0.0:
        return _Placement(peak, 1.0, peak, peak)
    # Relative to the allowed peak: a larger gain outside the allowed runs would underflow every weight to 0.
    weight = np.zeros(len(gains))
    weight[allowed] = np.exp((gains[allowed] - gains[peak]) / (2.0 * temperature))
    total = np.concatenate([[0.0], np.cumsum(weight / weight.sum())])
    at = np.arange(len(gains))
    mass = (total[np.minimum(at + PLACE_RUNS + 1, len(gains))] - total[np.maximum(at - PLACE_RUNS, 0)])[where]
    near = mass >= mass.max() - _PLACE_TIE
    best = int(np.argmin(np.where(near, np.abs(where - peak), len(gains))))
    return _Placement(int(where[best]), float(mass[best]), *_credible(total))


def _credible(total) -> tuple[int, int]:
    """The shortest span of splits (first, last) whose likelihood holds PLACE_CREDIBLE of it, from the cumulative
    shares `total` (0 first, 1 last): the earliest of the shortest."""
    import numpy as np

    starts = np.flatnonzero(total[:-1] <= total[-1] - PLACE_CREDIBLE)  # from here on PLACE_CREDIBLE is left
    # For each, the last split of the shortest span from it holding PLACE_CREDIBLE of the likelihood.
    ends = np.searchsorted(total, total[starts] + PLACE_CREDIBLE, side="left") - 1
    best = int(np.argmin(ends - starts))
    return int(starts[best]), int(ends[best])


def _usable(values: Sequence[float], params: ChangePointParams):  # -> (positions, their values)
    """Positions of the runs change points look at (NaN is no run; zeros are failures unless asked for)."""
    import numpy as np

    raw = np.asarray(values, dtype=float)
    usable = ~np.isnan(raw) & ((raw != 0.0) if params.skip_zeros else True)
    positions = np.flatnonzero(usable)
    return positions, raw[positions]


def _relative(x):  # (n,) -> (n,) runs relative to their level
    """The runs over their median (over their mean of magnitudes where most failed): steps, cycles and noise
    are all relative, so one scale fits a history of bytes/s and one of microseconds."""
    import numpy as np

    if len(x) == 0:
        return x
    level = float(np.median(x)) or float(np.mean(np.abs(x))) or 1.0
    return x / level


# Of independent Gaussian runs of sd 1, the nearer side's distance (`outlier_scores`) has this median and
# this 99th percentile (measured over 400,000 runs): the median turns it into sds; where a history's own
# 99th percentile lies further out (heavy tails), the cut widens by as much.
_GAUSSIAN_MEDIAN = 0.628
_GAUSSIAN_Q99 = 2.670
_BODY = 6.0  # deviations beyond this many sds are outliers or steps, not the noise's tail


def outlier_scores(u, params: ChangePointParams):  # (n,) relative values -> (n,) scores
    """How far each run stands from the runs on both sides of it, in the cut's units: an outlier run
    scores above `outlier_sigmas` (0 where it cannot be one).

    One slow run in a history is a contended night or a failed component that came back; left in, it
    inflates the variance of the segment holding it so much that a real step beside it is no longer
    confirmed (issue 33). A run's score is the smaller of its deviations from the median of the
    `outlier_neighbours` runs before it and from that of the runs after it, each in robust sds of that
    deviation over the history (1.4826 x its MAD: it carries the correlation of neighbouring runs and the
    noise of the neighbours' median, and ignores the few large deviations steps and outliers make), over
    the history's tail factor: how much further out than a Gaussian's the 99th percentile of its
    deviations within `_BODY` sds lies (1 for Gaussian noise, about 1.6 for t4), so heavy tails are not named by the dozen while a
    Gaussian history keeps a cut it can meet. Both deviations must have the same sign and exceed
    `outlier_floor` in relative terms: a run 5% off quiet neighbours is not worth a look. A median of five
    outvotes a burst of up to three bad runs in a row, so each is an outlier and the burst is not a level;
    a step matches one side, so its first run is never one. Runs with fewer than three neighbours on a side
    score 0: the newest may start a new level.
    """
    import numpy as np

    scores = np.zeros(len(u))
    if len(u) < 2 * _NEED + 1:
        return scores
    inner, sds, eligible, agree = _deviations(u, params)
    factor = tail_factor(sds[agree], params.outlier_tail_margin, params.outlier_tail_power)
    scores[inner] = np.where(eligible, sds / factor, 0.0)
    return scores


_NEED = 3  # neighbours a run needs on each side to be scored
# Whether a run's deviations are read relative to each side's level (`_deviations`); False reads them as they are.
_RELATIVE_SIDES = True
# The outlier cut (its scale and tail factor) is read only from runs whose two sides' levels agree to within this
# many sds of their difference (`_deviations`); 0 reads it from every run, as before.
_AGREE_SDS = 3.0
# The sd of the difference of two medians of five independent runs, in units of the nearer side's median distance
# (`_GAUSSIAN_MEDIAN`): sqrt(2) x 1.2533 x sqrt(1/5) = 0.79 run sds, 0.79 / 0.628 = 1.26 units.
_SIDES_SD = 1.26


def outlier_deviations(u, params: ChangePointParams):  # (n,) -> (slice, sds, eligible) over u[slice]
    """For the runs with `_NEED` neighbours on each side (the slice): the nearer side's deviation in sds (the
    history's, before its tail factor) and whether the run may be an outlier at all (both sides off the
    same way, by more than `outlier_floor`). `outlier_scores` is sds / `tail_factor(sds, margin)` where
    eligible; apart, a bench can try several margins on one reading."""
    inner, sds, eligible, _ = _deviations(u, params)
    return inner, sds, eligible


def _deviations(u, params: ChangePointParams):  # (n,) -> (slice, sds, eligible, agree) over u[slice]
    """`outlier_deviations`, and which runs' two sides agree: the cut is read from those alone.

    Why: a run within a few runs of a step has one side across it, so its nearer distance is its other side's
    alone, not the smaller of two; the eight or so runs around a 3-sd step raised the median distance (the
    scale) and the 99th percentile (the tail factor) by 10-15% in a history of 90 runs, and a burst of three
    bad runs a few runs from the step fell under the cut it passed without the step (issue 40). Runs beside a
    burst are one-sided the same way. A run whose sides' medians differ by more than `_AGREE_SDS` sds of that
    difference straddles a change and says nothing about the noise's spread."""
    import numpy as np

    inner, (left, left_median), (right, right_median) = _sides(u, params)
    # Each side's deviation relative to that side's level (a level of 0, failed runs kept, as it is): runs vary
    # in proportion to their level, and after a 20% step down one level's deviations are 0.8 times the other's,
    # which a scale read over both took for the noise's tail on the higher one (issue 40).
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.minimum(np.abs(left / left_median), np.abs(right / right_median))
    if _RELATIVE_SIDES:
        left = left / np.where(left_median != 0.0, np.abs(left_median), 1.0)
        right = right / np.where(right_median != 0.0, np.abs(right_median), 1.0)
    nearer = np.minimum(np.abs(left), np.abs(right))
    same = np.sign(left) == np.sign(right)
    # The scale: the median of the nearer side's distance, over what it is for Gaussian noise, so the cut reads
    # in sds; read first from every run, then from the runs whose sides agree (the outliers are few).
    scale = float(np.median(nearer))
    agree = np.ones(len(nearer), dtype=bool)
    if _AGREE_SDS and scale > 0.0:
        agree = np.abs(left_median - right_median) <= _AGREE_SDS * _SIDES_SD * scale
        scale = float(np.median(nearer[agree])) if agree.sum() * 2 > len(agree) else scale
    with np.errstate(divide="ignore", invalid="ignore"):  # no noise at all: any run off its neighbours is one
        sds = np.where(nearer > 0.0, nearer * _GAUSSIAN_MEDIAN / scale, 0.0)
    return inner, sds, same & (relative > params.outlier_floor), agree


def _sides(u, params: ChangePointParams):  # (n,) -> (slice, (left, its level), (right, its level)) over u[slice]
    """For the runs with `_NEED` neighbours on each side: each side's level (the median of the 3 or of the
    `outlier_neighbours` runs on that side, whichever lies farther from the run: five outvote a burst of three;
    three are not reached by a step four runs away) and the run's deviation from it."""
    import numpy as np

    inner = slice(_NEED, len(u) - _NEED)
    value = u[inner]
    chosen = []
    for side in (-1, 1):
        near = [_side_median(u, width, side)[inner] for width in (3, params.outlier_neighbours)]
        narrow, wide = value - near[0], value - near[1]
        farther = np.abs(narrow) > np.abs(wide)
        chosen.append((np.where(farther, narrow, wide), np.where(farther, near[0], near[1])))
    return inner, chosen[0], chosen[1]


def tail_factor(sds, margin: float, power: float = 1.0) -> float:
    """How much further out than a Gaussian's the 99th percentile of the deviations within `_BODY` sds lies
    (the outliers themselves must not widen the cut that names them), at the upper end of what its runs
    allow: times 1 + `margin` / sqrt(their number). The 99th percentile of 300 runs rests on three of them
    and reads low as often as high; a cut that trusts a low reading names the heavy tail it missed. The reading
    is raised to `power` first (`ChangePointParams.outlier_tail_power`). At least 1."""

    read, m = tail_reading(sds)
    if not m:
        return 1.0
    return max(1.0, read**power * (1.0 + margin / math.sqrt(m)))


def tail_reading(sds) -> tuple[float, int]:
    """(the 99th percentile of the deviations within `_BODY` sds over a Gaussian's, how many runs it was read
    from); (1, 0) when no run is within `_BODY`. The outlier corpus reads its histories with it too."""
    import numpy as np

    body = sds[sds <= _BODY]
    if not len(body):
        return 1.0, 0
    return float(np.quantile(body, 0.99)) / _GAUSSIAN_Q99, len(body)


def _side_median(u, width: int, side: int):  # (n,) -> (n,)
    """For each run, the median of the `width` runs before it (side -1) or after it (side 1), of those there
    (NaN where there are none)."""
    import numpy as np

    from iolab.analysis.medians import median_of, row_medians

    n = len(u)
    out = np.full(n, np.nan)
    if n > width:
        full = row_medians(np.lib.stride_tricks.sliding_window_view(u, width))  # full[j]: u[j : j + width]
        if side < 0:
            out[width:] = full[: n - width]
        else:
            out[: n - width] = full[1:]
    edges = range(min(width, n)) if side < 0 else range(max(0, n - width), n)
    values = u.tolist()
    for t in edges:
        part = values[max(0, t - width) : t] if side < 0 else values[t + 1 : t + 1 + width]
        if part:
            out[t] = median_of(part)
    return out


def _lone_runs(u, params: ChangePointParams):  # (n,) relative values -> (n,) bool
    """Which runs are outlier runs, not a new level (`outlier_scores`)."""
    return outlier_scores(u, params) > params.outlier_sigmas


def outlier_runs(
    values: Sequence[float], params: ChangePointParams | None = None, times: Sequence[float] | None = None
) -> list[int]:
    """Positions in `values` of the outlier runs `change_points` leaves out (see `_lone_runs`)."""
    return analyse_history(values, params, times).outlier_runs


def change_points(
    values: Sequence[float], params: ChangePointParams | None = None, times: Sequence[float] | None = None
) -> list[ChangePoint]:
    """Lasting changes of level in a series of runs (oldest first); see `analyse_history`."""
    return analyse_history(values, params, times).change_points


def _clipped(u, sigma: float, params: ChangePointParams):
    """`u` with each run further than `clip_sigmas` sds from the running median of the 2 x min_size + 1 runs
    around it pulled in to that distance. A step moves that median at the step itself, so a step's runs are
    not pulled; a burst of three among eleven is. The sd is the larger of the history's and the local one
    (1.4826 x the running median, over `_SPREAD_RUNS` runs, of the distances to that median): a stretch
    noisier than the rest keeps its spread, which the test then judges it by."""
    import numpy as np

    if sigma == 0.0:
        return u
    local, bound = _local_bound(u, sigma, params)
    pulled = local + np.clip(u - local, -bound, bound)
    # Within half a window of an end the running median is the first (last) full window's, of which a step
    # `min_size` runs from the end holds min_size runs: its median is the other level, and every run of the step
    # was pulled in (a -30% step five runs from the newest at COV 1% came out under 5% and was not named, about one
    # history in two). An end's min_size runs all beyond the bound on one side are that step's level, not a burst
    # (bursts are set aside before, and noise puts five runs in a row past 3 sds on one side almost never), and are
    # kept. A running median cut at the ends instead let an end's noisy runs stand as a level of their own (the
    # independent audit: 11 false change points 5-7 runs from an end, 1.46 M runs; issue 40, twenty-fifth look).
    m = params.min_size
    for end in (slice(0, m), slice(len(u) - m, len(u))):
        off = u[end] - local[end]
        if np.all(off > bound[end]) or np.all(off < -bound[end]):
            pulled[end] = u[end]
    return pulled


def _local_bound(u, sigma: float, params: ChangePointParams):  # (n,) -> (n,) local level, (n,) bound
    """The running median `_clipped` pulls runs towards, and `clip_sigmas` times the larger of `sigma` and the
    local sd."""
    import numpy as np

    local = rolling_median(u, 2 * params.min_size + 1)
    spread = MAD_TO_SD * rolling_median(np.abs(u - local), _SPREAD_RUNS)
    return local, params.clip_sigmas * np.maximum(spread, sigma)


_SPREAD_RUNS = 31  # about a day of hourly runs: a noisy night is its own, three bad runs are not


def _bursts(u, params: ChangePointParams):  # (n,) relative values -> (n,) bool
    """Which runs stand further than `_BURST_SIGMAS` sds (`_local_bound`, the history's sd read before cycles) off
    the levels on both of their sides, the same way (`_sides`, the levels `outlier_scores` reads): a burst of up
    to three bad runs too shallow to be named outlier runs, which `analyse_history` sets aside, unnamed, before
    the cycles, the noise and the segmentation are read (`_LEVEL_BURSTS`). A step's runs match one side, so they
    are never among them. First the runs whose two sides agree (a burst within a level), then, without them, any
    run off both sides (a burst beside a step): the runs between a step and a burst a few runs past it stand off
    both sides until the burst is set aside."""
    import numpy as np

    if not _LEVEL_BURSTS:
        return np.zeros(len(u), dtype=bool)
    off = _bursts_by(u, noise_scale(u)[0], params)
    if _BURST_SCALE_DIFFS:
        # Two or more runs in a row off by the difference sd's bound: a burst, not one heavy-tailed run.
        new = _bursts_by(u, _difference_sd(u), params)
        off |= new & (np.r_[new[1:], False] | np.r_[False, new[:-1]])
    return _enough_left(off, params)


def _enough_left(off, params: ChangePointParams):  # (n,) bool -> (n,) bool
    """`off`, unless it leaves fewer runs than a change point needs (the history is judged whole then)."""
    import numpy as np

    return off if len(off) - off.sum() >= 2 * params.min_size else np.zeros(len(off), dtype=bool)


def _bursts_by(u, sigma: float, params: ChangePointParams):  # (n,), sd -> (n,) bool
    """The runs `_bursts` sets aside when the history's sd is `sigma`: first those off both sides whose sides
    agree, then the rest."""
    import numpy as np

    off = np.zeros(len(u), dtype=bool)
    if sigma == 0.0:
        return off
    bound = _local_bound(u, sigma, params)[1] * (_BURST_SIGMAS / params.clip_sigmas)
    off = _off_both_sides(u, bound, params, agree=True)
    rest = np.flatnonzero(~off)
    off[rest] = _off_both_sides(u[rest], bound[rest], params, agree=False)
    return _enough_left(off, params)


# Whether `_bursts` also sets aside two or more successive runs that stand `_BURST_SIGMAS` sds off both sides when the
# sd is read from the runs' successive differences (`_difference_sd`), not only by `noise_scale`'s sd. Issue 40, tenth
# look: the independent audit plants 0-2 bursts of three 30-60% down in histories of 60 runs and more; two of them
# are a tenth of the runs, and `noise_scale` (winsorised at 5 MAD-sds, divided by sqrt(2 (1 - phi)) with phi read
# from the same runs) read its sd 3.5 times the noise's in one (history 916), so the bursts stood under 4 of its
# sds, stayed in, inflated phi and the long-run sd, and 13 of its 83 missed -10%/-15% steps went unfound. Lone runs
# keep the old scale: a MAD of differences reads t4 noise's sd low, and lone t4 runs set aside by it added false
# change points in 30-199-run histories (tuning seeds 7,100,000+: 49 -> 55; two or more in a row: 51, phi up to 0.7
# 22 -> 22). False reads `noise_scale`'s sd alone, as the ninth round did.
_BURST_SCALE_DIFFS = True


def _difference_sd(u) -> float:
    """The runs' sd read from the MAD of their successive differences (MAD_TO_SD x their MAD / sqrt 2), with no phi:
    moved by a burst only as far as its share of the differences, where `noise_scale`'s sd is moved by its size."""
    import numpy as np

    return mad_sd(np.diff(u)) / math.sqrt(2.0) if len(u) >= 4 else 0.0


def _off_both_sides(u, bound, params: ChangePointParams, agree: bool):  # (n,), (n,) -> (n,) bool
    """Which runs stand further than `bound` off the levels on both of their sides (`_sides`), the same way;
    with `agree`, only those whose two sides' levels are within `bound` of each other, without, only those off
    both sides by more than the sides are apart: a step's first run between the level before it and a burst
    just past it stands off both, but by less than the burst stands off the step's two levels."""
    import numpy as np

    off = np.zeros(len(u), dtype=bool)
    if len(u) <= 2 * _NEED:
        return off
    inner, (left, left_level), (right, right_level) = _sides(u, params)
    apart = np.abs(left_level - right_level)
    nearer = np.minimum(np.abs(left), np.abs(right))
    off[inner] = (np.sign(left) == np.sign(right)) & (nearer > bound[inner])
    off[inner] &= apart <= bound[inner] if agree else nearer > apart
    return off


# Whether a burst too shallow to be named outlier runs (`_bursts`) is set aside, unnamed, before the cycles, the
# noise and the segmentation are read; False keeps it in, pulled to `clip_sigmas` sds, as before. Pulled to 3 sds,
# a 45% burst at COV 3% is 9-13% deep: deeper than a 10% step a few runs away, and the step's least-squares split
# moved to the burst's first run (issue 40); left in, it also leaked into the daily profile and the noise's sd and
# phi, and a 14% step beside it was missed.
_LEVEL_BURSTS = True
# How far off both sides such a run stands, in the sds `_clipped` bounds by. Chosen on the tuning seeds of
# bench/simulated_histories.py's 30-199-run histories (1,500 from 7,100,000), from 3, 4 and 5: the smallest that
# adds no false change point there (3: 18 against 14 without the set-aside, 4 and 5: 14, recall 79.1% alike).
_BURST_SIGMAS = 4.0


def analyse_history(
    values: Sequence[float], params: ChangePointParams | None = None, times: Sequence[float] | None = None
) -> HistoryAnalysis:
    """Lasting changes of level in a series of runs (oldest first), and its outlier runs.

    NaN values (no run) are left out of the analysis; indices still refer to
    positions in `values`. Zeros (failed runs) are left out too unless
    `params.skip_zeros` is False: one zero among hundreds of runs is an
    outlier so far from the level that the points around it would pass for
    a short segment of their own; failures are what rolling health counts.
    With `skip_zeros=False` a long outage shows as a level of 0. Outlier runs
    (`_lone_runs`) are left out as well, so one slow run or a burst of three
    cannot hide a step beside it or pass for a level.

    With `times` (epoch seconds of the runs), a daily profile is taken out
    once the runs span three days, a weekly one once they span three weeks
    (`history_noise.remove_cycles`). Each step is then judged against the
    history's own noise (`history_noise.noise_scale`: a robust sd, and the
    correlation of successive runs, which makes a mean over n runs vary as
    one over n (1 - phi) / (1 + phi)), with runs beyond `clip_sigmas` sds of
    their local level pulled in. Fewer than 2 x min_size runs give no change
    points (`too_few`).
    """
    import numpy as np

    params = params or ChangePointParams()
    if params.min_size < 2 or params.window_len < 2 * params.min_size:
        raise ValueError("min_size must be >= 2 and window_len >= 2 x min_size")
    if not 0.0 < params.max_pvalue < 1.0:  # NaN too; the tests' normal quantiles are undefined outside (0, 1)
        raise ValueError(f"max_pvalue must lie strictly between 0 and 1, not {params.max_pvalue!r}")
    positions, x = _usable(values, params)
    at = None if times is None else np.asarray(times, dtype=float)
    if at is not None and at.shape != np.shape(values):
        raise ValueError("times and values must be of equal length")
    u = _relative(x)
    lone = _lone_runs(u, params)
    outliers = [int(p) for p in positions[lone]]
    positions, x, u = positions[~lone], x[~lone], u[~lone]
    # A burst too shallow to be named is set aside too, unnamed, and still counted among the runs judged
    # (`_bursts`).
    burst = _bursts(u, params)
    aside = int(burst.sum())
    positions, x, u = positions[~burst], x[~burst], u[~burst]
    n = len(x)
    if n < 2 * params.min_size:
        return HistoryAnalysis(params, [], outliers, n + aside, None)
    times_kept = None if at is None else at[positions]
    adjusted, daily, weekly = remove_cycles(times_kept, u)
    sigma, phi, first = _first_look(adjusted, params)
    found: list[int] | None = None
    if first and "removed" in (daily.state, weekly.state):
        # The cycles fitted again away from the steps a look at this noise finds (`history_noise._centred`) where
        # two lie closer than a period: they passed for a cycle, and its swings for steps. Not the first look's
        # steps: at phi 0 it splits correlated runs where they wander, and a profile kept off all of those lost
        # most runs. Elsewhere the fit would be the same, and that look is the one the change points come from.
        found = _detect(_clipped(adjusted, sigma, params), params, _noise_of(NoiseModel(sigma, phi, daily, weekly, n)))
        if crowded(times_kept, found, (daily, weekly)):
            adjusted, daily, weekly = remove_cycles(times_kept, u, found)
            sigma, phi, first = _first_look(adjusted, params)
            found = None
    model = NoiseModel(sigma, phi, daily, weekly, n)
    noise = _noise_of(model)
    z = _clipped(adjusted, sigma, params)
    found = _detect(z, params, noise) if found is None else found
    stats = _merge(z, found, params, noise)
    # Tested at the least-squares peak (the scan's statistic says whether there is a step), reported where its
    # place is most probable to within a few runs under the history's correlated noise (`PLACE_GLS`).
    rho = model.phi_upper if PLACE_GLS else 0.0
    spread = sigma**2 * (1.0 - rho * rho) if PLACE_GLS else noise.scale**2
    placed = _placed(z, found, params, PLACE_TEMPERATURE * spread, rho)
    found = [p.at for p in placed]
    bounds = [0, *found, n]
    out = []
    for i, (where, p) in enumerate(zip(placed, stats, strict=True)):
        mb, ma = float(x[bounds[i] : where.at].mean()), float(x[where.at : bounds[i + 2]].mean())
        out.append(
            ChangePoint(
                params=params,
                index=int(positions[where.at]),
                mean_before=mb,
                mean_after=ma,
                relative_change=None if mb == 0.0 else ma / mb - 1.0,
                magnitude=_magnitude(mb, ma),
                pvalue=p,
                n_before=where.at - bounds[i],
                n_after=bounds[i + 2] - where.at,
                place_mass=where.mass,
                span=(int(positions[where.first]), int(positions[where.last])),
            )
        )
    # Every change, placed or not, bounds the segments its neighbours' levels and `pending` are read from: an
    # unplaced change is a change of level all the same; only the claim of its place is withheld.
    known = [cp for cp in out if cp.place_mass >= PLACE_MIN_MASS]
    unknown = [cp for cp in out if cp.place_mass < PLACE_MIN_MASS]
    pending = _pending(adjusted, [0, *found], sigma, params)
    return HistoryAnalysis(params, known, outliers, n + aside, model, pending, unknown)


def _first_look(adjusted, params: ChangePointParams) -> tuple[float, float, list[int]]:
    """(sigma, phi, the steps a first look finds): the look with the noise of successive runs alone (phi 0: as
    sensitive as it gets), so that the noise is then measured without the differences that straddle a step: in a
    short history one step's difference weighs enough to pass for correlation."""
    sigma, _ = noise_scale(adjusted)
    first = _detect(_clipped(adjusted, sigma, params), params, _Noise(sigma, 1.0))
    sigma, phi = noise_scale(adjusted, first)
    return sigma, phi, first


def _noise_of(model: NoiseModel) -> _Noise:
    """What a split's test divides by under `model`: its long-run sd, and the pooled sd's factor at phi_upper."""
    upper = model.phi_upper
    return _Noise(model.long_run_sigma, math.sqrt((1.0 + upper) / (1.0 - upper)))


def _pending(z, starts: list[int], sigma: float, params: ChangePointParams) -> tuple[int, float] | None:
    """The newest k < min_size runs (the most that qualify) that each sit beyond `min_magnitude` and 3 sds
    off the median of the (up to 2 x min_size) runs before them since the last change point, all the same
    way: (k, their median relative to that level)."""
    import numpy as np

    n = len(z)
    for k in range(params.min_size - 1, 0, -1):
        before = z[max(starts[-1], n - k - 2 * params.min_size) : n - k]
        if len(before) < params.min_size:
            continue
        level = float(np.median(before))
        if level == 0.0:  # a level of failed runs (skip_zeros=False): nothing to be relative to
            return None
        off = z[n - k :] - level
        far = np.abs(off) > max(params.min_magnitude * abs(level), 3.0 * sigma)
        if far.all() and (np.sign(off) == np.sign(off[0])).all():
            return k, float(np.median(z[n - k :])) / level - 1.0
    return None


def _detect(z, params: ChangePointParams, noise: _Noise) -> list[int]:
    """Candidates from both passes, merged, moved to their least-squares place and merged again. (The first
    look runs both passes too: with binary segmentation alone it missed steps whose differences then passed
    for correlation, and 10-15% steps at COV 7.5-10% were found 63% instead of 81%.)"""
    import numpy as np

    # Shift by the median for the distance sums: same statistic, fewer lost digits.
    found = sorted(set(_candidates(z - np.median(z), params, noise)) | set(_binary_candidates(z, params, noise)))
    _merge(z, found, params, noise)
    found[:] = _refine(z, found, params)
    _merge(z, found, params, noise)  # a moved point is re-tested, so what is reported always passed
    return found


def _merge(z, found: list[int], params: ChangePointParams, noise: _Noise) -> list[float]:
    """Drop the weakest point until every one left is significant and large enough (on the adjusted
    values `z`); `found` is edited in place, and each survivor's p is returned."""
    n = len(z)

    def test(i: int) -> tuple[float, float, float]:
        lo = found[i - 1] if i > 0 else 0
        hi = found[i + 1] if i + 1 < len(found) else n
        if found[i] - lo < 2 or hi - found[i] < 2:
            return 1.0, math.nan, math.nan
        outer = (found[i - 2] if i > 1 else 0, found[i + 2] if i + 2 < len(found) else n)
        brief = (i > 0 and _brief(z, outer[0], lo, found[i], hi), hi < n and _brief(z, lo, found[i], hi, outer[1]))
        return _segment_test(z, lo, found[i], hi, noise, brief)

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
    return [s[0] for s in stats]
