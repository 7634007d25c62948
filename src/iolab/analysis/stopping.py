"""When a point's number is known: warm-up truncation, a batch-means interval and a trend test.

Pure functions over a per-second rate series (fio's status blocks, one a
second). The runner asks `decide` once a second and stops fio when it says so.

- Warm-up (MSER, White 1997): the series is cut where the standard error of
  the remaining mean is smallest, looking over the first half of the series at
  most. MSER-5 batches five observations first to damp single-I/O noise; each
  of fio's per-second figures is already the mean of thousands of I/Os, so
  here a batch is one second (a 5 s batch could not find a 3 s warm-up in a
  20 s point). A drive that starts fast and settles loses its fast seconds,
  and the run records how many.
- Interval: per-second figures of a device are autocorrelated (a slow second
  is often followed by another), so their plain standard error is too small.
  The interval is the Student t interval of batch means, with the smallest
  batch size (in seconds) whose means show no lag-1 autocorrelation beyond
  0.2 while leaving at least `MIN_BATCHES` batches. A per-second figure is a
  count of whole I/Os, so its variance is never below a count's rounding
  (1/12 I/O²: a floppy's 3, 3, 3, 3 I/Os is not known exactly).
- Drift over the rest of the run (issue 40): the interval a stop prints must
  hold the mean of the WHOLE run it stands in for (`horizon_s`: the job's
  own length), and the seconds seen say nothing about a drift that has not
  happened yet unless they bound it. So a stop's half-width adds
  `drift_term`: the fitted slope of the kept batch means taken whole plus
  `t` times its standard error, times half the seconds left (the lever of a
  line on the whole run's mean), and `warm_up_pull`: how far the seconds
  set aside as warm-up move the whole run's mean from the kept mean (the
  reported rate is the kept seconds'). A flat point is known once its own
  seconds bound the slope tightly enough: at 0.2-0.5% per-second scatter
  about 8-19 s of a 60 s run and 22-57 s of a 5-minute one; a rise of 4.5%
  over five minutes is never called known at 5 s. Both vanish at the run's
  end. On fio-plot's 5-minute reads, stopped at 5 s, the rule before this
  rose about 4.5% by the end and its interval missed the whole run's mean.
- Level changes the seconds seen cannot foresee (issue 40, second round):
  fio-plot's Intel 5-minute reads hold one rate for 50 s, then step up
  2.7%, again near 100 s and 200 s; a stop in the flat start, its drift
  bound narrow, missed the whole run's mean (7 of 40 stops held). Nothing
  in those seconds foretells the steps, so a stop allows for them: the
  level as a random walk of `LEVEL` variance a second (relative to the mean
  squared), whose effect on the whole run's mean is `level_allowance` (t
  standard deviations of the remaining seconds' mean, weighted by their
  share of the run), in quadrature with the rest. `LEVEL` is the mean
  level wander of the 5-minute runs of fio-plot's choose half
  (`bench/stopping_envelope.py`, a variogram of 5 s block means): the mean,
  as the future of a run drawn from runs of different wanders has variance
  E[q] x seconds / 3. It vanishes at the run's end and is small for short
  runs (1% at 10 s of 60 s); a flat 5-minute point stops at about 100 s.
  With it, a level set aside as warm-up no longer forbids a stop: its pull
  on the whole run's mean is in the interval, so a staircase can be known
  once its interval meets the target (`Decision.steady` still says it was
  not one level).
- The run's own evidence (issue 40, third round): `LEVEL` is the mean over
  runs, most of them flat and a few wandering, so a flat run paid for the
  wanderers. `level_variance` mixes the prior with the wander the kept
  seconds show (`trace_wander`, the same variogram of 5 s block means),
  the evidence weighing the share of the run seen and never raising the
  allowance above the prior (a change already seen is priced by the drift
  bound and the warm-up's pull). A flat 5-minute point stops at about
  80 s instead of 100 s; a flat start, a small share of the run, earns
  little, so a staircase's first 50 s do not let it stop
  (`StopParams.level_evidence` switches it off).
- A writer's minimum (issue 40, fourth round): a write rate can hold flat
  to 0.1-0.5% for 8-18 s and then fall (fio-plot's Samsung 860 Pro
  randwrite, stopped at 9 s at ±1.8%, ran 12.6% lower over its minute). Nothing in the flat seconds
  foretells the fall and no level allowance that lets flat writers stop
  early covers it, so a point that writes is not stopped before
  `WRITE_MIN_S` (20 s; the job's own length when shorter): the median
  second at which the choose half's 60 s write runs first fall by 5% or
  more (`bench/stopping_envelope.py`, `first_fall`: 20 s), rounded up to a
  5 s block. Stops of writers after it are judged as before
  (`StopParams.write_min_s` 0 switches it off).
- Wander: besides the drift, a wander term of the mean (`WANDER_READ`,
  `WANDER_WRITE`, in quadrature, whole up to `WANDER_S` kept seconds and
  shrinking as 1/sqrt(seconds) beyond) may widen a stop's interval for
  level moves faster than the drift bound sees. Chosen on half of
  fio-plot's points (`bench/stopping_envelope.py`, split by drive) as the
  smallest whose stops held the whole run's mean in at least 95% of every
  group there, with the drift bound in place: 0 for reads and writes alike.
  (Before issue 40 they were 1.7% and 2.0%, chosen against the first minute
  of each run; `TODAY` keeps that rule for the benches.) The intervals the
  steadiness tests compare (parts of one series against each other) keep
  `WANDER`, 1%.
- Optional stopping: deciding every second on the first window that looks
  narrow is optimistic (a few quiet seconds of a noisy device pass by
  chance). The drift bound's slope uncertainty widens exactly the short
  windows that looks at (`bench/stopping_coverage.py` measures it on white
  noise and a wandering rate).
- A cut as long as what it keeps may be a level, not a warm-up (the level
  shift test below needs four seconds to see one): a rate that fell after
  4 s of an 8 s point was "known" at its second level with the first four
  seconds set aside. So a point is known only once it kept more seconds
  than it set aside.
- Trend: a device that drifts (an SLC cache filling, a drive heating up) is
  never called known, however narrow its interval: the least-squares slope of
  the batch means must not differ from zero at 95%, or its change over the
  window must be smaller than the interval; and the two halves' means must agree
  within their own intervals.
- Level shift: MSER assumes one start-up transient before one steady state. A
  device that holds one rate for a while and then another (an SLC cache
  filling) gives it two steady levels, and the cut then takes the whole first
  level as "warm-up" once the second is as long. So discarded seconds that are
  steady on their own (no trend, halves that agree, at least `MIN_BATCHES`
  seconds; tested without the last, which the change may straddle, after
  their own MSER cut, since a level can follow a start-up, and also half by
  half, since the cut can reach past the change) at a level apart from the
  kept one
  (beyond both intervals) are a change of state, not a warm-up: the point is
  not steady.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

from iolab.analysis.student_t import t_quantile

MSER_BATCH = 1
MIN_BATCHES = 4
MAX_LAG1 = 0.2
CONFIDENCE = 0.95
WANDER = 0.01  # of the mean, in quadrature: the floor of the intervals the steadiness tests compare
WANDER_READ = 0.0  # of the mean, in quadrature, for a stop: a reading point's wander (module doc; chosen, issue 40)
WANDER_WRITE = 0.0  # the same for a point that writes (chosen, issue 40)
WANDER_S = 20.0  # kept seconds up to which the wander term is whole; beyond, it shrinks as 1/sqrt(seconds)
HORIZON_S = 60.0  # the run a stop stands in for when the caller gives none: the runner's default maximum
LEVEL = 3.48e-6  # per-second variance of a run's level, relative to its mean squared (module doc; chosen, issue 40)
LEVEL_BLOCK_S = 5  # seconds a block, for the level wander a run's own seconds show (`trace_wander`)
WRITE_MIN_S = 20.0  # a point that writes is not stopped sooner (module doc; from the choose half, issue 40)
COUNT_VARIANCE = 1 / 12  # of a count of whole I/Os in one second: its rounding


@dataclass(frozen=True)
class Interval:
    """A mean with its confidence half-width, from `batches` batch means of `batch_s` seconds."""

    mean: float
    half_width: float
    batch_s: int
    batches: int

    @property
    def relative(self) -> float:
        """Half-width over the mean (0.02 = ±2%); infinite for a zero mean."""
        return self.half_width / abs(self.mean) if self.mean else math.inf


@dataclass(frozen=True)
class Decision:
    """What `decide` made of a series: stop or go on, and why.

    `reason` is "target met", "target not met" (the interval is still too wide)
    or "not steady" (a trend, or halves that disagree). `discarded` is how many
    leading seconds MSER-5 took for warm-up; `interval` is of the kept seconds.
    """

    stop: bool
    reason: str
    discarded: int
    interval: Interval | None
    steady: bool


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def variance(values: list[float]) -> float:
    """Sample variance (n - 1); 0 for fewer than two values."""
    if len(values) < 2:
        return 0.0
    m = mean(values)
    return sum((v - m) ** 2 for v in values) / (len(values) - 1)


def batch_means(values: list[float], size: int) -> list[float]:
    """Means of consecutive batches of `size` values; the incomplete leading batch is dropped (the
    newest seconds are kept, being nearest the state the point ends in)."""
    if size == 1:  # each value its own batch: mean([v]) is 0 + v (sum's start), without a slice and a call each
        return [(0 + v) / 1 for v in values]
    start = len(values) % size
    return [mean(values[i : i + size]) for i in range(start, len(values), size)]


def lag1(values: list[float]) -> float:
    """Lag-1 autocorrelation; 0 for a constant or too short series."""
    if len(values) < 3:
        return 0.0
    m = mean(values)
    denom = sum((v - m) ** 2 for v in values)
    if denom == 0:
        return 0.0
    return sum((a - m) * (b - m) for a, b in zip(values, values[1:], strict=False)) / denom


@functools.lru_cache(maxsize=512)
def _t(confidence: float, df: int) -> float:
    """The two-sided `confidence` quantile of Student's t (asked for thousands of times a replay)."""
    return t_quantile(1 - (1 - confidence) / 2, df)


