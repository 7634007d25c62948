"""What a history's run-to-run noise is made of, so that a change point is judged against it.

Scheduled runs are not independent draws around a level (reference/analysis.md §5.4): an hourly history
carries a daily cycle (backups, users, the building's air conditioning) and often a weekly one, successive
runs are correlated (a file system's fill, a cache, a neighbour's job last an hour or more), and the noise
has heavy tails. A t-test that takes the runs for independent Gaussian draws around one level sees a 5%
daily cycle as a step every half day, and AR(1) noise with phi = 0.5 as about 1.7 times as significant as
it is. This module describes the noise so that `analysis.history` can account for it:

- Cycles. Once the runs span three cycles (three days; three weeks for the weekly one) and are dense
  enough to show one (`MIN_RUNS_PER_CYCLE` a cycle), the cycle is fitted by least squares as
  `HARMONICS` harmonics of its period on the runs' own times (hourly or irregular alike), against a
  local level (the running median over one cycle's runs, which the cycle falls out of and a step moves
  only at the step) and removed.
  Before three cycles a cycle cannot be told from a step, and `Cycle.state` says so.
- Correlation and scale. phi is the lag-1 autocorrelation of the runs about a straight line through each
  segment between the steps found so far (levels and drift out; winsorised; the bias of the fitted line
  put back). The scale is the (winsorised) spread of differences of successive runs, which cancel levels,
  steps and drifts: for AR(1) noise of marginal sd sigma a lag-1 difference has variance
  2 sigma^2 (1 - phi). A mean over n correlated runs varies as one over n (1 - phi) / (1 + phi)
  independent runs: `NoiseModel.long_run_sigma`, taken at the upper end of what the runs allow phi to be
  (`NoiseModel.phi_upper`): 60 runs read phi with an sd of about 0.1, and a test that trusts a low reading
  takes the wander of correlated runs for steps. A step the first look missed or placed a few runs off would
  stay inside a segment and read as correlation; phi is read again with each segment's least-squares split
  (`_phi_past_a_missed_step`) and that reading taken where it lies further under the first than sampling allows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

DAY = 86400.0
WEEK = 7 * DAY
CYCLES_NEEDED = 3  # a cycle is told from a step once the runs span this many of it
HARMONICS = 3  # sine and cosine of the period, half and third of it: a business-hours profile, not only a sine
MIN_RUNS_PER_CYCLE = 4  # fewer runs a cycle cannot show one (one run a day sees a daily cycle as a constant)
# Sampling sds of phi added to its reading before a step is judged (`NoiseModel.phi_upper`). Chosen on tuning seeds
# of bench/simulated_histories.py apart from every held-out set (7,100,000+: 5,000 histories of 30-199 runs;
# 7,000,000+: 1,200 of 30-1,999; 8,000,000+ and 9,000,000+: the must-show steps): at 0, 30-199-run histories made
# 0.52 false change points per 1,000 runs (phi up to 0.7), 0.23 further than 10 runs from every step, nearly all
# with phi read low (0.45 for 0.70, 0.15 for 0.64); at 1, 0.35 and 0.11, -10% steps at COV 2-5% found 96.1%
# (96.8%), -15% at COV 2-10% 91.4% (91.7%); at 2, 0.28 and 0.08, but -15% steps 89.2%, under the target.
PHI_MARGIN = 1.0
MAX_PHI = 0.9  # beyond this a history is a random walk, not noise around a level
MAD_TO_SD = 1.4826
# Differences (and residuals) further than this many MAD-sds from their median are pulled in before their
# sd is taken: far enough that Student-t4 noise keeps its spread (at 3, lag-1 differences lost more of
# theirs than lag-2 ones and phi 0.65 read 0.76), near enough that a step's or outlier's difference does not
# pass for spread.
WINSOR = 5.0


@dataclass(frozen=True)
class Cycle:
    """A daily or weekly profile, and whether it was taken out before change points were looked for."""

    period_s: float
    state: str  # "removed"; "too short" (spans under CYCLES_NEEDED); "not sampled" (too few runs a cycle, or no times)
    span_cycles: float  # how many periods the runs cover (pauses longer than two spacings left out)
    amplitude: float  # half the profile's peak to trough, relative to the level; 0 unless removed

    @property
    def name(self) -> str:
        return "daily" if self.period_s == DAY else "weekly"


@dataclass(frozen=True)
class NoiseModel:
    """The run-to-run noise of a history once its cycles are out, relative to its level."""

    sigma: float  # robust standard deviation of one run (the history's COV)
    phi: float  # lag-1 correlation of successive runs, 0 to MAX_PHI
    daily: Cycle
    weekly: Cycle
    runs: int = 0  # how many runs phi was read from (0: as if known)

    @property
    def phi_upper(self) -> float:
        """phi at the upper end of what its runs allow: read plus PHI_MARGIN of its sampling sd,
        sqrt((1 - phi^2) / runs). A short history reads phi low as often as high, and a test that trusts a
        low reading takes the wander of correlated runs for steps."""
        if self.runs <= 0 or not PHI_MARGIN:
            return self.phi
        return min(MAX_PHI, self.phi + PHI_MARGIN * math.sqrt((1.0 - self.phi * self.phi) / self.runs))

    @property
    def long_run_sigma(self) -> float:
        """The sd that a mean over n runs divides by sqrt(n): sigma x sqrt((1 + phi) / (1 - phi)), at
        `phi_upper`."""
        return self.sigma * math.sqrt((1.0 + self.phi_upper) / (1.0 - self.phi_upper))


def rolling_median(x, width: int):  # (n,) -> (n,)
    """The centred running median over `width` values (odd); within half a width of an end, the median of
    the first (last) full window."""
    import numpy as np

    n, half = len(x), width // 2
    if n == 0 or half == 0:
        return np.array(x, dtype=float)
    if n <= width:
        return np.full(n, float(np.median(x)))
    full = np.median(np.lib.stride_tricks.sliding_window_view(x, 2 * half + 1), axis=1)
    return np.concatenate([np.full(half, full[0]), full, np.full(n - half - len(full), full[-1])])


def _harmonics(times, period: float):  # (n,) -> (n, 2 HARMONICS)
    import numpy as np

    angle = 2.0 * np.pi * (np.asarray(times) % period) / period
    return np.column_stack([f(k * angle) for k in range(1, HARMONICS + 1) for f in (np.cos, np.sin)])


def _fit_cycle(times, u, period: float, level_runs: int, inner):  # -> (profile over the runs, amplitude)
    """The least-squares harmonic profile of `u` less its running median over one period's runs, fitted on the
    runs `inner` (`_centred`): the cycle itself falls out of it, and a step moves it at the step, not over the
    half period around it (a running mean's ramp there, fitted as a cycle, took three steps in a month for a 7%
    weekly profile).

    The fitted profile is shrunk towards none by how much of it the noise alone would fit (`_kept_share`).
    """
    import numpy as np

    width = level_runs | 1
    residual = u - rolling_median(u, width)
    design = _harmonics(times, period)
    coef, *_ = np.linalg.lstsq(design[inner], residual[inner], rcond=None)
    coef = coef * _kept_share(design[inner] @ coef, residual[inner])
    profile = design @ coef
    grid = _harmonics(np.linspace(0.0, period, 97)[:-1], period) @ coef
    return profile, float(grid.max() - grid.min()) / 2.0


# Whether a fitted profile is shrunk by how much of it the noise alone would fit (`_kept_share`); False takes out
# the least-squares profile whole (the tests compare the two).
SHRINK_PROFILE = True


def _kept_share(fitted, residual) -> float:
    """The share of a least-squares profile to take out: the positive-part James-Stein share 1 - (k - 2) / chi2,
    for k = 2 x HARMONICS coefficients and chi2 the fitted sum of squares over the noise's long-run variance
    (the residuals' variance times (1 + r1) / (1 - r1), r1 their lag-1 correlation).

    Why: six coefficients fitted to three to eight days of correlated runs fit the noise as a profile of a few
    percent (2.7% median at COV 4.7% over 73 hourly runs without any cycle), and the profile taken out puts
    that error back into every day, the step's hour included: in short histories the least-squares split then
    fell 4-10 runs from a step that the runs as they came placed right. The shrunk profile has the smaller
    expected error for any true profile (Stein); a cycle the runs show plainly (chi2 in the hundreds over weeks
    of runs) is taken out nearly whole."""
    if not SHRINK_PROFILE or len(residual) <= 4 * HARMONICS:
        return 1.0
    e = residual - fitted
    e = e - e.mean()
    total = float(e @ e)
    if total <= 0.0:
        return 1.0
    r1 = min(MAX_PHI, max(0.0, float(e[1:] @ e[:-1]) / total))
    variance = total / (len(e) - 2 * HARMONICS) * (1.0 + r1) / (1.0 - r1)
    chi2 = float(fitted @ fitted) / variance
    return max(0.0, 1.0 - (2 * HARMONICS - 2) / chi2) if chi2 > 0.0 else 0.0


# Whether a cycle is fitted only on the runs whose running median reaches across no step given (`_centred`); False
# leaves out only the runs within half a period of an end, as before (the tests compare the two).
STEPS_OUT_OF_PROFILE = True


def _centred(n: int, level_runs: int, steps: Sequence[int]):  # -> (n,) bool
    """The runs a cycle's profile is fitted on: those whose running median over `level_runs` runs is centred on
    them and reaches across fewer than `STEPS_IN_A_WINDOW` of `steps` (first runs of new levels).

    Why: within half a period of an end the running median is the first (last) full window's, which a step near
    that end does not move, so the step's runs would be fitted as a cycle (a -23% step 54 runs into 570 hourly
    runs made a 4.6% weekly profile of a history without one, and its weekly swings five false change points).
    A running median follows one step at the step, but not two closer than a period: over a window holding three
    levels it is the middle one, and the level between the two steps stood off it for their whole distance, a
    block a weekly profile's harmonics fit (issue 40, eleventh round: 4.6-8.6% weekly profiles in 200-999-run
    histories without any, and their swings change points every half week). Leaving out every run whose window
    holds one step (STEPS_IN_A_WINDOW 1) dropped a period of runs a step, and a weekly cycle beside three steps
    was no longer fitted: chosen on tuning seeds, 1 and 2 gave 53 and 54 false change points in 3,000 histories of
    60-199 runs, 45 and 43 in 800 of 200-999, and 2 found 10 more of their 1,122 steps with 20 runs a side."""
    import numpy as np

    half = (level_runs | 1) // 2
    keep = np.zeros(n, dtype=bool)
    keep[half : max(half + 1, n - half)] = True
    if not STEPS_OUT_OF_PROFILE or not len(steps):
        return keep
    # How many steps each run's window (i - half .. i + half) reaches across: those at i - half + 1 .. i + half.
    marks = np.zeros(n + 1)
    np.add.at(marks, np.clip(np.asarray(steps), 0, n), 1.0)
    total = np.concatenate([[0.0], np.cumsum(marks)])
    at = np.arange(n)
    across = total[np.clip(at + half + 1, 0, n + 1)] - total[np.clip(at - half + 1, 0, n + 1)]
    return keep & (across < STEPS_IN_A_WINDOW)


STEPS_IN_A_WINDOW = 2  # steps a run's running median may reach across for the run to be fitted (`_centred`)


def crowded(times, steps: Sequence[int], cycles: Sequence[Cycle]) -> bool:
    """Whether a profile removed from runs at `times` would be fitted otherwise away from `steps` (`_centred`):
    two of them lie within one period's runs of a cycle in `cycles` that was removed."""
    import numpy as np

    if times is None or len(steps) < STEPS_IN_A_WINDOW or not STEPS_OUT_OF_PROFILE:
        return False
    spacing = float(np.median(np.diff(times)))
    closest = int(np.diff(sorted(steps)).min())
    return any(c.state == "removed" and closest < c.period_s / spacing for c in cycles)


