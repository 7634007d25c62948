"""Outlier devices in an array: which drive is the odd one out, and how slow one would have to be to be seen.

Everything is judged on log rates (y = ln x): throughput spreads by a factor, not by an amount (a shared disk
slows every drive proportionally), and peers of one model spread lognormally. On a linear scale a drive at
77 MB/s against 1,433-2,752 MB/s scored -2.66 (issue 33: not named); on a log scale it is far off.

The verdict (reference/analysis.md §5.4, issue 40): a leave-out prediction interval, as Rosner's generalized
ESD sets drives aside. The worst drive is weighed against the others' mean m and sample sd s of ln rate:

- t = (y - m) / sqrt(s^2 (1 + 1/k) + e^2) with k others, past Student's t (k - 1 degrees of freedom) at
  1 - `loo_alarm`/n (Bonferroni over the n drives it could have been). Under normally spread peers this is
  the best test that is not told their spread (the "oracle bound" of bench/outlier_envelope.py);
- or, where the others spread no wider than `envelope_sigma` allows (chi-square on s^2 at `envelope_check`),
  (y - m) / sqrt((sigma^2 + u^2)(1 + 1/k) + e^2) with sigma = `envelope_sigma`, past the normal quantile at
  1 - `envelope_alarm`/n: a handful of peers cannot estimate their own spread (t with 1-5 degrees of freedom
  needs a drive 5-60 sds off), but healthy drives of one array do not spread wider than about 30% (the
  envelope), so a drive far beyond that is named among 3 drives as among 30. It judges arrays of fewer than
  `envelope_devices` (8) only, where the t test runs at `small_loo_alarm`: from 8 drives on the peers estimate
  their own spread, and the false alarms the envelope test and a weak t test spent in small arrays were budget
  the t test of larger arrays could not use (issue 40, third round: at the same false-alarm rate as the
  oracle bound, 16-32 drives at sigma 10-20% were 3.1 points below it; clean arrays of 8-15 drives at sigma
  20-30% alarmed 1.1%).

u^2 is the peers' typical noise (the median of their own squared relative standard errors), e^2 the drive's
own noise beyond it: the peers' spread already holds a typical drive's noise (counting it again, as before
issue 40, cost power where the spread is narrow); a drive noisier than its peers needs the difference. The
caller measures a drive's noise about its own levels (`analysis.noise.own_noise`): a drive slow for
part of the run holds two levels, and read as noise of its mean they excused it (0-8% named where the bound
names 74-99%). The worst is then set aside and the next worst weighed against the rest, up to `loo_block`
drives (slow drives inflate each other's reference spread: masking; with two set aside, three to six slow
drives hide each other; `loo_share` sets aside more, and was not chosen), and the first j are named when the
j-th passes.
In arrays of 8 drives or more the group search (`analysis.outlier_groups`) judges first, and an array alarms when
either test does: the leave-out tests' alarm there is simulated per size (`analysis.outlier_null`) so that both
together name a drive of a clean array, normally or flatly spread, in at most `array_alarm` (each at its own
nominal rate, they passed 0.67-0.84% of noise-free clean arrays and 1.0-1.1% of the bench's in four bins).
Only drives `rel_floor` off the median are weighed in turn (a homogeneous array's sd can be 0.3%, and peers set
aside from the low end truncate the rest, so a healthy drive's step would name the worse drives before it).

A modified z-score (Iglewicz and Hoaglin; MAD with Croux and Rousseeuw's small-sample factors, or their Qn
where half the drives read alike) past `threshold` is a backstop for more than `loo_block` slow drives hiding
each other, in arrays of `z_min_devices` or more (the MAD of a handful of drives is too unsteady: with the
old "below half of the slowest" test it made clean arrays of 3-7 drives spread 25% alarm 2.2%). Where every
drive reads alike (a spread of 0) a drive `rel_floor` off is named.

The report's `floor` is the power of the array: the share of the median at or below which a further drive
would have been named by the same tests against the drives not named. With few drives or a wide spread it is
low ("could name only a drive 65% or more below the median"), and ARR-OUTLIER says so. It is worked out when
first read: where the mixture test judges, it is a bisection of that test (some 15 times its cost, which in arrays
of 16-32 drives is most of a report's), and only ARR-OUTLIER's text reads it.

The same function serves both views of an array: all devices run together (one fio job per device) and each
device alone; the doctor's array rules read the two side by side.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from statistics import NormalDist
from typing import TYPE_CHECKING

from iolab.analysis.robust_scale import mad_factor, qn_scale

if TYPE_CHECKING:
    from iolab.analysis.outlier_groups import Group


@dataclass(frozen=True)
class OutlierParams:
    # The modified z-score's cut: a backstop for more than `loo_block` slow drives hiding each other, in arrays of
    # at least `z_min_devices` (below that a MAD of a handful of drives is too unsteady to score against). It holds
    # no alarm of its own; in a class of a split array it is raised to the class's share of what it passes in the
    # whole array (`outlier_null.backstop_cut`, issue 40, fifteenth round).
    threshold: float = 8.0
    rel_floor: float = 0.05  # use 0.10 for latency
    side: str = "low"  # "low" for bandwidth/IOPS, "high" for latency
    mad_floor: float = 0.005  # MAD (of ln x) below this counts as 0
    min_devices: int = 3
    z_min_devices: int = 8
    far_ratio: float = 0.5  # a named drive below this share of the nearest other one is "far" (see `DeviceScore`)
    # Nominal chance that the leave-out t test names a drive of a clean array whose peers' ln rates spread
    # normally; 0 turns it off. Chosen with `envelope_alarm` on the tuning seeds of bench/outlier_envelope.py:
    # of t alarms 0.007, 0.005, 0.004 and envelope alarms 0.007, 0.005, 0.003, 0, the pair naming the most drives
    # at or below 60% of their peers in the worst sigma bin of 8-32 drives, with clean arrays alarming at most
    # 0.7% in all and 1.25% in any bin (at 0.007 the t test alone alarmed 1.6% in one: heavy-tailed seconds).
    loo_alarm: float = 0.005
    loo_block: int = 2  # the leave-out tests set aside up to this many of the worst drives, one at a time
    # ... or up to this share of the array's drives where that is more (three to six slow drives of a bad batch
    # hide each other among the "peers" when only two are set aside); 0 keeps `loo_block`. A third was offered to
    # bench/outlier_envelope.py's choice (issue 40, third round) and not chosen: on its tuning seeds it took
    # arrays of one or two slow drives 3.4 points below the oracle bound (against 2.3 with none).
    loo_share: float = 0.0
    # Steps after the first (the j-th worst weighed against the drives after it, the j - 1 worse set aside) are
    # judged at this many times the first step's alarm, in arrays whose alarm is simulated (`array_alarm`): the
    # j-th worst of a clean array is a truncated draw (the worse ones set aside), so at the first step's
    # Bonferroni cut a later step spends little of the budget, and a mild slow drive stays hidden behind a far one
    # (masking; issue 40, ninth round). The simulation holds the whole array's false-alarm rate with it. 1: the
    # same alarm at every step (Rosner's generalized ESD).
    step_boost: float = 1.0
    # Or: the share of `array_alarm` the later steps spend on clean arrays, simulated per size
    # (`analysis.outlier_null.later_alarm`), the first step getting the rest; 0 keeps `step_boost`.
    step_share: float = 0.0
    # `step_share` holds in arrays of fewer drives than this only (0: every size), larger ones keeping the equal
    # cuts of `step_boost`: behind a single slow drive the later step weighs the slowest healthy one, an untruncated
    # draw of n - 1 peers, and at the share's looser cut named one in 1.1-1.7% of 16-32-drive twins (2-4 times the
    # equal cuts and the oracle bound), 0.4-0.6% at 8-15 drives (the bound's rate; issue 40, ninth round). Share
    # 0.5 below 16 drives was judged on fresh sets against a rule declared first and not shipped (tenth round:
    # arrays of one slow drive lost 3.05 points at sigma 20-30%, the rule allowed 3.00; docs/arrays.md).
    step_share_below: int = 0
    # The widest spread (sd of ln rate) healthy peers of one array are taken to have: reference/analysis.md §5.4
    # (peers of one model on real machines spread up to 0.3). Within it, the envelope test weighs a drive against
    # that spread, which a handful of peers cannot estimate themselves (Student's t with 1-5 degrees of freedom).
    envelope_sigma: float = 0.30
    # Nominal chance that the envelope test names a drive of a clean array whose peers spread `envelope_sigma`
    # (less where they spread less); 0 turns it off.
    envelope_alarm: float = 0.007
    # The chance that peers within the envelope read as wider than it (chi-square on their sample variance): past
    # that, the envelope does not hold for this array and only the t test judges.
    envelope_check: float = 0.01
    # The envelope test judges arrays of fewer drives than this only: from it on, the peers estimate their own
    # spread well enough (Student's t with 6+ degrees of freedom) and the envelope's share of the false-alarm
    # budget is better spent on the t test; 0 lets it judge every array.
    envelope_devices: int = 8
    # The t test's alarm share in arrays of fewer than `envelope_devices` drives, where the envelope test names
    # most of what it can and its 1-5 degrees of freedom make it weak: what it spends there is false-alarm budget
    # the larger arrays, where it is the stronger test, cannot use. None: `loo_alarm`.
    small_loo_alarm: float | None = 0.002
    # Nominal chance that the group search (`analysis.outlier_groups`) names a group of a clean array, normal or
    # flat; 0 turns it off. It judges arrays of `group_devices` drives or more, groups of 3 up to `group_share` of
    # the drives. Its share of `array_alarm` (issue 40, seventh round): the leave-out tests get what it leaves, and
    # at 0.003 (chosen in the fourth round, when each test had its own rate) it spent 0.3 of the 0.5% where it
    # passes most (flat peers of 8-11 drives, normal peers of 20-32), leaving the t test 0.06-0.26% there and the
    # verdict 4-9 points under the oracle bound. Chosen on bench/outlier_envelope.py's tuning seeds with
    # `array_alarm` (of 0.0005-0.003 x 0.005-0.006): a slow group at one level stands far past its cut at any of
    # them, and a single slow drive is the leave-out test's.
    group_alarm: float = 0.0005
    group_devices: int = 8
    group_share: float = 0.5
    # A group's least slow drive must sit at least this share of the way from the other drives' mean to the median
    # of the group's worse ones (`outlier_groups.nearer_group`; 0 turns it off): behind two far slow drives the
    # search's three-drive split weighed the lowest healthy drive at the cut of a clean array's third worst and
    # named it (issue 40, fourteenth round, twins; docs/arrays.md). Judged on fresh sets against a rule declared
    # first: at 16-32 drives healthy twins named 2 / 3 / 5 of 800 at sigma 1-10 / 10-20 / 20-30% (without it 5 / 5
    # / 7, the bound 2 / 3 / 4), the drives at <= 60% named the same, planted and behind a slow HBA.
    group_nearer: float = 0.5
    # In arrays of `envelope_devices` drives or more (8 or more where the envelope test judges every size): the
    # nominal chance that a clean array, its peers normal or flat, has any drive named by the group search and the
    # leave-out tests together. The leave-out tests' alarm is simulated per size to hold it
    # (`analysis.outlier_null`), in place of `loo_alarm`; 0 turns that off (`loo_alarm`, Bonferroni, each test
    # at its own rate: clean arrays of 8-32 drives alarmed 1.0-1.1% in four bins).
    array_alarm: float = 0.005
    # The mixture test (`analysis.outlier_mixture`) judges arrays of `group_devices` up to fewer than this many drives
    # (outside a named group) in place of the leave-out steps, at its cuts simulated per size (they hold
    # `array_alarm` with the group search on clean arrays drawn as the benches draw them); 0 turns it off. In steps
    # (a named drive set aside, the rest judged again), judged on fresh sets against a rule declared first (issue
    # 40, thirteenth round; docs/arrays.md): gap to the oracle bound at 8-15 drives -0.8, -1.1, +1.0 points at sigma
    # 1-10, 10-20, 20-30% (the leave-out steps -1.6, -4.8, -3.0), healthy twins named 4, 0, 5 of 1,500 (the bound 4,
    # 3, 5), clean arrays 0.1-0.8% in every family and bin. Judged at once (twelfth round) it named healthy twins
    # more often than the bound. Up to 32 drives (fourteenth round, cuts simulated for 16-32) it was judged on fresh
    # sets against a rule declared first and not shipped: clean arrays of lognormal peers at sigma 20-30% alarmed
    # 1.6% (docs/arrays.md). Round 59: from 16 drives on a slow drive's density is stated per the healthy spread
    # (`outlier_mixture.SCALED_FROM`), so the statistic's null no longer rises with sigma, cuts simulated again.
    mixture_below: int = 33


@dataclass(frozen=True)
class DeviceScore:
    device: str
    value: float
    z: float | None  # modified z-score; None when the scale is 0 or the value is missing
    rel_dev: float  # value / median - 1
    outlier: bool
    noise: float | None = None  # its own relative standard error, when known
    # Named and below `far_ratio` of the nearest other device, by more than `threshold` of its own standard errors:
    # no host's passing load explains a factor of two between drives of one array (`doctor.rules.arrays`).
    far: bool = False
    t: float | None = None  # the leave-out test's t (against the others' mean and sd), for the drives it weighed
    envelope: float | None = None  # the envelope test's score (against the others' mean and `envelope_sigma`)
    in_group: bool = False  # named as one of a slow group (`OutlierReport.group`)
    odds: float | None = None  # the mixture test's log odds that it is slow, where that test judged


@dataclass(frozen=True)
class OutlierReport:
    params: OutlierParams
    view: str  # "together" or "alone"
    metric: str
    scores: list[DeviceScore] = field(default_factory=list)
    median: float = 0.0
    scale: float = 0.0  # the robust standard deviation of ln(value) across devices (before each one's noise)
    scale_method: str = ""  # "mad", "qn" or "relative-only"
    evaluated: bool = True
    reason: str = ""
    # What `floor` works out when first read (None: not evaluated)
    floor_of: Callable[[], float | None] | None = field(default=None, repr=False, compare=False)
    envelope_holds: bool = True  # the peers spread within `envelope_sigma` (else only the t test judged)
    envelope_judged: bool = True  # the envelope test took part (not in arrays of `envelope_devices` or more)
    # A slow group named as a group (`analysis.outlier_groups`): its drives, worst first, the least slow one's T
    # against the other drives and the cut it passed; () when none.
    group: tuple[str, ...] = ()
    group_t: float | None = None
    group_cut: float | None = None
    # The power of the group search: the share of the median at or below which a group of drives at one level would
    # have been named against the drives not named; None where the search did not judge (`group_devices`).
    group_floor: float | None = None
    mixture_judged: bool = False  # the mixture test named the single drives (`OutlierParams.mixture_below`)

    @property
    def outliers(self) -> list[DeviceScore]:
        return [s for s in self.scores if s.outlier]

    @cached_property
    def floor(self) -> float | None:
        """The power of this array: the highest value, over the median, at which one drive would have been named
        (a drive at or below floor x median); None when not evaluated. 0.4: a drive at 60% of its peers goes
        unseen. Worked out on first reading (module docstring): most reports are never asked."""
        return self.floor_of() if self.floor_of else None


def find_outliers(
    values: Mapping[str, float],
    params: OutlierParams | None = None,
    *,
    view: str = "together",
    metric: str = "bandwidth",
    noise: Mapping[str, float] | None = None,
) -> OutlierReport:
    """Score each device's value (e.g. mean read bytes/s) against the rest of the array.

    `noise` maps a device to the relative standard error of its value (missing: unknown, taken as 0).
    """
    import numpy as np

    params = params or OutlierParams()
    if params.side not in ("low", "high"):
        raise ValueError(f"side must be 'low' or 'high', not {params.side!r}")
    names = list(values)
    x = np.array([float(values[n]) for n in names], dtype=float)
    ok = np.isfinite(x) & (x >= 0)
    report = OutlierReport(params=params, view=view, metric=metric)  # every return fills in the rest with `replace`
    unscored = [DeviceScore(n, float(v), None, float("nan"), False) for n, v in zip(names, x, strict=True)]
    if int(ok.sum()) < params.min_devices:
        reason = f"{int(ok.sum())} device(s) with a value; at least {params.min_devices} are needed"
        return replace(report, scores=unscored, evaluated=False, reason=reason)
    med = float(np.median(x[ok]))
    if med <= 0:
        reason = "the median is 0: the devices did no work"
        return replace(report, scores=unscored, median=med, evaluated=False, reason=reason)
    with np.errstate(divide="ignore"):
        y = np.log(x)  # a device that did nothing is -inf: below everything, named by the relative floor
    finite = ok & (x > 0)
    centre, scale, scale_method = _log_spread(y[finite], params)
    sign = -1.0 if params.side == "low" else 1.0
    own = [_own_noise((noise or {}).get(name)) for name in names]
    z_counts = int(finite.sum()) >= params.z_min_devices
    where = (med, centre, scale, sign, z_counts)
    scores = [
        _score(name, i, float(x[i]), y, own[i], where, params) if ok[i] else unscored[i] for i, name in enumerate(names)
    ]
    verdicts = _verdicts(names, x, y, finite, own, sign, med, params)
    scores = [
        _with_left_out(s, i, verdicts.left, y, finite, sign, params, verdicts.group) for i, s in enumerate(scores)
    ]
    return replace(report, scores=scores, median=med, scale=scale, scale_method=scale_method, **verdicts.fields())


@dataclass(frozen=True)
class _Verdicts:
    """What the group search and the leave-out tests found, and the array's power for each."""

    left: _LeftOut
    group: Group | None
    floor: Callable[[], float | None]
    group_names: tuple[str, ...]
    group_floor: float | None

    def fields(self) -> dict:
        """The report's fields they fill."""
        group = self.group
        return {
            "floor_of": self.floor,
            "envelope_holds": self.left.holds,
            "envelope_judged": self.left.judged,
            "group": self.group_names,
            "group_t": group.t if group else None,
            "group_cut": group.cut if group else None,
            "group_floor": self.group_floor,
            "mixture_judged": self.left.mixture,
        }


