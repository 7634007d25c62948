"""Outlier devices in an array: which drive is the odd one out.

Method (reference/analysis.md §5.1): modified z-score
M = 0.6745 (y - median) / MAD, one-sided (low throughput, or high latency),
flagged when |M| > `threshold` and the device is also at least `rel_floor`
away from the median, because a healthy array can have a MAD so small that a
harmless 2% difference scores high. When MAD is almost 0 the scale falls back
to Rousseeuw and Croux's Qn, which tolerates up to half the devices being
outliers (the mean absolute deviation does not: in four identical drives and
one slow one, the slow one inflates it enough to hide itself); when Qn is 0
too, only the relative floor and the device's own noise decide.

The scale is logarithmic (y = ln x): throughput's spread is a ratio, symmetric
on a log scale and not on a linear one. On a linear scale peers spread +/-40%
around a shared disk gave a drive at 77 MB/s against 1,433-2,752 MB/s a score
of -2.66 (issue 33: not named); on a log scale it scores about -10.

Each device's own noise counts too: `noise` is the relative standard error of
its figure (batch means of its per-second samples, `analysis.noise`), and M
divides by sqrt(scale^2 + noise^2), so a verdict needs the effect beyond both
the peers' spread and the device's own uncertainty. A device below half of
the slowest of the others, and more than `threshold` of its own standard
errors below it, is named whatever the peers' spread: no spread of healthy
peers makes a drive at a twentieth of them one of them.

A drive a wide crowd of peers hides from that score (peers spread +/-20%
widen the MAD so that a drive at 60% of them is within 4.5 of it) is named
by a leave-out prediction test (`_left_out_named`, after Rosner's generalized
ESD): the worst drive is weighed against the mean and sample standard
deviation of the others' ln values, t = (y - mean) / sqrt(sd^2 (1 + 1/m) +
noise^2), which under normally spread peers is Student's t with m - 1 = n - 2
degrees of freedom (the drive's own noise, in quadrature, only makes it
stricter: the peers' sd already holds a typical drive's noise). Its cut is
the 1 - `loo_alarm` / n quantile (Bonferroni over the drives it could have
been). The worst is then set aside and the next worst weighed against the
rest the same way, up to `loo_block` drives, and the first j are named when
the j-th passes: two slow drives inflate each other's reference sd (masking),
and the second step weighs the better of them against healthy peers only.
It replaces a gap test (the gap below the worst one or two drives against
the next normalized spacings), whose F cut was too strict for a bounded
spread: the spacings of a bounded spread grow toward its end, so a drive at
59% of 16 peers spread 34% stood 4 times their reference off, under a cut of
6. On the training seeds of bench/simulated_arrays.py, per drive at or below
60% of its peers' median at 30-40% spread, the z and gap tests (z 4.5, gap
3%) named 93.6% with a drive named on 1.9% of arrays whose peers spread
normally; the leave-out test with the z cut at 8 names 96.8%, alarming on
0.95% of those arrays (0.3% of the corpus's clean ones). With the leave-out
test beside it the z-score is a backstop for more than `loo_block` slow
drives hiding each other, so its cut went up (a lower one spends the same
1% of alarms). What the leave-out test cannot do is name a lone drive at
50-60% of 3 to 5 peers spread 20-40%: with that few peers their spread is
too uncertain (t with 2 to 4 degrees of freedom) for a 1% false-alarm rate
on normally spread peers. Of the training seeds' 15 misses at 20-40% spread,
14 are such arrays (on the odd seeds, 20 of 25 are lone drives among 3 to 6
peers).

The same function serves both views of an array: all devices run together
(one fio job per device) and each device alone; the doctor's array rules read
the two side by side.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache


@dataclass(frozen=True)
class OutlierParams:
    # 8, not Iglewicz and Hoaglin's 3.5: beside the leave-out test the modified z only has to catch what that test
    # cannot, more than `loo_block` slow drives hiding each other, and each alarm it adds counts against the same 1%.
    # Chosen with `loo_alarm` on the training half of bench/simulated_arrays.py (4-32 drives, log spread 0-40%,
    # noise 1-20%; `choose`): of z 4.5, 6, 8 and alarms 0.02, 0.01, 0.007, 0.005, the pair naming the most drives at
    # or below 60% of their peers in the worst spread bin (96.8%, 30-40%) with training false alarms (0.3%) and
    # normally spread arrays' (0.95%) under 1%; at z 4.5 normally spread arrays alarmed in 1.7-2.9%.
    threshold: float = 8.0
    rel_floor: float = 0.05  # use 0.10 for latency
    side: str = "low"  # "low" for bandwidth/IOPS, "high" for latency
    mad_floor: float = 0.005  # MAD (of ln x) below this counts as 0
    min_devices: int = 3
    far_ratio: float = 0.5  # below this share of the slowest (fastest, for "high") other device: named anyway
    # Nominal chance that the leave-out test (`_left_out_named`) names a drive of a clean array whose peers spread
    # normally; 0 turns it off. Chosen with `threshold` (above); 0.02 alarmed on 2% of normally spread arrays.
    loo_alarm: float = 0.01
    loo_block: int = 2  # the leave-out test sets aside up to this many of the worst drives, one at a time


@dataclass(frozen=True)
class DeviceScore:
    device: str
    value: float
    z: float | None  # modified z-score; None when the scale is 0 or the value is missing
    rel_dev: float  # value / median - 1
    outlier: bool
    noise: float | None = None  # its own relative standard error, when known
    far: bool = False  # named by the far-beyond test: past `far_ratio` of the nearest other device
    t: float | None = None  # the leave-out test's t (against the others' mean and sd), for the drives it weighed


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

    @property
    def outliers(self) -> list[DeviceScore]:
        return [s for s in self.scores if s.outlier]


# Croux & Rousseeuw (1992) small-sample correction factors of MAD for n = 2..9 (n / (n - 0.8) above): without
# them a MAD of 6 drives is about 17% too small, and a healthy drive of a small array scores past the cut.
_MAD_SMALL = {2: 1.196, 3: 1.495, 4: 1.363, 5: 1.206, 6: 1.200, 7: 1.140, 8: 1.129, 9: 1.107}
# Croux & Rousseeuw (1992) small-sample correction factors of Qn for n = 2..9.
_QN_SMALL = {2: 0.399, 3: 0.994, 4: 0.512, 5: 0.844, 6: 0.611, 7: 0.857, 8: 0.669, 9: 0.872}


def qn_scale(values: Sequence[float]) -> float:
    """Qn estimate of the standard deviation: 2.2219 x the k-th smallest pairwise distance,
    k = C(h, 2), h = n // 2 + 1, with the finite-sample factor. O(n^2), fine for arrays of drives."""
    n = len(values)
    if n < 2:
        return 0.0
    distances = sorted(abs(a - b) for i, a in enumerate(values) for b in values[i + 1 :])
    h = n // 2 + 1
    k = h * (h - 1) // 2
    factor = _QN_SMALL.get(n, n / (n + 1.4) if n % 2 else n / (n + 3.8))
    return 2.2219 * factor * float(distances[k - 1])


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
    where = (med, centre, scale, sign)
    scores = [
        _score(name, i, float(x[i]), y, finite, (noise or {}).get(name, 0.0), where, params) if ok[i] else unscored[i]
        for i, name in enumerate(names)
    ]
    left_out, t = _left_out_named(y, finite, [s.noise or 0.0 for s in scores], sign, params)
    scores = [
        replace(
            s,
            t=t.get(i),
            outlier=s.outlier or (i in left_out and sign * s.rel_dev >= params.rel_floor),
        )
        for i, s in enumerate(scores)
    ]
    return replace(report, scores=scores, median=med, scale=scale, scale_method=scale_method)