def _cycle(times, u, period: float, steps: Sequence[int] = ()):  # -> (Cycle, profile or None)
    import numpy as np

    if times is None or len(u) < 2:
        return Cycle(period, "not sampled", 0.0, 0.0), None
    gaps = np.diff(times)
    spacing = float(np.median(gaps)) if len(times) > 1 else 0.0
    per_cycle = period / spacing if spacing > 0 else math.inf
    # The time the runs cover: a pause of days (the host down, the schedule stopped) shows no cycle, and
    # the running median of one period's runs then reaches across it.
    span_cycles = float(np.minimum(gaps, 2.0 * spacing).sum()) / period
    if per_cycle < MIN_RUNS_PER_CYCLE:
        return Cycle(period, "not sampled", span_cycles, 0.0), None
    if span_cycles < CYCLES_NEEDED:
        return Cycle(period, "too short", span_cycles, 0.0), None
    level_runs = int(min(round(per_cycle), len(u)))
    inner = _centred(len(u), level_runs, steps)
    if not _phases_covered(times[inner], period):
        return Cycle(period, "not sampled", span_cycles, 0.0), None
    profile, amplitude = _fit_cycle(times, u, period, level_runs, inner)
    return Cycle(period, "removed", span_cycles, amplitude), profile


def _phases_covered(times, period: float) -> bool:
    """Whether the runs a cycle is fitted on leave no part of the period longer than a sixth of it
    unseen: `HARMONICS` harmonics are 2 x HARMONICS coefficients, and a profile fitted on part of the
    period is an extrapolation to the rest (a weekly one fitted on four days of runs swung the other
    three by several percent)."""
    import numpy as np

    if len(times) < 2 * HARMONICS:
        return False
    phase = np.sort(np.asarray(times) % period)
    largest = max(float(np.diff(phase).max(initial=0.0)), float(phase[0] + period - phase[-1]))
    return largest <= period / (2 * HARMONICS) * (1.0 + 1e-9)