def _verdicts(
    names: list[str], x, y, finite, own: list[float], sign: float, med: float, params: OutlierParams
) -> _Verdicts:
    """A slow group first (`analysis.outlier_groups`), then the leave-out tests on the drives outside it, each
    drive weighed `rel_floor` off their median (the group drags the median of all towards itself)."""
    import numpy as np

    group = _group(y, finite, own, sign, params)
    rest = finite.copy()
    rest[list(group.members) if group else []] = False
    centre = float(np.median(x[rest])) if group else med  # a drive that did no work counts in `med` (as before)
    edge = sign * math.log(centre * (1 + sign * params.rel_floor))  # on sign * y
    left = _left_out(y, rest, own, sign, params, edge)
    _mixture(y, rest, own, sign, params, edge, left)
    if group:
        left.named |= set(group.members)

    def floor() -> float | None:  # the report's `floor`, on first reading
        reach = left.reach_of() if left.reach_of else left.reach
        if not math.isfinite(reach):
            return None
        ratio = float(math.exp(sign * reach) * math.exp(left.centre) / med)
        return min(ratio, 1 - params.rel_floor) if sign < 0 else max(ratio, 1 + params.rel_floor)

    grouped = tuple(names[i] for i in group.members) if group else ()
    return _Verdicts(left, group, floor, grouped, _group_floor(y, finite, left, own, sign, med, params))


