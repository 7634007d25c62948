"""How aggregate bandwidth grows with the number of devices run together.

Efficiency = aggregate / what the set's own members gave alone (their sum),
so a one-drive set is measured against that drive and not against the
array's average drive (a slow drive alone read 229% of "one device" before).
Where a member was not measured alone, and with reference "best", the ideal
is n x the mean (or the best) of the devices measured alone. A larger set
whose aggregate is lower than that of a smaller set it contains, by more than
`tolerance`, is a non-monotonic point: adding drives made the array slower
(in a public 30-SSD study, 30 drives gave 127 GB/s, 28 gave 131 and 24 gave
132). A set is compared only with its own members: a set that lacks the
fastest drive is no evidence against a set that never held it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from iolab.analysis.student_t import t_quantile


@dataclass(frozen=True)
class ScalingParams:
    reference: str = "mean"  # "mean" or "best" of the single-device bandwidths
    tolerance: float = 0.02  # run-to-run noise: smaller drops are not called a regression
    low_efficiency: float = 0.80  # below this, the set is reported as not scaling


@dataclass(frozen=True)
class ScalingRow:
    devices: tuple[str, ...]
    aggregate: float
    ideal: float  # the members' bandwidths alone, summed (else n x reference)
    efficiency: float

    @property
    def n(self) -> int:
        return len(self.devices)


@dataclass(frozen=True)
class ScalingDrop:
    """A set of devices that was slower than a smaller set of its own members."""

    larger: tuple[str, ...]
    larger_aggregate: float
    smaller: tuple[str, ...]
    smaller_aggregate: float
    drop: float  # 1 - larger / smaller


@dataclass(frozen=True)
class ScalingReport:
    params: ScalingParams
    reference: float = 0.0  # one device's bandwidth the efficiencies divide by
    rows: list[ScalingRow] = field(default_factory=list)
    drops: list[ScalingDrop] = field(default_factory=list)
    evaluated: bool = True
    reason: str = ""


def scaling_table(
    sets: Sequence[tuple[Sequence[str], float]],
    single: Mapping[str, float] | None = None,
    params: ScalingParams | None = None,
) -> ScalingReport:
    """Rows of (devices run together, aggregate bandwidth), sorted by device count.

    `single` is each device's bandwidth alone; without it the one-device sets
    in `sets` are used.
    """
    import numpy as np

    params = params or ScalingParams()
    if params.reference not in ("mean", "best"):
        raise ValueError(f"reference must be 'mean' or 'best', not {params.reference!r}")
    clean = [(tuple(d), float(a)) for d, a in sets if len(d) > 0 and np.isfinite(a)]
    if single is None:
        single = {d[0]: a for d, a in clean if len(d) == 1}
    singles = [v for v in single.values() if np.isfinite(v) and v > 0]
    if not clean:
        return ScalingReport(params, evaluated=False, reason="no device sets with a measured bandwidth")
    if not singles:
        return ScalingReport(params, evaluated=False, reason="no device measured alone, so no reference")
    ref = float(np.mean(singles)) if params.reference == "mean" else float(np.max(singles))

    def ideal(devices: tuple[str, ...]) -> float:
        alone = [v for d in devices if (v := single.get(d)) is not None and np.isfinite(v) and v > 0]
        if params.reference == "mean" and len(alone) == len(devices):  # every device has its own figure
            return float(sum(alone))
        return len(devices) * ref

    rows = sorted((ScalingRow(d, a, ideal(d), a / ideal(d)) for d, a in clean), key=lambda r: (r.n, -r.aggregate))
    drops = []
    for row in rows:
        members = set(row.devices)
        contained = [s for s in rows if s.n < row.n and set(s.devices) <= members]
        best = max(contained, key=lambda s: s.aggregate, default=None)
        if best is not None and row.aggregate < (1.0 - params.tolerance) * best.aggregate:
            drops.append(
                ScalingDrop(
                    row.devices, row.aggregate, best.devices, best.aggregate, 1.0 - row.aggregate / best.aggregate
                )
            )
    return ScalingReport(params, reference=ref, rows=rows, drops=drops)


MIN_DROP = 0.05  # the least drop along a sweep worth a finding, whatever the noise
NO_NOISE_DROP = 0.10  # the drop needed where nothing measures the noise (one repeat, no per-second series)
SWEEP_ALARM = 0.05  # false alarms a clean sweep at most, one-sided, shared among its pairs (Bonferroni)
SCATTER_MIN_POINTS = 7  # a sweep's own scatter is read off at least 5 second differences
LARGE_DF = 200.0  # the degrees of freedom of an error from per-second batch means (many once pooled)


@dataclass(frozen=True)
class SweepLevel:
    """One value of a swept parameter (numjobs, iodepth): the mean bandwidth over its repeats, that mean's
    relative standard error (None: nothing measured it; infinite: one repeat with too few seconds) and the
    error's degrees of freedom (repeats - 1; `LARGE_DF` for an error from a run's seconds)."""

    value: int
    mean: float
    error: float | None
    df: float = LARGE_DF


@dataclass(frozen=True)
class SweepDrop:
    """The first value whose bandwidth fell below the best of the smaller values by more than the noise
    allows. `measured` is False where the fall could not be judged (a point measured once kept too few
    seconds to know its noise): a finding of not evaluated, not of a drop."""

    value: int
    best_value: int
    drop: float  # 1 - mean / best mean
    tolerance: float
    measured: bool = True


def sweep_tolerance(levels: Sequence[SweepLevel]) -> float | None:
    """The drop a sweep's noise allows (None where a point's noise is unknown or unmeasurable).

    A sweep's points share a device and a setup, so their relative errors are pooled (root mean square,
    degrees of freedom summed): two repeats a point give a 1-df error each, too unsteady to judge a
    difference alone, but nine points give nine. Each value is compared with the best smaller one, which
    is the largest of its differences with every smaller value, so the alarm is shared over all n(n-1)/2
    pairs (Bonferroni; over the n - 1 comparisons alone, the best's selection let flat plateaus alarm 5-8%
    at a nominal 5%): Student's t on the pooled df. A 2-sigma test per comparison, each error its own,
    alarmed on 65% of flat 9-point sweeps with two repeats at 8% noise, and on 5-12% of the envelope's
    clean sweeps at 5-10% noise with one or two repeats (bench/scaling_envelope.py)."""
    errors = [level.error for level in levels if level.error is not None and math.isfinite(level.error)]
    if len(errors) < len(levels) or len(levels) < 2:
        return None
    pooled = math.sqrt(sum(e * e for e in errors) / len(errors))
    df = max(1.0, sum(level.df for level in levels))
    pairs = len(levels) * (len(levels) - 1) / 2
    z = t_quantile(1 - SWEEP_ALARM / pairs, df)
    return max(MIN_DROP, z * pooled * math.sqrt(2))


def sweep_scatter(levels: Sequence[SweepLevel]) -> tuple[float, int] | None:
    """A point's relative noise read off the sweep itself, and how many second differences it rests on:
    the robust scale of the second differences of its log means (a smooth curve's are near 0, noise gives
    each a variance of 6 sigma^2; the median shrugs off the two or three a knee or a drop makes). None
    below `SCATTER_MIN_POINTS` points."""
    logs = [math.log(level.mean) for level in levels if level.mean > 0]
    if len(logs) < SCATTER_MIN_POINTS:
        return None
    second = [abs(a - 2 * b + c) for a, b, c in zip(logs, logs[1:], logs[2:], strict=False)]
    return statistics.median(second) / 0.6745 / math.sqrt(6), len(second)


def once_tolerance(levels: Sequence[SweepLevel], measured: float | None) -> float | None:
    """Where a point was run once, its error (from its own seconds, or none) cannot see the noise between
    runs; the drop must then also pass what the sweep's own scatter allows (Student's t on as many degrees
    of freedom as second differences, at the sweep's pair share). None where every point has repeats."""
    if all(level.error is not None and level.df < LARGE_DF for level in levels):
        return measured
    scatter = sweep_scatter(levels)
    floor = measured if measured is not None else NO_NOISE_DROP
    if scatter is None:
        return floor
    pairs = len(levels) * (len(levels) - 1) / 2
    scale, count = scatter
    return max(floor, t_quantile(1 - SWEEP_ALARM / pairs, count) * scale * math.sqrt(2))