def remove_cycles(times, u, steps: Sequence[int] = ()):  # -> (u less its cycles, daily Cycle, weekly Cycle)
    """`u` (runs relative to their level, oldest first, at epoch `times` or None) less its daily profile and,
    once three weeks are covered, its weekly one, each fitted away from `steps` (`_centred`); each `Cycle` says
    whether it was removed and why not."""
    if times is None:
        return u, Cycle(DAY, "not sampled", 0.0, 0.0), Cycle(WEEK, "not sampled", 0.0, 0.0)
    daily, profile = _cycle(times, u, DAY, steps)
    if profile is not None:
        u = u - profile
    weekly, profile = _cycle(times, u, WEEK, steps)
    if profile is not None:
        u = u - profile
    return u, daily, weekly


def mad_sd(d) -> float:
    """The sd a Gaussian with `d`'s median absolute deviation has (0 for no values)."""
    import numpy as np

    if len(d) == 0:
        return 0.0
    return MAD_TO_SD * float(np.median(np.abs(d - np.median(d))))


def _robust_sd(d) -> float:
    """The sd of `d` with values beyond 3 MAD-sds from its median pulled in to that distance: nearly as
    steady as the plain sd on Gaussian noise (a MAD alone is as noisy as 40% of the values would make it,
    and a ratio of two MADs swings phi by 0.3 over 200 runs), and a step or an outlier moves it little."""
    import numpy as np

    centre, spread = float(np.median(d)), mad_sd(d)
    if spread == 0.0:
        return 0.0
    return float(np.std(np.clip(d, centre - WINSOR * spread, centre + WINSOR * spread), ddof=1))