def stop_wander(seconds: int, writes: bool, params: StopParams | None = None) -> float:
    """The wander term of a stop's interval, relative to the mean, over `seconds` kept seconds (module doc)."""
    params = params or PARAMS
    whole = params.wander_write if writes else params.wander_read
    return whole * math.sqrt(params.wander_s / max(seconds, params.wander_s))


def batch_interval(values: list[float], confidence: float = CONFIDENCE, wander: float = WANDER) -> Interval | None:
    """The batch-means interval of the series' mean, `wander` of the mean added in quadrature (see the
    module's doc); None when fewer than `MIN_BATCHES` seconds are given."""
    if len(values) < MIN_BATCHES:
        return None
    size, means = 1, batch_means(values, 1)
    while len(values) // (size + 1) >= MIN_BATCHES and lag1(means) > MAX_LAG1:
        size += 1
        means = batch_means(values, size)
    t = _t(confidence, len(means) - 1)
    spread = max(variance(means), COUNT_VARIANCE / size) / len(means)
    centre = mean(values)
    return Interval(centre, math.sqrt(t * t * spread + (wander * centre) ** 2), size, len(means))


def trend_significant(means: list[float], confidence: float = CONFIDENCE) -> tuple[bool, float]:
    """Whether the least-squares slope of `means` differs from zero (two-sided t test), and the fitted
    change from the first to the last value. Fewer than three values show no trend."""
    n = len(means)
    if n < 3:
        return False, 0.0
    xm, ym = (n - 1) / 2, mean(means)
    sxx = sum((i - xm) ** 2 for i in range(n))
    slope = sum((i - xm) * (y - ym) for i, y in enumerate(means)) / sxx
    sse = sum((y - ym - slope * (i - xm)) ** 2 for i, y in enumerate(means))
    se = math.sqrt(sse / (n - 2) / sxx)
    change = slope * (n - 1)
    if se == 0:
        return slope != 0, change
    return abs(slope / se) > _t(confidence, n - 2), change


