"""Drops that recur inside one run: several events of about the same depth and length (garbage collection every
few minutes, a disk's periodic stalls), read as one pattern: how many, how often, how deep, how long.

Why: each drop alone is judged against the run's own windows (doctor/rules/telemetry), and drops that recur
make part of that tail themselves: issue 40's real traces (a Kingston SSD's garbage collection every 515 s over
3.3 h, a hard disk's stalls every 15-60 s) lost every finding once the tail was fitted with them in. What the
pattern is, is decided here from the segmentation's events (`analysis.dips`); whether it is beyond the run's
own noise, in the rule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median as _median

from iolab.analysis.dips import Dip

MIN_DROPS = 3  # events a pattern holds: two alike are a coincidence as often as a pattern
DEPTH_RATIO = 2.0  # events alike: their mean log drops within this factor of one another's ...
LENGTH_RATIO = 3.0  # ... and their lengths within this one
REGULAR = 0.25  # intervals regular when the middle half of them lies within this share of their median
# the share of a pattern's alike drops that must each stand out of the run alone (`standing`), at least MIN_DROPS;
# those that do not go back among the run's windows and the rest are judged again. 1.0: every one, else no pattern
# (before rec63: 218 real drops of a 2-hour run lost their pattern, and with it every finding, to 7 weak pieces of
# them). 0 chosen on the recurring scenario's tuning seeds 1,020,000-1,020,119 from 0, 0.5, 0.67 by the rule in
# docs/dips.md (rec63): eligible drops found 2,510 -> 2,699 / 2,696 / 2,696 of 3,003, clean twins the same at all
STAND_SHARE = 0.0


@dataclass(frozen=True)
class Pattern:
    """Drops alike in one run, in time order."""

    drops: tuple[Dip, ...]

    @property
    def intervals(self) -> list[float]:
        onsets = [d.onset_s for d in self.drops]
        return [b - a for a, b in zip(onsets, onsets[1:], strict=False)]

    @property
    def period_s(self) -> float | None:
        """The median interval between onsets when the middle half of the intervals lies within REGULAR of it
        (a drop missed or merged now and then leaves the pattern regular); None when they scatter."""
        gaps = sorted(self.intervals)
        if len(gaps) < 2:
            return None
        median = _median(gaps)
        quarter = len(gaps) // 4
        middle = gaps[quarter : len(gaps) - quarter]
        if median > 0 and all(abs(g - median) <= REGULAR * median for g in middle):
            return median
        return None

    @property
    def depth(self) -> float:
        return _median([d.depth for d in self.drops])

    @property
    def mean_drop(self) -> float:
        return _median([d.mean_drop for d in self.drops])

    @property
    def duration_s(self) -> float:
        return _median([d.duration_s for d in self.drops])


def _log_drop(dip: Dip) -> float:
    """-ln(1 - mean drop): the drop on the log scale throughput's noise is symmetric on."""
    return -math.log(max(1.0 - dip.mean_drop, 1e-6))


def _like(event: Dip, seed: Dip) -> bool:
    """Whether `event` is alike `seed`: its mean log drop within DEPTH_RATIO, its length within LENGTH_RATIO."""
    return abs(math.log(_log_drop(event) / _log_drop(seed))) <= math.log(DEPTH_RATIO) and abs(
        math.log(event.duration_s / seed.duration_s)
    ) <= math.log(LENGTH_RATIO)


def alike(events: Sequence[Dip]) -> Pattern | None:
    """The largest set of transient events alike in depth and length (DEPTH_RATIO, LENGTH_RATIO of one of
    them), the deeper on a tie; None when it holds fewer than MIN_DROPS. A drop the run ended during
    ("unended") is one of them: the pattern went on to the end."""
    transients = [e for e in events if e.kind != "step" and e.mean_drop > 0 and e.duration_s > 0]
    best: list[Dip] = []
    for seed in transients:
        group = [e for e in transients if _like(e, seed)]
        if (len(group), sum(map(_log_drop, group))) > (len(best), sum(map(_log_drop, best))):
            best = group
    if len(best) < MIN_DROPS:
        return None
    return Pattern(tuple(sorted(best, key=lambda d: d.onset_s)))


