"""How aggregate bandwidth grows with the number of devices run together.

Efficiency = aggregate / (n x one device's bandwidth alone), where "one
device" is the mean (or the best) of the devices measured alone. A larger set
whose aggregate is lower than a smaller set's, by more than `tolerance`, is a
non-monotonic point: adding drives made the array slower (in the 30-SSD case,
30 drives gave 127 GB/s, 28 gave 131 and 24 gave 132).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from iolab.models import Finding, Severity


@dataclass(frozen=True)
class ScalingParams:
    reference: str = "mean"  # "mean" or "best" of the single-device bandwidths
    tolerance: float = 0.02  # run-to-run noise: smaller drops are not called a regression
    low_efficiency: float = 0.80  # below this, the set is reported as not scaling


@dataclass(frozen=True)
class ScalingRow:
    devices: tuple[str, ...]
    aggregate: float
    ideal: float  # n x reference
    efficiency: float

    @property
    def n(self) -> int:
        return len(self.devices)


@dataclass(frozen=True)
class ScalingDrop:
    """A set with more devices that was slower than a smaller one."""

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

    def findings(self, subject: str = "", unit: str = "bytes/s") -> list[Finding]:
        p = self.params
        method = f"efficiency = aggregate / (n x {p.reference} single-device); drops beyond {p.tolerance:.0%}"
        if not self.evaluated:
            return [
                Finding("results.scaling", "results", Severity.NOT_EVALUATED,
                        f"Scaling not evaluated: {self.reason}", subject, {"method": method})
            ]
        out = []
        for d in self.drops:
            out.append(
                Finding(
                    rule_id="results.non-monotonic-scaling",
                    family="results",
                    severity=Severity.WARNING,
                    title=f"{len(d.larger)} devices were {d.drop:.0%} slower than {len(d.smaller)}",
                    subject=subject,
                    evidence={
                        f"{len(d.larger)} devices": f"{d.larger_aggregate:.4g} {unit}",
                        f"{len(d.smaller)} devices": f"{d.smaller_aggregate:.4g} {unit}",
                        "added": ", ".join(sorted(set(d.larger) - set(d.smaller))) or "-",
                        "method": method,
                    },
                    why="Adding drives should never lower the total; when it does, a shared resource "
                    "(CPU, PCIe switch, memory bandwidth, interrupts) is saturated or contended.",
                    fix="Look at per-CPU busy and softirq telemetry during the larger run, spread jobs "
                    "over NUMA nodes, and check the added drives' PCIe paths.",
                )
            )
        worst = min(self.rows, key=lambda r: r.efficiency, default=None)
        if worst is not None and worst.n > 1 and worst.efficiency < p.low_efficiency:
            out.append(
                Finding(
                    rule_id="results.scaling",
                    family="results",
                    severity=Severity.INFO,
                    title=f"{worst.n} devices reach {worst.efficiency:.0%} of {worst.n}x one device",
                    subject=subject,
                    evidence={
                        "aggregate": f"{worst.aggregate:.4g} {unit}",
                        "ideal": f"{worst.ideal:.4g} {unit}",
                        "method": method,
                    },
                    why="Below-linear scaling means something other than the drives limits the total.",
                    fix="Check for CPU-bound jobs and saturated CPUs in the same run.",
                )
            )
        return out


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
    rows = sorted(
        (ScalingRow(d, a, len(d) * ref, a / (len(d) * ref)) for d, a in clean),
        key=lambda r: (r.n, -r.aggregate),
    )
    drops = []
    best_smaller: ScalingRow | None = None
    for n in sorted({r.n for r in rows}):
        same_n = [r for r in rows if r.n == n]
        if best_smaller is not None:
            for r in same_n:
                if r.aggregate < (1.0 - params.tolerance) * best_smaller.aggregate:
                    drops.append(
                        ScalingDrop(r.devices, r.aggregate, best_smaller.devices, best_smaller.aggregate,
                                    1.0 - r.aggregate / best_smaller.aggregate)
                    )
        top = max(same_n, key=lambda r: r.aggregate)
        if best_smaller is None or top.aggregate > best_smaller.aggregate:
            best_smaller = top
    return ScalingReport(params, reference=ref, rows=rows, drops=drops)