def _score(
    name: str,
    i: int,
    v: float,
    y,
    finite,
    noise: float,
    where: tuple[float, float, float, float],
    params: OutlierParams,
) -> DeviceScore:
    """Device i's score: its log distance from the centre over the peers' spread and
    its own noise, and whether it is named (far by `rel_floor`, and beyond `threshold` or beyond its neighbours)."""
    med, centre, scale, sign = where
    own = float(noise) if math.isfinite(noise) and noise > 0 else 0.0
    total = math.hypot(scale, own)
    rel = v / med - 1.0
    z = (y[i] - centre) / total if total > 0 and v > 0 else None
    far = sign * rel >= params.rel_floor
    beyond = far and _far_beyond(y, finite, i, own, sign, params)
    outlier = far and (z is None or sign * z > params.threshold or beyond)
    return DeviceScore(name, v, None if z is None else float(z), float(rel), bool(outlier), own or None, bool(beyond))


def _log_spread(y, params: OutlierParams) -> tuple[float, float, str]:  # y: ln values of the devices that did work
    """(centre, scale, how the scale was found) of the log values: the MAD's, small-sample corrected, or Qn's
    where half the devices read alike (a MAD of 0 would make every other device infinitely far)."""
    import numpy as np

    centre = float(np.median(y))
    mad = float(np.median(np.abs(y - centre)))
    if mad >= params.mad_floor:
        count = len(y)
        return centre, _MAD_SMALL.get(count, count / (count - 0.8)) * mad / 0.6745, "mad"
    qn = qn_scale(y.tolist())
    return (centre, qn, "qn") if qn > 0 else (centre, 0.0, "relative-only")


