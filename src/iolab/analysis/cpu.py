"""Is the run measuring the CPUs instead of the storage?

Two signs, either enough: a fio job whose usr+sys is near 100% of one core
(its submission thread cannot go faster), or CPUs that telemetry saw busy
most of the run (interrupts and softirq included, which fio's own figures
miss). The 30-SSD case needed 6 jobs for peak reads until the IOMMU and
mitigations were turned off: a CPU-bound run that looked like a storage limit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from iolab.models import Finding, Severity


@dataclass(frozen=True)
class CpuBoundParams:
    job_busy_pct: float = 90.0  # usr+sys of one job, % of one core
    cpu_busy_pct: float = 90.0  # a CPU's median busy % over the run
    min_samples: int = 3


@dataclass(frozen=True)
class CpuBoundReport:
    params: CpuBoundParams
    hot_jobs: dict[str, float] = field(default_factory=dict)  # job -> usr+sys %
    saturated_cpus: dict[str, float] = field(default_factory=dict)  # cpu -> median busy %
    jobs_checked: int = 0
    cpus_checked: int = 0
    evaluated: bool = True
    reason: str = ""

    @property
    def cpu_bound(self) -> bool:
        return bool(self.hot_jobs or self.saturated_cpus)

    def findings(self, subject: str = "") -> list[Finding]:
        p = self.params
        method = f"job usr+sys >= {p.job_busy_pct:g}% of a core, or a CPU's median busy >= {p.cpu_busy_pct:g}%"
        if not self.evaluated:
            return [Finding("results.cpu-bound", "results", Severity.NOT_EVALUATED,
                            f"CPU-bound check not evaluated: {self.reason}", subject, {"method": method})]
        if not self.cpu_bound:
            return []
        evidence = {f"job {j}": f"{v:.0f}% of a core" for j, v in sorted(self.hot_jobs.items())}
        evidence |= {c: f"{v:.0f}% busy (median)" for c, v in sorted(self.saturated_cpus.items())}
        evidence["method"] = method
        return [
            Finding(
                rule_id="results.cpu-bound",
                family="results",
                severity=Severity.WARNING,
                title="The run was CPU-bound: its numbers may measure the CPUs, not the storage",
                subject=subject,
                evidence=evidence,
                why="When submission or completion saturates a core, a faster device cannot go faster.",
                fix="Add jobs (numjobs) or spread them over CPUs, use io_uring or larger blocks; check "
                "IOMMU (iommu=pt or off) and CPU mitigations, which raise the CPU cost per I/O.",
            )
        ]


def check_cpu_bound(
    job_cpu_pct: Mapping[str, float],
    cpu_busy_series: Mapping[str, Sequence[float]] | None = None,
    params: CpuBoundParams | None = None,
) -> CpuBoundReport:
    """`job_cpu_pct`: fio job -> usr+sys in % of one core; `cpu_busy_series`: "cpu0" -> busy % per tick.

    Pass per-CPU series only (not the all-CPU "cpu" line): one saturated core
    among many hides in an average.
    """
    import numpy as np

    params = params or CpuBoundParams()
    jobs = {j: float(v) for j, v in job_cpu_pct.items() if np.isfinite(v)}
    cpus = {c: [float(v) for v in s if np.isfinite(v)] for c, s in (cpu_busy_series or {}).items()}
    cpus = {c: s for c, s in cpus.items() if len(s) >= params.min_samples}
    if not jobs and not cpus:
        return CpuBoundReport(params, evaluated=False, reason="no job CPU figures and no CPU telemetry")
    hot = {j: v for j, v in jobs.items() if v >= params.job_busy_pct}
    medians = {c: float(np.median(s)) for c, s in cpus.items()}
    saturated = {c: m for c, m in medians.items() if m >= params.cpu_busy_pct}
    return CpuBoundReport(params, hot, saturated, jobs_checked=len(jobs), cpus_checked=len(cpus))