def noise_scale(u, steps: Sequence[int] = ()) -> tuple[float, float]:
    """(sigma, phi) of runs `u` around their level (see the module's docstring), leaving out the differences
    that straddle a run in `steps` (the first runs of new levels found so far); (0, 0) for fewer than 4 runs.

    Where most successive runs are equal (flat levels, quantised values) the noise is 0 here: the test
    then judges each step by its segments' own spread (`analysis.history._segment_test`), so exact levels
    are exact and a few distinct values among ties are judged by how they scatter."""
    import numpy as np

    if len(u) < 4:
        return 0.0, 0.0
    d1 = np.diff(u)
    keep1 = np.ones(len(d1), dtype=bool)
    for at in steps:  # d1[i] = u[i + 1] - u[i]
        keep1[at - 1 : at] = False
    if keep1.sum() < 3:
        keep1[:] = True
    s1 = _robust_sd(d1[keep1])
    if s1 == 0.0:
        return 0.0, 0.0
    phi = _segment_phi(u, steps)
    if SPLIT_GUARD and phi > 0.0:
        phi = min(phi, _phi_past_a_missed_step(u, steps, phi))
    return s1 / math.sqrt(2.0 * (1.0 - phi)), phi


# Whether phi is read again with each segment's least-squares split added, and that reading taken where it lies
# further below the first than phi's sampling error allows (`_phi_past_a_missed_step`); False reads phi between
# the steps given alone (the tests compare the two).
SPLIT_GUARD = True
GUARD_SDS = 2.0  # how many sampling sds of phi the reading must drop by before a split is taken for a step


def _phi_past_a_missed_step(u, steps: Sequence[int], phi: float) -> float:
    """phi read with each segment between `steps` split where least squares puts a step (at least
    MIN_SPLIT runs a side), its selection's bias put back ((1 + 4 phi) / n a split: the best of many
    splits of AR(1) runs takes out more of their wander than a fixed one), when that reading lies more than
    GUARD_SDS sampling sds (sqrt((1 - phi^2) / n)) under `phi`; `phi` itself otherwise.

    Why: a step the steps given miss, or place a few runs off, stays inside a segment, and its runs, off the
    segment's line for tens of runs in a row, read as correlation: over 50 runs a -10% step at COV 4% reads
    phi 0.28 of independent runs and 0.61 at 0.5. The long-run sd grows as sqrt((1 + phi) / (1 - phi)), and
    the step hides itself. A split found in noise alone lowers the reading by about 3 / n, which the bias
    term puts back, and by more than two sampling sds seldom: where it does not, the first reading is kept
    and its sampling error stays what it was."""
    import numpy as np

    n = len(u)
    bounds = [0, *sorted(s for s in steps if 0 < s < n), n]
    split = list(bounds[1:-1])
    for lo, hi in zip(bounds, bounds[1:], strict=False):
        if hi - lo >= 2 * MIN_SPLIT + 2:
            k = np.arange(MIN_SPLIT, hi - lo - MIN_SPLIT + 1)
            split.append(lo + int(k[np.argmax(split_gains(u[lo:hi], k))]))
    if len(split) == len(bounds) - 2:
        return phi
    read = _segment_phi(u, sorted(split))
    read = min(MAX_PHI, read + (len(split) - len(bounds) + 2) * (1.0 + 4.0 * read) / n)
    return read if phi - read > GUARD_SDS * math.sqrt((1.0 - phi * phi) / n) else phi