def sweep_allowed(levels: Sequence[SweepLevel]) -> float:
    """The drop a sweep must show to be named: what its pooled noise allows, what its own scatter allows
    where a point was run once (`once_tolerance`), `NO_NOISE_DROP` where nothing measures the noise."""
    allowed = once_tolerance(levels, sweep_tolerance(levels))
    return allowed if allowed is not None else NO_NOISE_DROP


def sweep_drop(levels: Sequence[SweepLevel]) -> SweepDrop | None:
    """The first drop along a sweep sorted by value (RES-NONMONOTONIC-SCALING): each value against the best
    of the smaller ones, the drop needing more than `sweep_tolerance` (`NO_NOISE_DROP` where a point's noise
    is unknown) and, where a point was run once, than the sweep's own scatter allows (`once_tolerance`: on
    the envelope's clean sweeps run once, its seconds' error alone alarmed 6-19%, and the fixed 10% 14-43%
    at 2-10% noise). A point measured once with too few seconds to know its noise is not judged."""
    allowed = sweep_allowed(levels)
    best: SweepLevel | None = None
    for level in levels:
        if best is not None and level.value > best.value:
            found = _judge(level, best, allowed)
            if found is not None:
                return found
        if best is None or level.mean > best.mean:
            best = level
    return None


def _judge(level: SweepLevel, best: SweepLevel, allowed: float) -> SweepDrop | None:
    """One value against the best smaller one: a drop beyond `allowed`, or one past `MIN_DROP` that a
    point without a knowable noise leaves unjudged."""
    drop = 1 - level.mean / best.mean if best.mean > 0 else 0.0
    if math.inf in (level.error, best.error) and drop > MIN_DROP:
        return SweepDrop(level.value, best.value, drop, math.inf, measured=False)
    return SweepDrop(level.value, best.value, drop, allowed) if drop > allowed else None


