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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


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
