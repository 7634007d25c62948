"""Dips inside one run: stretches where throughput fell well below the run's own level, of any length.

Method (reference/analysis.md §5.4): the series is cut into segments of
constant level by a penalised least-squares segmentation (PELT, Killick,
Fearnhead & Eckley 2012), with a penalty of `penalty` x sigma^2 x ln n, where
sigma comes from the median absolute difference of seconds in a row (which
a change of level does not move). The run's level is the median of the
seconds in the segments that are not low, so a dip of any length cannot
drag its own baseline down (a rolling median follows any dip that fills
half its window: issue 40 found none of 6 s or more). An event is a run of
low segments (mean `shoulder` below the level) holding at least
`min_duration_s` of seconds `shoulder` below it, one of them `drop` below; a stretch of such seconds the
segmentation left whole is one too when its mean stands out of the seconds' spread (`_short_events`: the
segmentation's penalty on a short dip's two edges is stricter than the rules' own test). A fall that reaches the end
of the series is a step when its segments stay `drop` below (it did not recover: its last seconds are not back at
the level before it beyond the noise, `_recovered`); an event that ends is a dip, from 2 s to the whole run minus
its recovery; one that does not (its segments low to the end, its last seconds not back) is "unended", a fall still
low when the run ended (`_ended`), and so is one still low where a step begins, with the step as its second stage
(`_first_stage`). Depth is from the lowest second, the mean drop beside it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from iolab.analysis.window_tail import runs_of

MIB = 1 << 20


HINGE_REACH = 600  # samples a dip's dating looks before (after) its detected edge: bounds the hinge's grid


@dataclass(frozen=True)
class DipParams:
    drop: float = 0.25  # a second is low when below (1 - drop) x level
    shoulder: float = 0.125  # a segment belongs to an event when its mean is this far below the level
    penalty: float = 3.0  # segmentation penalty per change, in units of sigma^2 x ln(n)
    min_duration_s: float = 2.0  # low seconds an event must hold
    merge_gap_s: float = 1.0  # events this close are one
    # a stretch of low seconds the segmentation left whole is an event when its mean shortfall exceeds
    # sqrt(2 x short_penalty x ln n) times its mean's sd (`_short_events`); None: segments alone. 1.5 chosen on
    # bench/dips_envelope.py's tuning seeds 40-839 from 1.0 and 1.5 (as many dips found, fewer false at 1.5;
    # read then against a robust spread). As shipped: eligible 2 s 83 -> 84 of 85, 3-5 s 122 -> 124 of 124;
    # on 840-2039 2 s 119 -> 121 of 126, 3-5 s 196 -> 197 of 200; the 2 s dips of 1,540-7,539 543 -> 544
    # of 558; false per clean run over 40-2039 0.067 -> 0.070
    short_penalty: float | None = 1.5
    # a dip's onset (and end) is moved out from its first (last) second `shoulder` below the level to where its
    # descent (rise) starts when a hinge there beats a descent starting at that second by more than this x
    # spread^2 x ln n (`date_edges`); None: dated from the shoulder crossing as before. 1.0 chosen on
    # bench/dips_envelope.py's tuning seeds 40-839 from 0.5, 1, 1.5, 2, 3, 5: onset within 1 s of the shape's
    # start 88.3% -> 95.0% (V 59.9% -> 86.4%, 21-60 s 71.3% -> 89.2%, rectangles 97.8% as before); at 0.5
    # rectangles fell to 97.2% (noise dated them early). docs/dips.md "Dating a gradual dip". 0.75 with
    # `date_inward` (onset50): chosen on the audit's generator at seed 5,500,001 (1,000 runs, 823 eligible dips
    # found through the rules) and "gradual noisy" 3,200,000-3,200,399 (314) from 1.0, 0.75, 0.5: within 1 s
    # 724 -> 727, 734, 738 (the oracle 744) and 275 -> 276, 276, 277 (280); 0.5 dated a 2 s rectangle 1 s early
    # (tests/analysis/test_dips_short.py), 0.75 one more of 200 such (185 exact, 198 within 1 s, as at 1.0)
    hinge_penalty: float | None = 0.75
    # an edge may move in as well as out: a noise second `shoulder` low just before (after) a dip, joined to it,
    # dates it early (late) when the dating only moves an edge out (`date_edges`); False: out only, as before
    date_inward: bool = True
    # an edge moves out over seconds only when their own fall along the hinge is at least this share of the hinge's
    # (`_supported`): a straight line through a fall in steps starts before its first step; None: any hinge that
    # beats the crossing by the gain, as before
    hinge_support: float | None = 0.25
    # a fall whose last seconds are back at the level before it is a dip that ended, not a step (`_recovered`):
    # they must stand above the level after by more than this many sd of their mean (one second's sd when one is
    # back). None: the segments alone decide, and a dip back only in the series' last second was a step (a
    # segment holds two seconds). 2.0 chosen on bench/dips_edges.py's tuning seeds 61,000,000-61,001,499 from
    # 1.5, 2, 2.5, 3 (the most dips back for the last 1-2 windows found with steps misread as dips at most 1
    # point above the switch off): back for the last window 54.8% -> 97.4% of 230 (2.5 and 3: 97.0%), steps
    # misread 8.5% -> 9.1% of 1,500 (1.5: 9.6%, 3: 8.7%). Held out (62,000,000-62,002,999): 57.3% -> 98.7% of
    # 471, steps misread 9.0% -> 10.0% of 3,000 (those with a last window forced 1.5-3 sd high, 25-40% deep,
    # 8.1% -> 12.5% of 578; as drawn 5.8% -> 5.9% of 556), false findings per clean run 0.063 as before.
    # 3.0 chosen again by the same rule once `unended` changed what the switch off is (an event low to the end is
    # no longer a dip but a fall still low; off, steps misread 1.1% of 1,500): at 2 misread 2.6%, beyond the
    # slack; 2.5 and 3 2.1% and 1.7%, near-end recall 96.5 / 96.7% at both (3, the larger on a tie)
    recovered_z: float | None = 3.0
    # an event still low when the series ends (every segment from its last low second on low, and its last seconds
    # not back beyond the noise as `_recovered` reads them: `_ended`) is "unended": neither a dip that ended nor a
    # step the segments confirm. It stays an event (its seconds are not the run's noise) and TEL-STEP says it fell
    # and was still low, where TEL-DIP said it dipped and recovered (bench/dips_edges.py: 10% of shallow step
    # twins; docs/dips.md "A fall still low when the run ends"). One still low where a step begins is unended too,
    # with the step as its second stage (stage64). No parameter of its own. False: such an event is a transient as
    # before, before a step too
    unended: bool = True
    # a series of fewer samples than this reads its noise from the lower quartile of its differences where that
    # is under half the median's reading (`noise_sigma`): in 8-29 samples one dip's edges can be half the
    # differences, and a V or ramp 3-5 s long in a 10 s run set sigma at its own slope, so the segmentation
    # never cut it (noise-free, 90% deep: not an event). None: the median alone at every length
    short_sigma_samples: int | None = 30


@dataclass(frozen=True)
class Dip:
    """One event. Times are seconds from the start of the series' time base.

    For a step, `duration_s` runs to the end of the series and `depth` is the
    lasting loss (1 - level after / level before).
    """

    kind: str  # "transient" (a dip that ended), "step", or "unended" (still low when the series ended: `_ended`)
    onset_s: float  # where its descent starts (`date_edges`); `low_s` holds where it was detected
    duration_s: float
    depth: float  # 1 - lowest value / level, 0..1 (a step: 1 - level after / level before)
    mean_drop: float  # 1 - mean value / level over the event
    baseline: float  # the run's level: series units (bytes/s for bandwidth)
    lowest: float
    lost_mib: float  # sum of (level - value) x interval / MiB; meaningful for bytes/s series
    level_before: float
    level_after: float
    # (start s, end s) of the seconds that made it an event (from its first to its last second `shoulder` below
    # the level), which the rules judge it on; onset_s..onset_s + duration_s is where its descent starts and its
    # rise ends (`date_edges`). None: the same interval (a step; a dip dated as it was detected)
    low_s: tuple[float, float] | None = None

    def low(self) -> tuple[float, float]:
        """The interval the event was detected on: what its judging reads as inside it."""
        return self.low_s if self.low_s is not None else (self.onset_s, self.onset_s + self.duration_s)


@dataclass(frozen=True)
class DipReport:
    params: DipParams
    dips: list[Dip] = field(default_factory=list)
    samples: int = 0
    interval_s: float = 0.0
    median: float = 0.0
    evaluated: bool = True
    reason: str = ""


# |d| of a Gaussian difference at its lower quartile, in units of the difference's sd: Phi^-1(0.625)
_LOWER_QUARTILE_Z = 0.3186393639643752
# the lower quartile's reading replaces the median's only under this share of it (`noise_sigma`)
_SLOPE_RATIO = 0.5


def noise_sigma(x, lower_quartile: bool = False) -> float:
    """Standard deviation of one second's noise from the median absolute difference of seconds one apart, or
    two apart where that is smaller (1.4826 MAD / sqrt 2): a change of level moves one or two differences,
    not the median of all of them. Seconds that take turns high and low (fio's windows alternating,
    negatively correlated) double every difference of seconds in a row while those two apart cancel: from
    the first alone the penalty hid 3-14 s dips 60-80% deep in such fio-plot traces (issue 40).

    With `lower_quartile`, the same read from the differences' lower quartile where that is under half the
    median's: the quartile holds while up to three in four differences are a dip's edges (the median: one in
    two), and so far below the median it says the median read a slope, not noise (a short series' noise,
    `DipParams.short_sigma_samples`, where one V's slope can be most of the differences). Taken whenever it
    was smaller, its own sampling in white noise of 10-29 samples set sigma low enough to cut a noise segment
    before a step, which then was dated early and declined (short65, bench/dips_edges.py held out: 15 of 3,000
    step twins no longer told); under half the median's, white noise of 8-29 samples reads it in 2-7%."""
    import numpy as np

    if len(x) < 2:
        return 0.0
    one = np.abs(np.diff(x))
    two = np.abs(x[2:] - x[:-2]) if len(x) > 2 else one
    sigma = 1.4826 * min(float(np.median(one)), float(np.median(two))) / float(np.sqrt(2.0))
    if lower_quartile:
        quartile = min(float(np.quantile(one, 0.25)), float(np.quantile(two, 0.25)))
        read = quartile / (_LOWER_QUARTILE_Z * float(np.sqrt(2.0)))
        if read < _SLOPE_RATIO * sigma:
            sigma = read
    return sigma


def segment(x, penalty: float, min_size: int = 2) -> list[int]:
    """Ends of the segments (exclusive, the last is len(x)) of the least-squares segmentation of `x` with
    `penalty` per segment: PELT, exact for this cost, pruning start points that can no longer win.

    The start points still in the running live at the front of one buffer, rewritten in place as they are
    pruned: growing a fresh array for each second (np.append) was a third of the segmentation's time on
    fio-plot's collection, and the segmentation the largest share of an import's doctor."""
    import numpy as np

    n = len(x)
    if n < 2 * min_size:
        return [n]
    csum = np.concatenate(([0.0], np.cumsum(x)))
    csq = np.concatenate(([0.0], np.cumsum(x * x)))
    best = np.full(n + 1, np.inf)
    best[0] = -penalty
    last = np.zeros(n + 1, dtype=int)
    buffer = np.empty(n + 1, dtype=int)
    starts = buffer[:0]
    for t in range(min_size, n + 1):
        new = t - min_size
        if new == 0 or new >= min_size:
            buffer[len(starts)] = new
            starts = buffer[: len(starts) + 1]
        sums = csum[t] - csum[starts]
        cost = best[starts] + (csq[t] - csq[starts]) - sums * sums / (t - starts)
        i = cost.argmin()
        best[t] = top = cost[i] + penalty
        last[t] = starts[i]
        kept = starts[cost <= top]
        starts = buffer[: len(kept)]
        starts[:] = kept
    ends = [n]
    while last[ends[-1]] > 0:
        ends.append(int(last[ends[-1]]))
    return ends[::-1]


def _level(x, bounds: list[tuple[int, int]], shoulder: float) -> tuple[float, list[bool]]:
    """The level (median of the seconds in segments not below it) and which segments are low, re-judged
    until they settle. The first guess is the median of all, unless the series starts and ends well above it:
    then it is the median of the first and last segments, so a dip longer than half the run (that ends) is
    below the level it left and came back to rather than being the level itself."""
    import numpy as np

    level = float(np.median(x))
    (a0, b0), (a1, b1) = bounds[0], bounds[-1]
    if len(bounds) >= 3 and min(np.mean(x[a0:b0]), np.mean(x[a1:b1])) * (1.0 - shoulder) > level:
        level = float(np.median(np.concatenate((x[a0:b0], x[a1:b1]))))
    low = [False] * len(bounds)
    for _ in range(5):
        new = [float(np.mean(x[a:b])) < (1.0 - shoulder) * level for a, b in bounds]
        kept = [x[a:b] for (a, b), is_low in zip(bounds, new, strict=True) if not is_low]
        if not kept:
            break
        level = float(np.median(np.concatenate(kept)))
        if new == low:
            break
        low = new
    return level, low


def _events(x, t, bounds, low, level: float, params: DipParams, interval: float, gap: int) -> list[list[int]]:
    """[first, last] sample indices of each run of low segments whose samples `shoulder` below the level cover
    `min_duration_s`, one of them `drop` below it (a ramp's or a V's edges are shallower than its bottom; one
    stalled second beside good ones is no dip); runs apart by no more than `gap` samples are one.

    Time covered, not samples counted: fio's summed series leaves out a window not every job logged, so a
    2 s dip in 0.25 s windows may hold 7 of them (fio-plot's traces); a window missing between two low ones
    is low time."""
    import numpy as np

    runs: list[list[int]] = []
    for (a, b), is_low in zip(bounds, low, strict=True):
        if not is_low:
            continue
        if runs and a - runs[-1][1] - 1 <= gap:
            runs[-1][1] = b - 1
        else:
            runs.append([a, b - 1])
    deep, low_floor = (1.0 - params.drop) * level, (1.0 - params.shoulder) * level
    events = []
    for first, last in runs:
        below = first + np.flatnonzero(x[first : last + 1] < low_floor)
        if len(below) == 0 or float(np.min(x[first : last + 1])) >= deep:
            continue
        together = np.diff(below) == 1  # low samples next to each other: the time between them is low too
        covered = interval * len(below) + float(np.sum((np.diff(t[below]) - interval)[together]))
        if covered >= params.min_duration_s - 1e-6:
            # from its first to its last low second: a segment of two may pair a good second with a low one
            events.append([int(below[0]), int(below[-1])])
    return events


def _short_events(x, t, taken: list[list[int]], level: float, sigma: float, params: DipParams, interval: float):
    """[first, last] of each stretch of seconds in a row `shoulder` below the level, one of them `drop` below,
    covering `min_duration_s`, outside the events `taken`, whose mean shortfall is beyond the noise at
    `short_penalty`: level - mean > sqrt(2 short_penalty ln n) x the sd of a mean of that many seconds, read
    from the spread about the level of the seconds outside it and the events (the dip's own seconds would
    widen it) and the correlation of seconds in a row that `sigma` implies beside that spread. The robust
    spread (1.4826 MAD) was tried on the tuning seeds: as many dips found, twice the false findings (t3
    shocks stand far out of a MAD).

    Why: the segmentation pays `penalty` sigma^2 ln n for each of a dip's two edges, so a dip of m seconds
    needs a shortfall of sqrt(2 penalty ln n / m) sigma before it is cut out at all: 5.8 sigma x sqrt(2 / m)
    in 300 s, where the rules' own test of an event (doctor/rules/telemetry) asks about 4. A 2 s dip 30-50%
    deep in a run whose seconds vary 10-15% was never an event (issue 40: 8 of the 21 eligible 2 s dips
    missed on the tuning seeds). The rules judge each event found here as any other."""
    import numpy as np

    if params.short_penalty is None or len(x) < 2:
        return []
    below = x < (1.0 - params.shoulder) * level
    free = np.ones(len(x), dtype=bool)
    for first, last in taken:
        below[first : last + 1] = free[first : last + 1] = False
    square, count = float(np.sum((x[free] - level) ** 2)), int(free.sum())
    scale = np.sqrt(2.0 * params.short_penalty * np.log(max(len(x), 2)))
    found = []
    edges = np.flatnonzero(np.diff(np.concatenate(([0], below.astype(int), [0]))))
    for a, b in zip(edges[::2], edges[1::2], strict=True):
        stretch = x[a:b]
        covered = interval * (b - a) + float(np.sum(np.diff(t[a:b]) - interval))
        if covered < params.min_duration_s - 1e-6 or float(stretch.min()) >= (1.0 - params.drop) * level:
            continue
        # against the spread about the level of the seconds outside it and the events, and the correlation of
        # seconds in a row the differences' sigma implies beside it (AR(1): sigma^2 = spread^2 (1 - rho))
        rest = max(count - (b - a), 1)
        spread = max(sigma, float(np.sqrt(max(square - float(np.sum((stretch - level) ** 2)), 0.0) / rest)))
        if level - float(stretch.mean()) > scale * spread * ar1_mean_factor(b - a, 1.0 - (sigma / spread) ** 2):
            found.append([int(a), int(b - 1)])
    return found


def ar1_mean_factor(length: int, rho: float) -> float:
    """Standard deviation of the mean of `length` samples in a row over that of one, for samples whose lag-1
    correlation is `rho` (an AR(1) process): 1 / sqrt(length) when they are independent."""
    if rho <= 0.0 or length <= 1:
        return 1.0 / math.sqrt(max(length, 1))
    rho = min(rho, 0.99)
    total = length * (1.0 + rho) / (1.0 - rho) - 2.0 * rho * (1.0 - rho**length) / (1.0 - rho) ** 2
    return math.sqrt(total) / length


def _step_at(x, bounds, params: DipParams, min_size: int, sigma: float) -> int | None:
    """The first segment boundary after which every segment of at least `min_size` + 1 samples and the last
    one stay `drop` below the median before it, and the median after it does too, and the series' last
    seconds are not back at the level before (`_recovered`): a step down that lasts."""
    import numpy as np

    for j in range(1, len(bounds)):
        k = bounds[j][0]
        if k < min_size or len(x) - k < min_size:  # a step lasts at least as long as a dip must
            continue
        before = float(np.median(x[:k]))
        ceiling = (1.0 - params.drop) * before
        after = bounds[j:]
        if float(np.median(x[k:])) >= ceiling or float(np.mean(x[after[-1][0] :])) >= ceiling:
            continue
        if _recovered(x, k, before, sigma, params):
            continue
        if all(float(np.mean(x[a:b])) < ceiling for a, b in after if b - a > min_size):
            return k
    return None


def _recovered(x, k: int, before: float, sigma: float, params: DipParams) -> bool:
    """Whether the seconds at the end of the series, after a fall at `k`, are back at the level `before` it:
    the r last seconds (r >= 1) each nearer that level than the level after (the median from k on) or at least
    (1 - `shoulder`) x `before`, their mean above the median of the seconds from k to them by more than
    `recovered_z` sd of a mean of r seconds. The sd is the spread of the seconds before k about their median
    (1.4826 MAD, at least `sigma`), with the correlation of seconds in a row `sigma` implies beside it (as
    `_short_events` reads it): a step's last second is one second of noise about the level after, its wander
    included, which the differences' `sigma` alone understates. The bar for "back" is the midpoint of the two
    levels where that is lower than the shoulder: at COV 15% a last second at the level falls `shoulder` below it
    one time in five (docs/dips.md, dips61).

    Why: the segmentation's segments hold at least two seconds, so a dip that recovers in the series' last
    second shares the last segment with one of its own low seconds, whose mean then stays `drop` below: the
    dip was a step, and TEL-STEP declined or misdated it (two seconds back were a dip)."""
    import numpy as np

    if params.recovered_z is None:
        return False
    back = x[k:] >= min((1.0 - params.shoulder) * before, 0.5 * (before + float(np.median(x[k:]))))
    r = len(back) - int(np.flatnonzero(~back)[-1]) - 1 if not back.all() else len(back)
    if r == 0 or r == len(back):
        return r > 0
    spread = max(sigma, 1.4826 * float(np.median(np.abs(x[:k] - before)))) if k > 0 else sigma
    rho = 1.0 - (sigma / spread) ** 2
    level_after = float(np.median(x[k : len(x) - r]))
    return float(np.mean(x[len(x) - r :])) - level_after > params.recovered_z * spread * ar1_mean_factor(r, rho)


def detect_dips(times_s: Sequence[float], values: Sequence[float], params: DipParams | None = None) -> DipReport:
    """Dips and steps in one per-interval series (e.g. a device's read bytes/s per second).

    `times_s` are the ends of the intervals, as telemetry and fio logs give
    them. NaN values are gaps: never low, never part of a level.
    """
    import numpy as np

    params = params or DipParams()
    t = np.asarray(times_s, dtype=float)
    x = np.asarray(values, dtype=float)
    if t.shape != x.shape:
        raise ValueError("times and values differ in length")
    order = np.argsort(t, kind="stable")
    t, x = t[order], x[order]
    valid = ~np.isnan(x)
    n = int(valid.sum())
    if n < 3 or len(t) < 3:
        return DipReport(params, samples=n, evaluated=False, reason=f"{n} samples; at least 3 are needed")
    interval = float(np.median(np.diff(t)))
    if not interval > 0:
        return DipReport(params, samples=n, evaluated=False, reason="samples share one timestamp")
    xv, tv = x[valid], t[valid]
    median = float(np.median(xv))
    if median <= 0:
        return DipReport(
            params,
            samples=n,
            interval_s=interval,
            median=median,
            evaluated=False,
            reason="the series is idle (median 0)",
        )
    min_samples = max(1, int(np.ceil(params.min_duration_s / interval - 1e-9)))
    gap = int(np.floor(params.merge_gap_s / interval + 1e-9))
    # A floor under sigma (0.1% of the median): a noise-free series is cut only where its level changes.
    short = params.short_sigma_samples is not None and n < params.short_sigma_samples
    sigma = max(noise_sigma(xv, lower_quartile=short), 1e-3 * median)
    ends = segment(xv, params.penalty * sigma * sigma * np.log(max(n, 2)), 2)
    bounds = list(zip([0, *ends[:-1]], ends, strict=True))

    dips: list[Dip] = []
    parts = [(0, len(xv), bounds)]
    k = _step_at(xv, bounds, params, max(2, min_samples), sigma)
    if k is not None:
        step = _step(xv, tv, k, interval)
        dips.append(step)
        parts = [(0, k, [(a, b) for a, b in bounds if b <= k]), (k, len(xv), [(a, b) for a, b in bounds if a >= k])]
    for lo, hi, part in parts:
        level, low = _level(xv[lo:hi], [(a - lo, b - lo) for a, b in part], params.shoulder)
        if level <= 0:
            continue
        local = [(a - lo, b - lo) for a, b in part]
        found = _events(xv[lo:hi], tv[lo:hi], local, low, level, params, interval, gap)
        found += _short_events(xv[lo:hi], tv[lo:hi], found, level, sigma, params, interval)
        for (first, last), (start, end) in zip(found, date_edges(xv[lo:hi], found, level, sigma, params), strict=True):
            ended = _ended(xv[lo:hi], first, last, level, sigma, params, local, low)
            held, dated = (lo + first, lo + last), (lo + start, lo + end)
            if not ended and hi < len(xv):  # still low where the step begins
                if _first_stage(xv, lo + first, lo + last, level, sigma, params, min_samples):
                    # one fall still low when the series ended, from this event's first low second on (as a step
                    # is dated; the hinge's dating put 5 of 300 such falls 2-5 s early, on noise): the step it ran
                    # into is its second stage, judged as one event as a fall still low at the end is (a step
                    # dated from the first stage can fall under the step test's 25%, which the event's own passes)
                    dips.remove(step)
                    held = dated = (lo + first, len(xv) - 1)
                else:
                    ended = True
            dips.append(_transient(xv, tv, *held, level, interval, dated, ended))
    dips.sort(key=lambda d: d.onset_s)
    return DipReport(params, dips=dips, samples=n, interval_s=interval, median=median)


def _first_stage(x, first: int, last: int, level: float, sigma: float, params: DipParams, min_samples: int) -> bool:
    """Whether an event first..last before the series' step, still low where the step begins (`_ended` reads the
    seconds before the step alone), is the step's first stage (a drive that sags, then drops further): after its
    last low second no `min_samples` in a row are back at the `level` (within `shoulder`: a dip must hold as long
    below it), and the series' last seconds are not back at the level before `first` (`_recovered`). Either way
    back, it is a dip that ended: the step's boundary can fall inside a dip's rise (fio-plot's 860 Pro twin: a ramp
    back at the level for 2.25 s, then the trace's own fall, read as one step from the rise), and the step test reads
    its spread with the event inside and takes a dip back in the last whole second beside fio's partial last one
    for a two-second step (bench/dips_edges.py). A segment at the level precedes the event (`_level`), so
    `first` >= 2.

    Why: the seconds before a step were taken to have ended, so such a first stage was told as a dip that
    recovered (69 of tests/analysis/test_dips_unended.py's 300 sags into a step; fio-plot's RAID0 randwrite
    "dipped 27% for 75 s at 219 s", which falls from 221 s to the end). `detect_dips` makes it and the step one
    fall still low at the end from `first`."""
    import numpy as np

    after = x[last + 1 :]
    if any(len(run) >= min_samples for run in runs_of(after, after >= (1.0 - params.shoulder) * level)):
        return False
    return not _recovered(x, first, float(np.median(x[:first])), sigma, params)


def _step(x, t, k: int, interval: float) -> Dip:
    """The step at sample `k`: the level before and after (medians), lasting to the end of the series."""
    import numpy as np

    before, after = x[:k], x[k:]
    level_before, level_after = float(np.median(before)), float(np.median(after))
    onset = float(t[k] - interval)
    return Dip(
        kind="step",
        onset_s=onset,
        duration_s=float(t[-1]) - onset,
        depth=1.0 - level_after / level_before,
        mean_drop=1.0 - float(np.mean(after)) / level_before,
        baseline=level_before,
        lowest=float(np.min(after)),
        lost_mib=float(np.sum(np.clip(level_before - after, 0, None))) * interval / MIB,
        level_before=level_before,
        level_after=level_after,
    )


def _ended(
    y, first: int, last: int, level: float, sigma: float, params: DipParams, bounds: list[tuple[int, int]], low
) -> bool:
    """Whether the event first..last of the series' part `y` (the whole series, or the seconds before or after its
    step) ended before that part did: a segment after the one holding its last low second is not low (`bounds` and
    their `low` flags, as `_level` judged them: the segmentation put the level back after it), or the last seconds
    are back at the `level` beyond the noise (`_recovered`, read from its first second on; a segment holds two
    seconds, so a dip back only in the last one shares a low segment with its own last low second).

    Why: an event the step test declined that lasted to the end (a 20-25% step, a second fall after a step) was
    reported as a dip that recovered, with no level after or one noise-high last second as its recovery. Taking it
    out of the events instead made its seconds the run's noise and hid real dips elsewhere in the run (end61).
    Counting the seconds after its last low one did not do: a shallow fall's seconds in noise sit above the
    shoulder two or three in a row by chance. The same holds before a step: a fall still low where the step begins
    (a drive that sags, then drops further) was a dip that recovered too, since a part before a step was taken to
    have ended (`_first_stage` now tells a step's first stage from a dip that ended)."""
    if not params.unended:
        return True
    holding = next(j for j, (a, b) in enumerate(bounds) if a <= last < b)
    return not all(low[holding:]) or _recovered(y, first, level, sigma, params)


def _transient(x, t, first: int, last: int, level: float, interval: float, dated: tuple[int, int], ended: bool) -> Dip:
    """The dip over samples first..last against the run's `level`, dated from sample dated[0] to dated[1] (where
    its descent starts and its rise ends, `date_edges`); the levels around it are the medians of the seconds
    before and after first..last. One that did not end (`_ended`) is "unended": its level after is the median
    of its own seconds from its first on, the level it was still at."""
    import numpy as np

    ev = x[first : last + 1]
    pre, post = x[:first], (x[last + 1 :] if ended else x[first:])
    onset = float(t[dated[0]] - interval)
    return Dip(
        kind="transient" if ended else "unended",
        onset_s=onset,
        duration_s=float(t[dated[1]]) - onset,
        depth=1.0 - float(ev.min()) / level,
        mean_drop=1.0 - float(ev.mean()) / level,
        baseline=level,
        lowest=float(ev.min()),
        lost_mib=float(np.sum(np.clip(level - ev, 0, None))) * interval / MIB,
        level_before=float(np.median(pre)) if len(pre) else level,
        level_after=float(np.median(post)) if len(post) else float("nan"),
        low_s=(float(t[first] - interval), float(t[last])),
    )


def date_edges(x, found: list[list[int]], level: float, sigma: float, params: DipParams) -> list[tuple[int, int]]:
    """(start, end) sample indices of each event [first, last] of `found`: where its descent starts and its rise
    ends. What makes an event (its seconds `shoulder` below the level) dates a gradual one late: a ramp or a V
    crosses the shoulder seconds after it starts to fall (issue 40's audit: onset within 1 s for 57% of ramps
    and 45% of V shapes, 98% of rectangles). Each edge is moved out only where a hinge (the level, then a
    straight descent to the event's floor) starting before the crossing fits the seconds between the previous
    event and the event's middle better than one starting at the crossing by more than `hinge_penalty` x the
    spread^2 of the seconds outside the events about the level x ln n (one more change point's worth), so noise
    alone does not date a rectangle early; and moved in (`date_inward`) where a hinge starting after the crossing,
    at the latest at the event's first second `drop` below the level, beats both by as much: a noise second
    `shoulder` low just before the dip, joined to it, is the level's. Events never reach into each other."""
    import numpy as np

    if params.hinge_penalty is None or not found:
        return [(first, last) for first, last in found]
    free = np.ones(len(x), dtype=bool)
    for first, last in found:
        free[first : last + 1] = False
    outside = x[free] - level
    spread2 = max(sigma * sigma, float(np.mean(outside * outside)) if len(outside) else 0.0)
    gain = params.hinge_penalty * spread2 * float(np.log(max(len(x), 2)))
    deep = (1.0 - params.drop) * level if params.date_inward else -math.inf
    order = sorted(found)
    edges = [0] + [last + 1 for _, last in order[:-1]]
    ends = [first - 1 for first, _ in order[1:]] + [len(x) - 1]
    dated = {}
    n = len(x)
    cut = (gain, params.hinge_support)
    for (first, last), lo, hi in zip(order, edges, ends, strict=True):
        start = _descent_start(x, (first, last), lo, (level, deep), cut)
        rise = _descent_start(x[::-1], (n - 1 - last, n - 1 - first), n - 1 - hi, (level, deep), cut)
        end = n - 1 - rise
        dated[(first, last)] = (start, end)
    return [dated[(first, last)] for first, last in found]


def _supported(sy, siy, starts: tuple, span, amplitude, share: float):
    """Whether the seconds t0..f - 1 (`starts`) a hinge moves an onset out over fall as it says: their own
    least-squares amplitude along its ramp is at least `share` of the hinge's (at one half, fitting them the hinge
    beats the level). A hinge is a straight fall, and a straight line through a fall in steps (a drive slowing in
    two or three stages) starts before its first step, where the seconds are at the level: over the whole window
    it beat the hinge at the crossing by more than the gain, so a staircase 30-100% deep was dated 2-16 s early
    (round 51's "staircase" tuning seeds: onset within 1 s of 21-60 s ones 17.9%). A hinge starting at or after f
    claims nothing there. `amplitude` is each hinge's fitted fall, `span` its ramp's length."""
    import numpy as np

    t0, f = starts
    k = np.maximum(f - t0, 0).astype(float)
    along = ((siy[f] - siy[t0]) - (t0 - 1) * (sy[f] - sy[t0])) / span  # sum of r.y over t0..f - 1
    energy = k * (k + 1.0) * (2.0 * k + 1.0) / (6.0 * span * span)  # sum of r.r there
    return (t0 >= f) | (along * amplitude > share * amplitude * amplitude * energy)


def _descent_start(
    x, event: tuple[int, int], lo: int, floors: tuple[float, float], cut: tuple[float, float | None]
) -> int:
    """Where the descent into the event (first, last) starts: the sample t0 of the best hinge (the level up to t0,
    a straight fall to a floor at t1, the floor to the event's middle) over t0 from `lo` (at most the event's
    length and `HINGE_REACH` before `first`) to its first second below floors[1] (a deep second: the dip has
    begun by then; -inf: none, t0 at most `first`), when it beats the best hinge starting at `first` by more than
    cut[0] (an earlier start also beats every later one); else `first`. floors[0] is the level. cut[1]: a start
    before `first` only where the seconds before it fall as the hinge says (`_supported`). Every (t0, t1) at
    once from running sums: one hinge's fit is two sums over its seconds."""
    import numpy as np

    first, last = event
    level, deep = floors
    gain, support = cut
    a = max(lo, first - (last - first + 1), first - HINGE_REACH)
    inward = min(int(np.argmax(x[first : last + 1] < deep)), HINGE_REACH)  # 0 when no second is that deep
    if a >= first and inward == 0:
        return first
    middle = max(min((first + last) // 2, first + HINGE_REACH), min(first + inward + 1, last))
    y = x[a : middle + 1] - level
    f, m = first - a, len(y)
    sy = np.concatenate(([0.0], np.cumsum(y)))
    siy = np.concatenate(([0.0], np.cumsum(np.arange(m) * y)))
    t0 = np.arange(f + inward + 1)[:, None]
    t1 = np.arange(f, m)[None, :]
    span = np.maximum(t1 - t0 + 1, 1).astype(float)
    # the hinge r: 0 before t0, (i - t0 + 1) / span from t0 to t1, 1 after; its fit takes (r.y)^2 / (r.r) off
    ramp = (siy[t1 + 1] - siy[t0]) - (t0 - 1) * (sy[t1 + 1] - sy[t0])
    ry = ramp / span + (sy[m] - sy[t1 + 1])
    rr = (span + 1.0) * (2.0 * span + 1.0) / (6.0 * span) + (m - 1 - t1)
    fits = t1 >= t0
    if support is not None:
        fits &= _supported(sy, siy, (t0, f), span, ry / rr, support)
    best = float(np.sum(y * y)) - np.max(np.where(fits, ry * ry / rr, -np.inf), axis=1)
    t = int(np.argmin(best))
    return a + t if t != f and best[f] - best[t] > gain else first