def _mixture(y, rest, own: Sequence[float], sign: float, params: OutlierParams, edge: float, left: _LeftOut) -> None:
    """Where the mixture test judges `rest` (`_mixture_judges`), the drives it names (each past `edge` on sign * y)
    and their log odds in place of the leave-out steps'; where it would judge the array with one drive more, its
    reach among the drives not named in place of theirs (the floor is the power of the test a further drive meets)."""
    import numpy as np

    from iolab.analysis import outlier_mixture as mixture

    kept = [int(i) for i in np.flatnonzero(rest)]
    count = len(kept)
    if _mixture_judges(count, params):
        left.mixture, left.named = True, _mixture_steps(y, kept, own, sign, params, edge, left.odds)
    if _mixture_judges(count + 1, params):
        unnamed = [i for i in kept if i not in left.named]
        left.centre = float(y[unnamed].mean())  # a further drive of the peers' typical noise, below their mean
        values, at = -sign * y[kept], -sign * left.centre  # bound now: the reach is worked out when first read
        left.reach_of = lambda: mixture.reach(values, lambda v: _log_spread(v, params)[1], at, _mixture_alarm(params))


def _mixture_steps(
    y, kept: list[int], own: Sequence[float], sign: float, params: OutlierParams, edge: float, odds: dict[int, float]
) -> set[int]:
    """The drives the mixture test names among `kept`, one at a time: the drive of the highest log odds (past `edge`)
    is named where it passes the cut of the drives judged, then set aside and the rest judged again at the cut of
    their size, until one does not pass. Why in steps (issue 40, thirteenth round): judged at once, a healthy drive
    behind a plainly slow one had its odds from the configuration where both are slow, which the prior weighs as a
    single slow drive of a clean array, so a healthy twin was named more often than the oracle bound names one; set
    aside, the drives left are a clean array if it held one slow drive, and the cut of their size (simulated on
    clean arrays) holds them at its rate. `odds` gets each drive's log odds at the last step that judged it."""
    from iolab.analysis import outlier_mixture as mixture

    named: set[int] = set()
    left = list(kept)
    while (
        limit := mixture.cut(len(left), _log_spread(-sign * y[left], params)[1], _mixture_alarm(params))
    ) is not None:
        step = mixture.log_odds(-sign * y[left], mixture.excess([own[i] for i in left]))  # slow is low
        odds.update({i: float(step[k]) for k, i in enumerate(left)})
        weighed = [k for k in range(len(left)) if sign * y[left[k]] >= edge]
        worst = max(weighed, key=lambda k: step[k], default=None)
        if worst is None or step[worst] <= limit:
            break
        named.add(left.pop(worst))
    return named