def _left_out_named(
    y, finite, noise: Sequence[float], sign: float, params: OutlierParams
) -> tuple[set[int], dict[int, float]]:  # y: ln values
    """The worst 0 .. `loo_block` drives, each weighed against the drives not yet set aside (module docstring):
    which are named, and each weighed drive's t (negative when low, as z)."""
    import numpy as np

    if params.loo_alarm <= 0:
        return set(), {}
    w = sign * y  # larger is worse
    order = [int(i) for i in np.argsort(-w, kind="stable") if finite[i]]
    named = 0
    t: dict[int, float] = {}
    for step in range(params.loo_block):
        rest = order[step:]
        if len(rest) < 4:  # fewer than 3 others: their sd has under 2 degrees of freedom
            break
        t[rest[0]] = _left_out_t(w, rest[0], rest[1:], noise, sign)
        if sign * t[rest[0]] > _t_cut(params.loo_alarm, len(rest), len(rest) - 2):
            named = step + 1
    for i in order[:named]:  # a named drive's t against the drives not named (the masked one's own step is not)
        t[i] = _left_out_t(w, i, order[named:], noise, sign)
    return set(order[:named]), t


def _left_out_t(w, i: int, others: Sequence[int], noise: Sequence[float], sign: float) -> float:
    """Device i's t against the mean and sample sd of the others' (sign-flipped) ln values, its noise counted."""
    rest = w[list(others)]
    total = math.sqrt(float(rest.var(ddof=1)) * (1 + 1 / len(rest)) + noise[i] ** 2)
    beyond = float(w[i] - rest.mean())
    if total <= 0:
        return sign * math.inf if beyond > 0 else 0.0
    return sign * beyond / total


@lru_cache(maxsize=1024)
def _t_cut(alarm: float, drives: int, df: int) -> float:
    """Student's t (df) quantile past which one of `drives` is named at `alarm` in all (Bonferroni)."""
    from iolab.analysis.student_t import t_quantile

    return t_quantile(1 - alarm / drives, df)


def _far_beyond(y, finite, i: int, own: float, sign: float, params: OutlierParams) -> bool:  # y: ln values
    """Whether device i is past `far_ratio` of the nearest other device and `threshold` of its own standard
    errors beyond it: a factor no spread of healthy peers explains."""
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


def persistent_outliers(reports: Sequence[OutlierReport], min_hits: int = 2) -> list[str]:
    """Devices flagged in at least `min_hits` of the given runs (default: 2 of the last 3 passed in)."""
    hits: dict[str, int] = {}
    for r in reports:
        for s in r.outliers:
            hits[s.device] = hits.get(s.device, 0) + 1
    return sorted(d for d, h in hits.items() if h >= min_hits)
