"""How far below its own run a window of a few seconds falls by chance, read from the run's own windows.

Why: the dip test (doctor/rules/telemetry) compares an event's mean with a cut that reads the mean of a few
seconds as Gaussian. A run whose seconds take heavy-tailed shocks (a Student t3 shock, then an AR(1) decay
second: a 2 s "ramp") has far more windows deep below its level than a Gaussian allows; over an hour's
thousands of places where one could start, issue 40's long-run scenario had 2.2 false dips per t3 run.

The tail is fitted to the run itself, near where its data end: the run's seconds outside events are cut into
blocks of the event's length, each block's value the lowest mean of `length` seconds in a row starting in it
(the scan an event is found by); the `TOP` lowest of those give an exponential tail (the peaks-over-threshold
method with the shape at zero: threshold the TOP-th lowest, scale from their median excess), read at the rules'
chance per block. The extrapolation is short, from about one block in a hundred to one in a hundred
thousand, so no distribution is assumed where the run shows none: a Gaussian run's own extremes give a floor
close to the Gaussian cut, a heavy-tailed run's give one as far out as its shocks reach. Fitting a Student t
to two quantiles instead (tried) read a Gaussian run of 1,300 s as t6 by chance and put its floor three
times beyond its deepest window. Runs with fewer than `MIN_BLOCKS` blocks keep the Gaussian cut alone. Read from
a few hundred blocks the floor lies beyond a Gaussian run's own tail (an exponential's hazard does not grow),
so the rules read it only where the run's seconds take heavier shocks than a Gaussian's (`heavier_than_gaussian`).

The same tail says how many windows as deep as a value the run holds by chance (`Tail.expected_below`): a
drop that recurs is judged there (doctor/rules/telemetry), its own windows left out of the fit, since drops
that recur make a tail of their own (issue 40: a Kingston SSD's garbage collection every 515 s over 3.3 h
set the floor its own drops were judged against, and none was reported).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

NO_WORK = 0.01  # a second of no work, on the log scale of the run's own tail: this share of the run's median
TOP = 10  # the lowest blocks the tail is fitted to
# Blocks (seconds outside events / the event's length) before the tail is read: 100, chosen on the long-run
# scenario's tuning seeds 70,000-70,099 (false per t3 run 0.11 at 60, 0.15 at 150; recall alike). The median
# excess over the mean excess, on tuning seeds 40-639 of the main space: eligible 2 s dips found 98.4% (as
# without the tail) against 95.1%, false findings per t3 run 0.148 against 0.159 (0.222 without the tail).
MIN_BLOCKS = 100
# The tail is read only in runs whose seconds take shocks heavier than a Gaussian's (`heavier_than_gaussian`):
# more innovations past GAUSSIAN_SDS robust sd below the median than a Gaussian puts there, at a Poisson chance
# below GAUSSIAN_ALARM. Chosen on the "2 s" scenario's tuning seeds 3,000,000-3,002,999 and the main space's
# clean twins 40-1,039 from 3.5 sd at 0.01 and 4 sd at 0.01 and 0.05: 4 sd at 0.01 took none of the Gaussian
# runs' 2 s dips 30-60% deep (7 before) for one more false finding in 1,000 clean runs (3.5 sd and 0.05 each left
# 2; 3.5 sd added one more false finding).
GAUSSIAN_SDS = 4.0
GAUSSIAN_ALARM = 0.01


@dataclass(frozen=True)
class Tail:
    """An exponential lower tail of a run's block lows: `TOP` of its `blocks` lie at or below `threshold`."""

    threshold: float
    scale: float
    blocks: int

    def floor(self, chance_per_block: float) -> float:
        """The value the run's blocks fall below with probability `chance_per_block` each."""
        return self.threshold - self.scale * math.log(max(1.0, TOP / (self.blocks * min(1.0, chance_per_block))))

    def expected_below(self, value: float, beyond: int = 0) -> float:
        """How many of the run's blocks lie at or below `value` by this tail, when `beyond` further blocks
        (left out of the fit) are taken to be drawn from it too: they lie below the threshold as well."""
        if value >= self.threshold:
            return float(TOP + beyond) * (1.0 + (value - self.threshold) / max(self.scale, 1e-12))
        if self.scale <= 0.0:
            return 0.0
        return (TOP + beyond) * math.exp(-(self.threshold - value) / self.scale)


def log_values(values):
    """(ln of each value, whether it is usable): a second of no work counts as NO_WORK of the median of the
    positive ones, in an event and in the run's windows alike (a run that stops for a second now and then
    shows it in its own tail); NaN (a gap) is not usable."""
    import numpy as np

    v = np.asarray(values, dtype=float)
    usable = np.isfinite(v)
    positive = v[usable & (v > 0)]
    floor = NO_WORK * float(np.median(positive)) if len(positive) else 1.0
    return np.log(np.maximum(np.where(usable, v, 0.0), floor)), usable


def during(t, event):
    """Which of the seconds ending at `t` lie in `event` (a Dip: after the start of the seconds it was detected on,
    up to their end)."""
    start, end = event.low()
    return (t > start) & (t <= end)


