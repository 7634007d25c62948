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

The same function serves both views of an array: all devices run together
(one fio job per device) and each device alone; the doctor's array rules read
the two side by side.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class OutlierParams:
    # 4.5, not Iglewicz and Hoaglin's 3.5: chosen on the training half of bench/simulated_arrays.py (4-32
    # drives, log spread 0-40%, noise 1-20%): clean arrays flagged 1.9% at 3.5, 1.1% at 4.0, 0.8% at 4.5.
    threshold: float = 4.5
    rel_floor: float = 0.05  # use 0.10 for latency
    side: str = "low"  # "low" for bandwidth/IOPS, "high" for latency
    mad_floor: float = 0.005  # MAD (of ln x) below this counts as 0
    min_devices: int = 3
    far_ratio: float = 0.5  # below this share of the slowest (fastest, for "high") other device: named anyway
    # Nominal chance that the gap test (`_gap_named`) names a drive of a clean array; 0 turns it off. Chosen on
    # the training half of bench/simulated_arrays.py: the largest of 0.1, 0.03, 0.01 and 0.003 that kept the
    # training arrays' false alarms under 1%, and arrays whose peers spread normally under 1% too (0.1: 2%).
    gap_alarm: float = 0.03
    gap_block: int = 2  # the gap test looks for the worst 1 .. gap_block drives set apart from the rest
    gap_reference: int = 6  # normalized spacings of the next drives the gap is weighed against


@dataclass(frozen=True)
class DeviceScore:
    device: str
    value: float
    z: float | None  # modified z-score; None when the scale is 0 or the value is missing
    rel_dev: float  # value / median - 1
    outlier: bool
    noise: float | None = None  # its own relative standard error, when known
    far: bool = False  # named by the far-beyond test: past `far_ratio` of the nearest other device


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
    gapped = _gap_named(y, finite, [s.noise or 0.0 for s in scores], sign, params)
    scores = [
        replace(s, outlier=True) if i in gapped and not s.outlier and sign * s.rel_dev >= params.rel_floor else s
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


def _gap_named(y, finite, noise: Sequence[float], sign: float, params: OutlierParams) -> set[int]:  # y: ln values
    """The devices set apart from the rest by a gap their peers' own spacing does not explain.

    Peers spread +/-20% (a shared disk) scale a z-score so wide that a drive at 60% of its peers is within
    3 of it; but the spread of healthy peers is a crowd, and a faulty drive stands off it. Sorted worst
    first, the k-th gap times k (a normalized spacing) is close to exponential with one scale for every k
    near the end of a normal or log-normal sample (and smaller near the end of a bounded one, such as a
    uniform spread: the test only gets stricter there). So the gap below the j worst drives, times j, is
    weighed against the mean of the next `gap_reference` normalized spacings: their ratio is F(2, 2m) under
    no fault, and the j worst are named when it passes the (1 - alarm / gap_block) quantile, the gap is past
    `rel_floor` and more than `threshold` standard errors of the two drives either side of it.
    """
    import numpy as np

    if params.gap_alarm <= 0:
        return set()
    order = [int(i) for i in np.argsort(sign * -y) if finite[i]]  # worst first: lowest (or highest) ln value
    w = sign * -y[order]
    named: set[int] = set()
    for j in range(1, params.gap_block + 1):
        m = min(params.gap_reference, len(w) - j - 1)
        if m < 2:
            break
        reference = sum(k * (w[k] - w[k - 1]) for k in range(j + 1, j + m + 1)) / m
        gap = float(w[j] - w[j - 1])
        cut = m * ((params.gap_alarm / params.gap_block) ** (-1.0 / m) - 1.0)  # F(2, 2m) upper quantile
        own = math.hypot(noise[order[j - 1]], noise[order[j]])
        if (
            reference > 0
            and j * gap / reference > cut
            and gap > -math.log1p(-params.rel_floor)
            and gap > params.threshold * own
        ):
            named |= set(order[:j])
    return named


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
