"""The queue-depth knee: where more outstanding I/O stops buying throughput.

Methods (reference/analysis.md §6), all on a sweep of outstanding I/O
(iodepth x numjobs) against throughput and mean latency:

- QD_fraction: the smallest QD reaching `fraction` (90%) of the peak
  throughput X_max, the highest of the sweep: a point of the table the
  finding sits under, so no depth of that table shows more than 100% of it
  (a median of the top 3 did: "117% of the plateau", or a "plateau" of 180k
  IOPS beside 305k at QD 64). The headline and recommendation.
- N* = X_max x R0: where the asymptotic bounds cross (R0: latency at the
  smallest QD). Beyond it, extra queue slots only add waiting time.
- Latency elbow: a hinge fit R = a + b max(0, QD - k) over the sweep points;
  the k with least squared error is where latency starts to climb.
- Kneedle on (log2 QD, throughput), truncated at the throughput maximum.

When these disagree by more than `consistency_steps` sweep steps, the knee
is called ill-defined and the plot should be looked at.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class KneeParams:
    fraction: float = 0.90
    consistency_steps: int = 1
    min_points: int = 3


@dataclass(frozen=True)
class KneeReport:
    params: KneeParams
    qd: list[float] = field(default_factory=list)
    throughput: list[float] = field(default_factory=list)
    latency_ns: list[float] = field(default_factory=list)  # empty when not given
    peak: float = 0.0  # X_max, the highest throughput of the sweep
    qd_at_fraction: float | None = None
    n_star: float | None = None  # X_max x R0, in outstanding I/Os
    latency_elbow_qd: float | None = None
    kneedle_qd: float | None = None
    recommended_qd: float | None = None
    consistent: bool = False
    evaluated: bool = True
    reason: str = ""


def _hinge_elbow(qd, lat) -> float | None:
    """k minimising the squared error of lat = a + b max(0, qd - k), with latency climbing past k: b > 0 by more
    than rounding (a flat latency fits with b = 0 give or take 1e-17, which named an elbow at QD 2)."""
    import numpy as np

    best, best_k = np.inf, None
    floor = 1e-9 * float(np.max(np.abs(lat)))  # a climb to the sweep's end below this is rounding
    for k in qd[:-1]:
        design = np.column_stack([np.ones_like(qd), np.maximum(0.0, qd - k)])
        coef, *_ = np.linalg.lstsq(design, lat, rcond=None)
        if not coef[1] * (qd[-1] - k) > floor:
            continue
        sse = float(np.sum((design @ coef - lat) ** 2))
        if sse < best - 1e-12 * max(1.0, best if np.isfinite(best) else 1.0):
            best, best_k = sse, float(k)
    return best_k


def _kneedle(qd, x) -> float | None:
    """Kneedle (Satopaa et al. 2011) for a concave increasing curve on log2 QD, no smoothing."""
    import numpy as np

    top = int(np.argmax(x))
    if top < 2:
        return None
    # top is the first maximum: xx[-1] stands above every earlier point, so neither scale below divides by 0
    lq, xx = np.log2(qd[: top + 1]), x[: top + 1]
    xn = (lq - lq[0]) / (lq[-1] - lq[0])
    yn = (xx - xx[0]) / (xx[-1] - xx[0])
    diff = yn - xn
    i = int(np.argmax(diff))
    return float(qd[i]) if diff[i] > 0 else None


def find_knee(
    qd: Sequence[float],
    throughput: Sequence[float],
    latency_ns: Sequence[float] | None = None,
    params: KneeParams | None = None,
) -> KneeReport:
    """Knee of a queue-depth sweep. Repeated QDs are combined by their median; NaN points are dropped."""
    import numpy as np

    params = params or KneeParams()
    q = np.asarray(qd, dtype=float)
    x = np.asarray(throughput, dtype=float)
    lat = np.asarray(latency_ns, dtype=float) if latency_ns is not None else np.full(len(q), np.nan)
    if not (len(q) == len(x) == len(lat)):
        raise ValueError("qd, throughput and latency differ in length")
    keep = np.isfinite(q) & (q > 0) & np.isfinite(x)
    q, x, lat = q[keep], x[keep], lat[keep]
    levels = np.unique(q)
    xs = np.array([np.median(x[q == v]) for v in levels])
    lats = np.array([np.nanmedian(lat[q == v]) if np.any(np.isfinite(lat[q == v])) else np.nan for v in levels])
    if len(levels) < params.min_points:
        return KneeReport(
            params, evaluated=False, reason=f"{len(levels)} queue depths; at least {params.min_points} are needed"
        )
    peak = float(np.max(xs))
    if not peak > 0:
        return KneeReport(
            params, qd=list(levels), throughput=list(xs), evaluated=False, reason="no throughput at any queue depth"
        )
    qd_frac = float(levels[np.argmax(xs >= params.fraction * peak)])
    have_lat = bool(np.all(np.isfinite(lats)))
    n_star = float(peak * lats[0] * 1e-9) if have_lat and lats[0] > 0 else None
    elbow = _hinge_elbow(levels, lats) if have_lat else None
    kneedle = _kneedle(levels, xs)

    def step(v: float) -> int:  # index of the nearest sweep point on a log scale
        return int(np.argmin(np.abs(np.log2(levels) - np.log2(max(v, 1e-9)))))

    positions = [step(v) for v in (qd_frac, n_star, elbow, kneedle) if v is not None]
    consistent = max(positions) - min(positions) <= params.consistency_steps

    return KneeReport(
        params,
        qd=[float(v) for v in levels],
        throughput=[float(v) for v in xs],
        latency_ns=[float(v) for v in lats] if have_lat else [],
        peak=peak,
        qd_at_fraction=qd_frac,
        n_star=n_star,
        latency_elbow_qd=elbow,
        kneedle_qd=kneedle,
        recommended_qd=qd_frac,
        consistent=consistent,
    )