def outside(t, usable, events):
    """The usable seconds ending at `t` outside every one of `events`: where the run's own windows are read."""
    quiet = usable.copy()
    for event in events:
        quiet &= ~during(t, event)
    return quiet


def runs_of(logs, quiet) -> list:
    """The stretches of `logs` where `quiet` (a boolean mask) holds, in order: the run's seconds outside events."""
    import numpy as np

    edges = np.flatnonzero(np.diff(np.concatenate(([0], np.asarray(quiet, dtype=int), [0]))))
    return [logs[a:b] for a, b in zip(edges[::2], edges[1::2], strict=True)]


def block_lows(runs, length: int):
    """For each run (an array of log values) cut into blocks of `length` samples, the lowest mean of `length`
    samples in a row starting in each block, together (a run shorter than `length` gives none)."""
    import numpy as np

    out = []
    for run in runs:
        if len(run) < length:
            continue
        c = np.concatenate(([0.0], np.cumsum(run)))
        means = (c[length:] - c[:-length]) / length
        whole = len(means) // length * length
        if whole:
            out.append(means[:whole].reshape(-1, length).min(axis=1))
    return np.concatenate(out) if out else np.empty(0)


def fit(runs, length: int) -> Tail | None:
    """The exponential tail of the runs' block lows (`block_lows`), or None when they hold fewer than
    `MIN_BLOCKS` blocks."""
    import numpy as np

    lows = block_lows(runs, length)
    if len(lows) < MIN_BLOCKS:
        return None
    lowest = np.sort(lows)[:TOP]
    threshold = float(lowest[-1])
    # an exponential's scale from the median excess (its mean, the maximum-likelihood scale, let one other
    # deep event among the ten, a real dip or the run's largest shock, push the floor past a dip beside it)
    scale = float(np.median(threshold - lowest[:-1])) / math.log(2.0)
    return Tail(threshold, scale, len(lows))


def chance_floor(runs, length: int, chance: float) -> float | None:
    """The mean of `length` samples in a row that the runs' own windows (outside events) fall below with
    probability `chance` per place an event could start, by the exponential tail of their `TOP` lowest
    blocks; None when the runs hold fewer than `MIN_BLOCKS` blocks."""
    tail = fit(runs, length)
    return None if tail is None else tail.floor(chance * length)


def poisson_at_least(count: int, mean: float) -> float:
    """P(N >= count) for N Poisson with this mean: the chance a run holds `count` windows as deep by chance."""
    if count <= 0:
        return 1.0
    if mean <= 0.0:
        return 0.0
    term = total = math.exp(-mean)
    for i in range(1, count):
        term *= mean / i
        total += term
    return max(0.0, 1.0 - total)


def heavier_than_gaussian(runs, sds: float = GAUSSIAN_SDS, alarm: float = GAUSSIAN_ALARM) -> bool:
    """Whether the runs' seconds (arrays of log values) take shocks heavier than a Gaussian's: more of their
    AR(1) innovations (each second less the run's lag-1 correlation times the one before, about the median)
    lie `sds` robust sd (1.4826 MAD) below the median than a Gaussian puts there, at a Poisson chance below
    `alarm`. A run with no second usable in a row counts as heavy (the tail decides, as before).

    Why: the exponential tail (`fit`) is read from the ten lowest of a few hundred blocks out to about one in
    10^5, and a Gaussian run's own tail is lighter than an exponential there (its hazard grows), so on a
    Gaussian run the floor over-reaches the Gaussian cut, which is exact for it: issue 40's 2 s dips 30-60%
    deep fell inside the run's own tail in Gaussian runs (7 of 954 eligible 2 s dips on the tuning seeds
    3,000,000-3,002,999; a Gaussian run of 343 s, sd 4.2%, a ramp 8.8 sd of a 2 s mean deep, 0.1% short of
    the floor). The innovations, not the seconds: all of a run's seconds are read (hundreds, where the tail
    reads ten blocks), so a Student t3 run shows its shocks (1 in 100 of them past 4 robust sd, against 3 in
    100,000 of a Gaussian's) whatever its correlation. A gate on the run's single lowest window (tried in
    issue 40's fourth look) read many t3 runs as Gaussian and raised false findings per clean run."""
    from statistics import NormalDist

    import numpy as np

    runs = [np.asarray(r, dtype=float) for r in runs if len(r) >= 2]
    if not runs:
        return True
    centre = float(np.median(np.concatenate(runs)))
    residuals = [r - centre for r in runs]
    square = sum(float(np.sum(r * r)) for r in residuals)
    rho = sum(float(np.sum(r[1:] * r[:-1])) for r in residuals) / square if square > 0 else 0.0
    shocks = np.concatenate([r[1:] - min(max(rho, 0.0), 0.95) * r[:-1] for r in residuals])
    middle = float(np.median(shocks))
    spread = 1.4826 * float(np.median(np.abs(shocks - middle)))
    if spread <= 0.0:
        return True  # most seconds alike (quantised counts): no Gaussian to read them by
    count = int(np.sum(shocks < middle - sds * spread))
    return poisson_at_least(count, len(shocks) * NormalDist().cdf(-sds)) < alarm