def _mixture_alarm(params: OutlierParams) -> float:
    """The alarm the mixture test's cut holds: the table's, or `array_alarm` where that is lower and not 0 (a class
    of a split array at its share of the drives, `_share_of`)."""
    from iolab.analysis.outlier_mixture import CUTS_ALARM

    return min(CUTS_ALARM, params.array_alarm) if params.array_alarm > 0 else CUTS_ALARM


def _mixture_judges(count: int, params: OutlierParams) -> bool:
    """Whether the mixture test judges an array of `count` drives (outside a named group): from `group_devices`
    to fewer than `mixture_below`, where its table holds a cut."""
    from iolab.analysis.outlier_mixture import CUTS

    return max(params.group_devices, 1) <= count < params.mixture_below and count in CUTS


def _group(y, finite, own: Sequence[float], sign: float, params: OutlierParams) -> Group | None:
    """The slow group the search names (`analysis.outlier_groups`), in arrays of `group_devices` drives or more."""
    import numpy as np

    if int(finite.sum()) < max(params.group_devices, 1) or params.group_alarm <= 0:
        return None
    from iolab.analysis.outlier_groups import find_group

    w = sign * y
    order = [int(i) for i in np.argsort(-w, kind="stable") if finite[i]]
    edge = sign * math.log(1 + sign * params.rel_floor)  # on w: `rel_floor` past the rest's median
    return find_group(w, order, own, edge, params.group_alarm, params.group_share, params.group_nearer)


