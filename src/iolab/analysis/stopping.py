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
- Wander: real devices move over tens of seconds (garbage collection, caches,
  other tenants), and a window of a few flat seconds cannot see it: on
  fio-plot's traces (`bench/stopping_replay.py`), points flat within 0.5% for
  their first 5-10 s end their 60 s more than 1.5% away in 6-8% of cases. So
  the interval a stop is decided on adds, in quadrature, a wander term of the
  mean that is `WANDER_READ` (a point that only reads) or `WANDER_WRITE` (one
  that writes: flash rewrites, write caches fill) up to `WANDER_S` kept
  seconds and shrinks as 1/sqrt(seconds) beyond (a level that moves with a
  time constant of about `WANDER_S`). Both were chosen on half of fio-plot's
  points, as the smallest whose stops held the run's mean in at least 95% on
  that half, and are reported on the other half. A writer's term is the ±2%
  target itself at short windows: a writing point is not called known to
  ±2% before more than 20 kept seconds. The intervals the steadiness tests compare
  (parts of one series against each other) keep `WANDER`, 1%.
- Optional stopping: deciding every second on the first window that looks
  narrow is optimistic (a few quiet seconds of a noisy device pass by
  chance: at 3-5% per-second scatter 11-14% of such stops missed ±2%). The
  wander term covers that too: on white noise at 3-5% the stops' intervals
  hold the true mean in 98-99% (`bench/stopping_coverage.py`), so no rule
  that a decision must hold for a while is needed (one that did cost a
  steady device 2 s a point).
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
from dataclasses import dataclass

from iolab.analysis.student_t import t_quantile

MSER_BATCH = 1
MIN_BATCHES = 4
MAX_LAG1 = 0.2
CONFIDENCE = 0.95
WANDER = 0.01  # of the mean, in quadrature: the floor of the intervals the steadiness tests compare
WANDER_READ = 0.017  # of the mean, in quadrature, for a stop: a reading point's wander (module doc)
WANDER_WRITE = 0.02  # the same for a point that writes
WANDER_S = 20.0  # kept seconds up to which the wander term is whole; beyond, it shrinks as 1/sqrt(seconds)
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


def stop_wander(seconds: int, writes: bool) -> float:
    """The wander term of a stop's interval, relative to the mean, over `seconds` kept seconds (module doc)."""
    whole = WANDER_WRITE if writes else WANDER_READ
    return whole * math.sqrt(WANDER_S / max(seconds, WANDER_S))


def batch_interval(values: list[float], confidence: float = CONFIDENCE, wander: float = WANDER) -> Interval | None:
    """The batch-means interval of the series' mean, `wander` of the mean added in quadrature (see the
    module's doc); None when fewer than `MIN_BATCHES` seconds are given."""
    if len(values) < MIN_BATCHES:
        return None
    size = 1
    while len(values) // (size + 1) >= MIN_BATCHES and lag1(batch_means(values, size)) > MAX_LAG1:
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
    cut limited to the first half of the series and a whole number of batches."""
    means = [mean(values[i : i + batch]) for i in range(0, len(values) - batch + 1, batch)]
    if len(means) < 2:
        return 0
    best, best_score = 0, math.inf
    for d in range(min(len(means) // 2, len(means) - MIN_BATCHES) + 1):  # leave enough for an interval
        rest = means[d:]
        m = mean(rest)
        score = sum((v - m) ** 2 for v in rest) / len(rest) ** 2
        if score < best_score - 1e-12 * abs(m * m):
            best, best_score = d, score
    return best * batch


def decide(
    values: list[float],
    target: float,
    min_s: float,
    max_s: float,
    elapsed_s: float | None = None,
    writes: bool = False,
) -> Decision:
    """Stop now? `values` are the per-second rates so far; `target` the relative half-width wanted
    (0.02 = ±2%); `writes` whether the point writes (its wander term, module doc). Before `min_s` never;
    at `max_s` always, saying why the target was not met. `elapsed_s` defaults to the number of seconds
    given."""
    elapsed = len(values) if elapsed_s is None else elapsed_s
    cut = mser_cut(values)
    kept = values[cut:]
    interval = batch_interval(kept, wander=stop_wander(len(kept), writes))
    is_steady = interval is not None and steady(kept, interval) and not level_shift(values[:cut], interval)
    met = interval is not None and is_steady and interval.relative <= target and len(kept) > cut
    at_max = elapsed >= max_s
    if elapsed < min_s or not (met or at_max):
        return Decision(False, "", cut, interval, is_steady)
    reason = "target met" if met else ("not steady" if interval is not None and not is_steady else "target not met")
    return Decision(True, reason, cut, interval, is_steady)