@dataclass(frozen=True)
class Standing:
    """How a pattern stands against its run's own windows of its length (`window_s` seconds)."""

    pattern: Pattern
    window_s: float
    chance: float | None  # that the run holds this many windows as deep by chance; None: too short to fit a tail
    alone_depth: float | None  # the mean drop one window of `window_s` needs to stand out of the run alone
    each_alone: bool = False  # whether every drop stands out of the run's windows outside the pattern alone


def standing(
    times: Sequence[float], values: Sequence[float], pattern: Pattern, chance_per_run: float, others: Sequence[Dip] = ()
) -> Standing:
    """The pattern's drops against the run's windows outside them and the `others` events (confirmed drops not
    alike, as a slow first 270 s: a level of its own, not the run's chance windows) by `window_tail`: the
    exponential tail of the run's block lows, fitted without them, says how many windows as deep as the pattern's shallowest
    drop the run holds by chance, counting the drops as drawn from it too (so a run's own deepest windows, if
    they are the drops, stand at about even odds); the chance that many or more come by chance is Poisson.
    A drop's value is its lowest window of the pattern's length (the scan the blocks are read by). Each drop
    counted must also stand out alone (`each_alone`): the heavy-tailed shocks of a clean run (issue 40's t3 noise)
    gave groups of 4-9 alike ones beyond the Poisson count, each within 0.4-0.7 of the floor one drop needs at
    its weakest, where the Kingston SSD's and the hard disk's weakest drops stood 2x beyond it. The drops that do
    not go back among the run's windows and the pattern of the rest (at least MIN_DROPS and STAND_SHARE of them)
    is judged again: asking it of every drop lost a pattern of hundreds to a few weak pieces of them (rec63)."""
    import numpy as np

    from iolab.analysis import window_tail

    t = np.asarray(times, dtype=float)
    logs, usable = window_tail.log_values(values)
    interval = float(np.median(np.diff(t))) if len(t) > 1 else 1.0
    per_place = chance_per_run / max(1, len(t))
    floor = max(MIN_DROPS, STAND_SHARE * len(pattern.drops))
    while True:
        inside = [usable & window_tail.during(t, d) for d in pattern.drops]
        length = max(1, int(round(_median([float(i.sum()) for i in inside]))))
        quiet = window_tail.outside(t, usable, [*pattern.drops, *others])
        runs = window_tail.runs_of(logs, quiet)
        tail = window_tail.fit(runs, length)
        if tail is None:
            return Standing(pattern, length * interval, None, None)
        stands = [not i.sum() or _alone(logs[i], runs, per_place) for i in inside]
        if all(stands):
            break
        # the drops that do not stand alone go back among the run's windows (a thicker tail for the rest, never a
        # thinner one) and the rest are judged again, until every drop left stands or too few are left
        kept = tuple(d for d, ok in zip(pattern.drops, stands, strict=True) if ok)
        if len(kept) < floor:
            return Standing(pattern, length * interval, 1.0, None, False)
        pattern = Pattern(kept)
    drops = [logs[i] for i in inside if i.sum()]
    shallowest = max(_lowest_window(d, length) for d in drops)
    chance = window_tail.poisson_at_least(len(drops), tail.expected_below(shallowest, beyond=len(drops)))
    alone = 1.0 - math.exp(tail.floor(per_place * length) - float(np.median(logs[quiet])))
    return Standing(pattern, length * interval, chance, alone, True)


def _alone(drop, runs, per_place: float) -> bool:
    """Whether a drop's mean lies beyond the floor of the runs' own windows of its length (`window_tail`) at
    `per_place`: the test one dip alone is put to, with the pattern's other drops left out of the tail (too few
    windows of its length to fit one: the cut it passed stands, as for a dip)."""
    from iolab.analysis import window_tail

    floor = window_tail.chance_floor(runs, len(drop), per_place)
    return floor is None or float(drop.mean()) < floor


def _lowest_window(logs, length: int) -> float:
    """The lowest mean of `length` values in a row (all of them, when fewer)."""
    import numpy as np

    if len(logs) <= length:
        return float(np.mean(logs))
    c = np.concatenate(([0.0], np.cumsum(logs)))
    return float(np.min(c[length:] - c[:-length]) / length)