def _group_floor(y, finite, left: _LeftOut, own: Sequence[float], sign: float, med: float, params: OutlierParams):
    """The share of the median at or below which a further group of three drives at one level would have been
    named, against the drives not named (their typical own noise as the group's); None where the search does
    not judge."""
    import numpy as np

    from iolab.analysis.outlier_groups import MIN_GROUP, group_reach

    count = int(finite.sum())
    if count < max(params.group_devices, 1) or params.group_alarm <= 0:
        return None
    kept = [i for i in range(len(y)) if finite[i] and i not in left.named]
    w = sign * y[kept]
    noise2 = float(np.median([own[i] ** 2 for i in kept])) if kept else 0.0
    reach = group_reach(w, noise2, count + MIN_GROUP, params.group_alarm, params.group_share)
    if not math.isfinite(reach):
        return None
    floor = float(math.exp(sign * (float(w.mean()) + reach)) / med)
    return min(floor, 1 - params.rel_floor) if sign < 0 else max(floor, 1 + params.rel_floor)


def _own_noise(value: float | None) -> float:
    return float(value) if value is not None and math.isfinite(value) and value > 0 else 0.0


def _score(
    name: str,
    i: int,
    v: float,
    y,
    own: float,
    where: tuple[float, float, float, float, bool],
    params: OutlierParams,
) -> DeviceScore:
    """Device i's modified z: its log distance from the centre over the peers' spread and its own noise; named
    (if far by `rel_floor`) past `threshold` in arrays of `z_min_devices` or more, or whenever the spread is 0."""
    med, centre, scale, sign, z_counts = where
    total = math.hypot(scale, own)
    rel = v / med - 1.0
    z = (y[i] - centre) / total if total > 0 and v > 0 else None
    far = sign * rel >= params.rel_floor
    outlier = far and (z is None or (z_counts and sign * z > params.threshold))
    return DeviceScore(name, v, None if z is None else float(z), float(rel), bool(outlier), own or None)