def split_gains(segment, k):
    """The between-segment sum of squares of splitting `segment` after each of `k` (an array of counts of runs
    before the split, 1 to len - 1): S_k^2 / k + S_k^2 / (L - k), S_k the sum of the first k runs about the
    segment's mean. Its largest is the least-squares (maximum-likelihood) place of one shift in the mean; the
    binary segmentation, the refinement of change points (analysis.history) and the phi read past a missed step
    all place a split by it."""
    import numpy as np

    csum = np.cumsum(segment - segment.mean())
    return csum[k - 1] ** 2 * (1.0 / k + 1.0 / (len(segment) - k))


def gls_split_gains(segment, k, phi: float):
    """`split_gains` under AR(1) noise of correlation `phi`: for each count `k` (1 to len - 1) of runs before a
    split, how much a shift in the mean there lowers the prewhitened runs' sum of squares: the prewhitened runs
    projected on the step's prewhitened regressor (1 at the split, 1 - phi after it) once the level's is taken
    out (generalised least squares; in units of the innovations' variance, sigma^2 (1 - phi^2)). With phi 0 it
    is `split_gains`. `analysis.history` places a change point by it; the envelope bench's placing oracle too."""
    import numpy as np

    r = np.asarray(segment, dtype=float)
    head, rest = math.sqrt(1.0 - phi * phi), 1.0 - phi
    level = np.full(len(r), rest)
    level[0] = head
    y = np.concatenate([[head * r[0]], r[1:] - phi * r[:-1]])
    y = y - level * float(level @ y) / float(level @ level)
    after = np.concatenate([np.cumsum(y[::-1])[::-1][1:], [0.0]])  # after[t]: sum of y[t + 1:]
    later = (len(y) - 1 - k).astype(float)
    cross = y[k] + rest * after[k]
    shared = rest + rest * rest * later
    spread = 1.0 + rest * rest * later - shared * shared / float(level @ level)
    return np.where(spread > 0.0, cross * cross / np.maximum(spread, 1e-300), 0.0)


MIN_SPLIT = 5  # runs a side of a split `_phi_past_a_missed_step` tries: a change point's own fewest


def _segment_phi(u, steps: Sequence[int]) -> float:
    """The lag-1 autocorrelation of the runs about a straight line through each segment between `steps`
    (levels and drift out), winsorised, with the bias of a fitted mean and slope put back (about
    (2 + 4 phi) / n a segment). From the spread of differences one and two runs apart phi varied twice as
    much (sd 0.21 against 0.13 over 50 runs) and read high under t4 noise; in a short history one
    overestimate (0.9 for 0.45) cost a -10% step its test."""
    import numpy as np

    bounds = [0, *sorted(s for s in steps if 0 < s < len(u)), len(u)]
    pieces = []
    for lo, hi in zip(bounds, bounds[1:], strict=False):
        if hi - lo >= 4:
            t = np.arange(hi - lo, dtype=float) - (hi - lo - 1) / 2.0
            y = u[lo:hi] - float(u[lo:hi].mean())
            pieces.append(y - t * (float(t @ y) / float(t @ t)))
    if not pieces:
        return 0.0
    together = np.concatenate(pieces)
    centre, spread = float(np.median(together)), mad_sd(together)
    if spread == 0.0:
        return 0.0
    lagged = total = 0.0
    for piece in pieces:
        y = np.clip(piece, centre - WINSOR * spread, centre + WINSOR * spread)
        y = y - y.mean()
        lagged += float(y[1:] @ y[:-1])
        total += float(y @ y)
    r1 = lagged / total if total > 0.0 else 0.0
    r1 += len(pieces) * (2.0 + 4.0 * max(r1, 0.0)) / len(together)
    return min(MAX_PHI, max(0.0, r1))