def steady(values: list[float], interval: Interval) -> bool:
    """No trend worth the name in the kept seconds: see the module's doc."""
    significant, change = trend_significant(batch_means(values, interval.batch_s))
    if significant and abs(change) > interval.half_width:
        return False
    half = len(values) // 2
    first, second = batch_interval(values[:half]), batch_interval(values[half:])
    if first is None or second is None:
        return True
    return abs(first.mean - second.mean) <= first.half_width + second.half_width


def level_shift(discarded: list[float], kept: Interval) -> bool:
    """Whether the discarded seconds hold a steady level of their own, apart from the kept seconds' mean
    (see the module's doc). Tested on all of them and on each half, since the cut can reach past the change
    into the new level. A start-up transient is too short for an interval, or trends."""
    held = discarded[:-1]
    half = len(held) // 2
    return any(_level_apart(part, kept) for part in (held, held[:half], held[half:]))


def _level_apart(values: list[float], kept: Interval) -> bool:
    values = values[mser_cut(values) :]
    head = batch_interval(values)
    if head is None or not steady(values, head):
        return False
    return abs(head.mean - kept.mean) > head.half_width + kept.half_width


def mser_cut(values: list[float], batch: int = MSER_BATCH) -> int:
    """Seconds of warm-up to discard: MSER over batches of `batch` seconds (see the module's doc), the
    cut limited to the first half of the series and a whole number of batches. Suffix sums keep it linear
    in the series' length (the runner asks once a second; a 5-minute point would be quadratic a call)."""
    means = [mean(values[i : i + batch]) for i in range(0, len(values) - batch + 1, batch)]
    if len(means) < 2:
        return 0
    last = min(len(means) // 2, len(means) - MIN_BATCHES)  # leave enough for an interval
    if last < 0:
        return 0
    pivot = means[-1]  # sums of differences from a value near the mean keep the subtraction exact enough
    total = squares = 0.0
    scores: list[float] = []
    for d in range(len(means) - 1, -1, -1):
        v = means[d] - pivot
        total += v
        squares += v * v
        if d <= last:
            n = len(means) - d
            scores.append(max(squares - total * total / n, 0.0) / (n * n))
    scores.reverse()
    m = mean(means)
    best, best_score = 0, math.inf
    for d, score in enumerate(scores):
        if score < best_score - 1e-12 * abs(m * m):
            best, best_score = d, score
    return best * batch


def drift_term(values: list[float], interval: Interval, remaining_s: float) -> float:
    """How far a linear drift the kept seconds cannot rule out moves the whole run's mean over the
    `remaining_s` seconds the stop leaves unrun: the fitted slope of the batch means (per second) taken
    whole, and `t` times its standard error, each times half the remaining time (the lever of a line on the
    mean of the seconds after the stop, which are `remaining_s` of the run's). Zero when nothing remains."""
    if remaining_s <= 0:
        return 0.0
    means = batch_means(values, interval.batch_s)
    n = len(means)
    if n < 3:
        return math.inf
    xm, ym = (n - 1) / 2, mean(means)
    sxx = sum((i - xm) ** 2 for i in range(n)) * interval.batch_s**2
    slope = sum((i - xm) * (y - ym) for i, y in enumerate(means)) * interval.batch_s / sxx
    sse = sum((y - ym - slope * (i - xm) * interval.batch_s) ** 2 for i, y in enumerate(means))
    se = math.sqrt(max(sse / (n - 2), COUNT_VARIANCE / interval.batch_s) / sxx)
    lever = remaining_s / 2
    return abs(slope) * lever + _t(CONFIDENCE, n - 2) * se * lever


def level_allowance(remaining_s: float, horizon_s: float, wander: float) -> float:
    """How far, relative to the mean, the whole run's mean can move through level changes the seconds
    seen cannot foresee: the level as a random walk of `wander` variance a second (relative to the mean
    squared); the mean of the `remaining_s` seconds left wanders with variance `wander` x remaining / 3,
    and weighs remaining / horizon in the whole run's mean. `t` standard deviations of it; zero when
    nothing remains."""
    if remaining_s <= 0 or wander <= 0:
        return 0.0
    share = remaining_s / max(horizon_s, remaining_s)
    return _t(CONFIDENCE, 1000) * share * math.sqrt(wander * remaining_s / 3)


def trace_wander(values: list[float]) -> float:
    """The level wander `values` show: the per-second variance of a random walk their level follows,
    relative to their mean squared, from the variogram of `LEVEL_BLOCK_S`-second block means (the mean
    squared difference of blocks `L` apart, L up to a third of them): a random walk adds `q` x seconds
    apart to a constant (the blocks' own noise), fitted by least squares; 0 when the slope is below zero
    or fewer than six blocks are given.

    It is asked at every stop decision, once a second: the variogram taken lag by lag cost O(blocks²) (46 ms
    at 7,200 s). Here each lag's sum of squared differences is the blocks' sums of squares (prefix sums)
    less twice their autocovariance at that lag, all lags at once by FFT: O(blocks log blocks), ~0.3 ms at
    7,200 s, the same figure to ~1e-12 of the variogram's scale (tests/analysis/test_trace_wander_fast.py)."""
    centre = mean(values) if values else 0.0
    n = len(values) // LEVEL_BLOCK_S
    if n < 6 or centre == 0:
        return 0.0
    import numpy as np  # here: the stopping rules are read by processes that never decide a stop

    kept = np.asarray(values[len(values) - n * LEVEL_BLOCK_S :], dtype=np.float64)
    blocks = kept.reshape(n, LEVEL_BLOCK_S).mean(axis=1) / centre
    deviations = blocks - blocks.mean()  # differences are the same; centred, the sums below cancel least
    lags = np.arange(1, n // 3 + 1)
    squares = np.concatenate(([0.0], np.cumsum(deviations * deviations)))
    size = 1 << int(2 * n - 1).bit_length()  # no wrap-around: the autocovariance of every lag below n
    spectrum = np.fft.rfft(deviations, size)
    covariance = np.fft.irfft(spectrum * spectrum.conj(), size)[lags]
    # sum over i < n - k of (b[i + k] - b[i])^2 = (sum of squares from k) + (sum of squares below n - k) - 2 R(k)
    gamma = (squares[n] - squares[lags] + squares[n - lags] - 2 * covariance) / (n - lags)
    xs = lags * float(LEVEL_BLOCK_S)
    xm, ym = xs.mean(), gamma.mean()
    sxx = float(((xs - xm) ** 2).sum())
    return max(float(((xs - xm) * (gamma - ym)).sum()) / sxx, 0.0)


def level_variance(kept: list[float], elapsed_s: float, horizon_s: float, params: StopParams) -> float:
    """The level wander a stop allows for (module doc): `params.level` (the prior, from other runs) with,
    when `params.level_evidence`, the kept seconds' own wander (`trace_wander`) weighing the share of the
    run they cover. The evidence may lower the allowance of a flat run, never raise it above the prior: a
    level change already seen is priced by the drift bound and the warm-up's pull."""
    if not params.level_evidence or params.level <= 0:
        return params.level
    seen = min(max(elapsed_s / horizon_s, 0.0), 1.0) if horizon_s > 0 else 1.0
    return params.level * (1 - seen) + min(trace_wander(kept), params.level) * seen


def whole_run_interval(
    values: list[float], cut: int, interval: Interval, remaining_s: float, horizon_s: float, level: float
) -> Interval:
    """The kept seconds' interval widened to hold the whole run's mean (module doc): the drift bound and
    the warm-up's pull added to it, the level allowance in quadrature (an independent source); `level` the
    wander allowed for (`level_variance`)."""
    kept = values[cut:]
    drift = drift_term(kept, interval, remaining_s) + warm_up_pull(values[:cut], interval.mean, horizon_s)
    wander = abs(interval.mean) * level_allowance(remaining_s, horizon_s, level)
    return replace(interval, half_width=math.hypot(interval.half_width + drift, wander))


def warm_up_pull(discarded: list[float], kept_mean: float, horizon_s: float) -> float:
    """How far the seconds set aside as warm-up move the whole run's mean from the kept seconds' mean: the
    reported rate is the kept seconds', and the interval holds the whole run's mean as well (a 30% faster
    first 5 s moves a 60 s run's mean 2.5%)."""
    if not discarded:
        return 0.0
    return abs(sum(discarded) - len(discarded) * kept_mean) / max(horizon_s, len(discarded))


def _steadiness(values: list[float], cut: int, interval: Interval | None, params: StopParams) -> tuple[bool, bool]:
    """(steady, may be known): steady is one level after the cut and none set aside before it; with the
    drift bound, a level set aside is priced by its pull on the whole run's mean, so the point may still be
    known (its interval meeting the target) though not steady (module doc)."""
    if interval is None or not steady(values[cut:], interval):
        return False, False
    is_steady = not level_shift(values[:cut], interval)
    return is_steady, is_steady or params.drift


@dataclass(frozen=True)
class StopParams:
    """The rule's tunable parts (module doc): the wander terms and whether a stop must bound the drift over
    the rest of the run. `TODAY` is the rule before issue 40 (no drift bound), kept for the benches that
    compare against it."""

    wander_read: float = WANDER_READ
    wander_write: float = WANDER_WRITE
    wander_s: float = WANDER_S
    drift: bool = True
    level: float = LEVEL
    level_evidence: bool = True
    write_min_s: float = WRITE_MIN_S


PARAMS = StopParams()
TODAY = StopParams(
    wander_read=0.017, wander_write=0.02, wander_s=20.0, drift=False, level=0.0, level_evidence=False, write_min_s=0.0
)


def least_seconds(min_s: float, max_s: float, writes: bool, params: StopParams) -> float:
    """The seconds before which no stop is made: `min_s`, and for a point that writes its minimum
    (`params.write_min_s`: a write rate may hold flat, then fall; module doc), never past `max_s`."""
    return max(min_s, min(params.write_min_s, max_s)) if writes else min_s


def decide(
    values: list[float],
    target: float,
    min_s: float,
    max_s: float,
    elapsed_s: float | None = None,
    writes: bool = False,
    horizon_s: float | None = None,
    params: StopParams = PARAMS,
) -> Decision:
    """Stop now? `values` are the per-second rates so far; `target` the relative half-width wanted
    (0.02 = ±2%); `writes` whether the point writes (its wander term, module doc); `horizon_s` the length of
    the run the stop stands in for, whose mean the interval must hold (default `max_s`, or `HORIZON_S` when
    that is unbounded). Before `min_s` (a writer: `least_seconds`) never; at `max_s` always, saying why the
    target was not met.
    `elapsed_s` defaults to the number of seconds given."""
    elapsed = len(values) if elapsed_s is None else elapsed_s
    min_s = least_seconds(min_s, max_s, writes, params)
    horizon = horizon_s if horizon_s is not None else (max_s if math.isfinite(max_s) else HORIZON_S)
    cut = mser_cut(values)
    kept = values[cut:]
    interval = batch_interval(kept, wander=stop_wander(len(kept), writes, params))
    if interval is not None and params.drift:
        level = level_variance(kept, elapsed, horizon, params)
        interval = whole_run_interval(values, cut, interval, horizon - elapsed, horizon, level)
    is_steady, known = _steadiness(values, cut, interval, params)
    met = interval is not None and known and interval.relative <= target and len(kept) > cut
    at_max = elapsed >= max_s
    if elapsed < min_s or not (met or at_max):
        return Decision(False, "", cut, interval, is_steady)
    reason = "target met" if met else ("not steady" if interval is not None and not is_steady else "target not met")
    return Decision(True, reason, cut, interval, is_steady)