def _with_left_out(
    s: DeviceScore, i: int, left: _LeftOut, y, finite, sign: float, params: OutlierParams, group: Group | None
) -> DeviceScore:
    """A score with the leave-out tests' and the group search's verdicts and statistics, and whether a named drive
    is far. A group's drives were each `rel_floor` off the median of the drives outside it (the group drags the
    median of all towards itself)."""
    if math.isnan(s.rel_dev):
        return s
    in_group = group is not None and i in group.members
    outlier = bool(s.outlier or in_group or (i in left.named and sign * s.rel_dev >= params.rel_floor))
    far = bool(outlier and _far_beyond(y, finite, i, s.noise or 0.0, sign, params))
    return replace(
        s,
        outlier=outlier,
        far=far,
        t=left.t.get(i),
        envelope=left.envelope.get(i),
        in_group=in_group,
        odds=left.odds.get(i),
    )


def _log_spread(y, params: OutlierParams) -> tuple[float, float, str]:  # y: ln values of the devices that did work
    """(centre, scale, how the scale was found) of the log values: the MAD's, small-sample corrected, or Qn's
    where half the devices read alike (a MAD of 0 would make every other device infinitely far)."""
    import numpy as np

    centre = float(np.median(y))
    mad = float(np.median(np.abs(y - centre)))
    if mad >= params.mad_floor:
        return centre, mad_factor(len(y)) * mad / 0.6745, "mad"
    qn = qn_scale(y.tolist())
    return (centre, qn, "qn") if qn > 0 else (centre, 0.0, "relative-only")


@dataclass
class _LeftOut:
    """What the leave-out tests found: the drives named, each weighed drive's t and envelope score, and the reach
    (how far below the unnamed drives' mean log value, in ln units, a drive would have had to be to be named)."""

    named: set[int] = field(default_factory=set)
    t: dict[int, float] = field(default_factory=dict)
    envelope: dict[int, float | None] = field(default_factory=dict)
    centre: float = 0.0
    reach: float = math.inf
    reach_of: Callable[[], float] | None = None  # the reach, where the mixture test's bisection works it out
    holds: bool = True
    judged: bool = True  # the envelope test took part (`envelope_devices`, `envelope_alarm`)
    mixture: bool = False  # the mixture test named the drives in place of the steps (`_mixture`)
    odds: dict[int, float] = field(default_factory=dict)  # its log odds, where it judged


def _left_out(  # y: ln values
    y, finite, own: Sequence[float], sign: float, params: OutlierParams, edge: float
) -> _LeftOut:
    """The worst 0 .. `loo_block` drives (or `loo_share` of them), each weighed against the drives not yet set
    aside (module docstring): which are named, each weighed drive's statistics (negative when low, as z), and
    the array's reach. Only drives at least `rel_floor` off the median are weighed (`edge`, on sign * y): a
    step whose drive sits within it among peers set aside from the low end, whose spread it truncates, is no
    evidence, and would name the worse drives before it that their own tests did not."""
    import numpy as np

    w = sign * y  # larger is worse
    order = [int(i) for i in np.argsort(-w, kind="stable") if finite[i]]
    count = len(order)
    out = _LeftOut()
    given, params = params, _for_size(params, count)
    out.judged = params.envelope_alarm > 0
    named = _steps(w, order, own, params, edge, out)
    out.named = set(order[:named])
    for i in order[:named]:  # a named drive's statistics against the drives not named
        weighed = _Weighed.of(w, i, order[named:], own, params)
        out.t[i], out.envelope[i] = sign * weighed.t, _signed(sign, weighed.envelope)
    # a further drive makes the array one larger, which may change the tests (`_for_size`): it is weighed
    # against the drives those tests would not name
    further = _for_size(given, count + 1)
    peers = order[named if further == params else _steps(w, order, own, further, edge, None) :]
    if len(peers) >= 2:
        reference = _Weighed.of(w, None, peers, own, further)
        out.centre, out.holds = sign * reference.mean, reference.inside
        out.reach = reference.reach(further, count + 1)
    return out


def _steps(w, order: list[int], own: Sequence[float], params: OutlierParams, edge: float, out: _LeftOut | None) -> int:
    """How many of the worst drives (`order`, on w = sign * ln values) the leave-out tests name: each of the
    first `loo_block` (or `loo_share`) set aside in turn and weighed against the rest; the first j are named
    when the j-th passes. Each weighed drive's statistics go to `out` (when given)."""
    named = 0
    for step in range(max(params.loo_block, int(params.loo_share * len(order)))):
        rest = order[step:]
        if len(rest) < 3 or w[rest[0]] < edge:  # two peers at least: a spread needs two values
            break
        weighed = _Weighed.of(w, rest[0], rest[1:], own, params)
        if out is not None:
            sign = 1.0 if params.side == "high" else -1.0
            out.t[rest[0]], out.envelope[rest[0]] = sign * weighed.t, _signed(sign, weighed.envelope)
        if weighed.passes(params, len(rest), step):
            named = step + 1
    return named