@dataclass(frozen=True)
class SweepPower:
    """A drop past `MIN_DROP` that the sweep's noise let pass unnamed (`unseen_drop`): what the finding of
    no drop could not have seen. `noise` is a point's relative standard error (pooled over the sweep, else
    read off its scatter); None where nothing measures it."""

    value: int
    best_value: int
    drop: float
    allowed: float
    points: int
    noise: float | None


def unseen_drop(levels: Sequence[SweepLevel]) -> SweepPower | None:
    """The largest drop along a sweep (each value against the best smaller one) that is more than
    `MIN_DROP`, a practical effect, yet no more than the noise allows (`sweep_allowed`): a drop of that size
    is below what these points at this noise can show, and "no drop" must say so rather than pass. None
    where no drop is that large, where `sweep_drop` names one, or where a point's noise is unknowable."""
    if sweep_drop(levels) is not None or any(level.error == math.inf for level in levels):
        return None
    largest = _largest_drop(levels)
    if largest is None or largest[2] <= MIN_DROP:
        return None
    return SweepPower(*largest, sweep_allowed(levels), len(levels), _point_noise(levels))


def _largest_drop(levels: Sequence[SweepLevel]) -> tuple[int, int, float] | None:
    """(value, best smaller value, drop) of the largest drop of a value below the best smaller one."""
    drops = []
    best: SweepLevel | None = None
    for level in levels:
        if best is not None and level.value > best.value and best.mean > 0:
            drops.append((level.value, best.value, 1 - level.mean / best.mean))
        if best is None or level.mean > best.mean:
            best = level
    return max(drops, key=lambda d: d[2], default=None)


def _point_noise(levels: Sequence[SweepLevel]) -> float | None:
    """A point's relative standard error: the sweep's pooled one where every point has one, else its own
    scatter (`sweep_scatter`), else None."""
    errors = [level.error for level in levels if level.error is not None and math.isfinite(level.error)]
    if len(errors) == len(levels) and errors:
        return math.sqrt(sum(e * e for e in errors) / len(errors))
    scatter = sweep_scatter(levels)
    return None if scatter is None else scatter[0]