def _for_size(params: OutlierParams, count: int) -> OutlierParams:
    """The alarm shares an array of `count` drives is judged at: the envelope test off from `envelope_devices`
    drives on, the t test there at the alarm that holds `array_alarm` (`analysis.outlier_null`), and at
    `small_loo_alarm` below it."""
    if count >= max(params.envelope_devices, 8) and params.array_alarm > 0 and params.loo_alarm > 0:
        first, later = _calibrated_loo_alarm(params, count), _calibrated_later_alarm(params, count)
        params = replace(params, loo_alarm=first, step_boost=later / first if later > 0 else params.step_boost)
    else:  # the later steps' boost is held by the simulation only
        params = replace(params, step_boost=1.0)
    if not params.envelope_devices:
        return params
    if count >= params.envelope_devices:
        return replace(params, envelope_alarm=0.0)
    small = params.loo_alarm if params.small_loo_alarm is None else params.small_loo_alarm
    return replace(params, loo_alarm=small)


def _calibrated_loo_alarm(params: OutlierParams, count: int) -> float:
    """The leave-out tests' alarm in `count` drives at which they and the group search together hold
    `array_alarm` on clean arrays (`analysis.outlier_null`; the group search's share where it judges)."""
    from iolab.analysis.outlier_null import loo_alarm

    steps, group = _steps_and_group(params, count)
    later = _calibrated_later_alarm(params, count)
    floor = params.loo_alarm * 1e-3
    share, nearer = params.group_share, params.group_nearer
    return loo_alarm(count, params.array_alarm, steps, group, share, floor, params.step_boost, later, nearer)


def _calibrated_later_alarm(params: OutlierParams, count: int) -> float:
    """The later steps' own alarm in `count` drives where `step_share` sets it (`analysis.outlier_null`), else 0
    (they are judged at `step_boost` times the first step's): from `step_share_below` drives on, 0. The first
    step's calibration (`_calibrated_loo_alarm`) reads the same, so both simulate the rule the verdict applies."""
    from iolab.analysis.outlier_null import later_alarm

    if params.step_share <= 0 or 0 < params.step_share_below <= count:
        return 0.0
    steps, group = _steps_and_group(params, count)
    spend = params.step_share * params.array_alarm
    return later_alarm(count, spend, steps, group, params.group_share, params.group_nearer)


def _steps_and_group(params: OutlierParams, count: int) -> tuple[int, float]:
    """How many drives the leave-out tests set aside in `count`, and the group search's alarm there (0: it does
    not judge)."""
    steps = max(params.loo_block, int(params.loo_share * count))
    return steps, params.group_alarm if count >= max(params.group_devices, 1) else 0.0


def _signed(sign: float, value: float | None) -> float | None:
    return None if value is None else sign * value


@dataclass(frozen=True)
class _Weighed:
    """One drive (or, with `drive` None, a drive yet to be seen) against a set of peers, on sign-flipped ln values
    (larger is worse): the t against their mean and sample sd, and the envelope score against their mean and
    `envelope_sigma` (None where the peers spread wider than the envelope); each with the drive's own noise in
    excess of the peers' typical noise in quadrature (the peers' spread already holds their own noise)."""

    mean: float
    t_sd: float
    envelope_sd: float | None  # None where the peers spread wider than the envelope or its test is off
    peers: int
    beyond: float
    inside: bool  # the peers spread within the envelope (chi-square on their variance)

    @property
    def t(self) -> float:
        return self.beyond / self.t_sd if self.t_sd > 0 else (math.inf if self.beyond > 0 else 0.0)

    @property
    def envelope(self) -> float | None:
        return None if self.envelope_sd is None else self.beyond / self.envelope_sd

    @classmethod
    def of(cls, w, drive: int | None, peers: Sequence[int], own: Sequence[float], params: OutlierParams) -> _Weighed:
        import numpy as np

        rest = w[list(peers)]
        m = len(rest)
        variance = float(rest.var(ddof=1))
        typical = float(np.median([own[p] ** 2 for p in peers]))
        excess = max(0.0, own[drive] ** 2 - typical) if drive is not None else 0.0
        widest = params.envelope_sigma**2 + typical
        inside = variance * (m - 1) <= widest * _chi2_quantile(1 - params.envelope_check, m - 1)
        envelope_sd = math.sqrt(widest * (1 + 1 / m) + excess) if inside and params.envelope_alarm > 0 else None
        beyond = float(w[drive] - rest.mean()) if drive is not None else 0.0
        return cls(float(rest.mean()), math.sqrt(variance * (1 + 1 / m) + excess), envelope_sd, m, beyond, inside)

    def passes(self, params: OutlierParams, drives: int, step: int = 0) -> bool:
        """Whether the drive is named, at each test's alarm share over `drives` (Bonferroni; steps after the first
        at `step_boost` times the t test's alarm)."""
        alarm = _step_alarm(params.loo_alarm, params.step_boost if step else 1.0, drives)
        by_t = params.loo_alarm > 0 and self.t > _t_cut(alarm, drives, self.peers - 1)
        envelope = self.envelope
        return by_t or (envelope is not None and envelope > _z_cut(params.envelope_alarm, drives))

    def reach(self, params: OutlierParams, drives: int) -> float:
        """How far beyond the peers' mean (ln units) a drive must be for either test to name it."""
        reach = math.inf
        if params.loo_alarm > 0 and self.t_sd > 0:
            reach = _t_cut(params.loo_alarm, drives, self.peers - 1) * self.t_sd
        elif params.loo_alarm > 0:
            reach = 0.0
        if self.envelope_sd is not None:
            reach = min(reach, _z_cut(params.envelope_alarm, drives) * self.envelope_sd)
        return reach


def _step_alarm(alarm: float, boost: float, drives: int) -> float:
    """A step's alarm: `boost` times the first step's, kept below the drives' count (the cut stays a quantile)."""
    return min(alarm * boost, 0.5 * drives)


@lru_cache(maxsize=1024)
def _t_cut(alarm: float, drives: int, df: int) -> float:
    """Student's t (df) quantile past which one of `drives` is named at `alarm` in all (Bonferroni)."""
    from iolab.analysis.student_t import t_quantile

    return t_quantile(1 - alarm / drives, df)


@lru_cache(maxsize=1024)
def _z_cut(alarm: float, drives: int) -> float:
    """The normal quantile past which one of `drives` is named at `alarm` in all (Bonferroni)."""
    return NormalDist().inv_cdf(1 - alarm / drives)


@lru_cache(maxsize=1024)
def _chi2_quantile(q: float, df: int) -> float:
    """The q quantile of chi-square with df degrees of freedom (Wilson and Hilferty's cube-root normal
    approximation: within about 1% of the quantile for df >= 3, and conservative, larger, for 1 and 2)."""
    z = NormalDist().inv_cdf(q)
    k = float(df)
    return k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3


def _far_beyond(y, finite, i: int, own: float, sign: float, params: OutlierParams) -> bool:  # y: ln values
    """Whether device i is past `far_ratio` of the nearest other device and `threshold` of its own standard
    errors beyond it."""
    import numpy as np

    mask = finite.copy()
    mask[i] = False
    if not mask.any():
        return False
    if not np.isfinite(y[i]):
        return True  # did no work while the others did
    nearest = float(y[mask].min()) if sign < 0 else float(y[mask].max())
    gap = sign * (y[i] - nearest)
    return gap > -math.log(params.far_ratio) and gap > params.threshold * own


def find_outliers_by_class(
    values: Mapping[str, float],
    classes: Mapping[str, str],
    params: OutlierParams | None = None,
    *,
    view: str = "together",
    metric: str = "bandwidth",
    noise: Mapping[str, float] | None = None,
) -> dict[str, OutlierReport]:
    """Each class of drives (a drive model, where the host's probe knows it) judged against its own kind only, by
    class: an array of two models holds two speeds, and the slower model, judged against the faster, is a slow
    group that is no fault (issue 40, fourth round). A drive of no known class is judged with those of "". A
    class of fewer than `min_devices` drives is not evaluated (its report says why). Each class's tests run at
    its share of the drives times their alarm (`_share_of`), the backstop's cut raised to its share of what it passes
    in the whole array: the false-alarm rate is the whole array's, as when it is judged as one (judged at the full
    rate each, two models alarmed 1.5% of clean arrays; with the backstop at 8 in each class, 0.65% at 16-32 drives
    where the tests held 0.50%)."""
    params = params or OutlierParams()
    by: dict[str, dict[str, float]] = {}
    for device, value in values.items():
        by.setdefault(classes.get(device, ""), {})[device] = value
    if len(by) == 1:
        return {label: find_outliers(values, params, view=view, metric=metric, noise=noise) for label in by}
    return {
        label: find_outliers(
            members, _share_of(params, len(members), len(values)), view=view, metric=metric, noise=noise
        )
        for label, members in sorted(by.items())
    }


def _share_of(params: OutlierParams, drives: int, whole: int) -> OutlierParams:
    """The parameters of a class of `drives` of a split array's `whole` with every test's alarm at its share of the
    drives (Bonferroni), the modified z-score's backstop too: its cut is raised to where the classes together pass
    no more clean arrays than it passes in an array of `whole` drives (`outlier_null.backstop_cut`; issue 40,
    fifteenth round)."""
    from iolab.analysis.outlier_null import backstop_cut

    share = drives / whole
    small = None if params.small_loo_alarm is None else params.small_loo_alarm * share
    backstop = drives >= params.z_min_devices and params.threshold > 0
    return replace(
        params,
        threshold=backstop_cut(drives, whole, params.threshold, share) if backstop else params.threshold,
        loo_alarm=params.loo_alarm * share,
        small_loo_alarm=small,
        envelope_alarm=params.envelope_alarm * share,
        group_alarm=params.group_alarm * share,
        array_alarm=params.array_alarm * share,
    )
