"""Little's law check: did fio keep the queue as full as it was asked to?

Outstanding I/O = IOPS x mean latency (N = X R). Asked for: iodepth x
numjobs. Well below (`load-limited`) means the load generator, not the
device, set the pace: CPU-bound submission, a sync engine, batching. Well
above means the figures do not fit together (wrong latency kind or units).
Use total latency (`lat`), not completion latency (`clat`).
"""

from __future__ import annotations

from dataclasses import dataclass

from iolab.models import Finding, Severity


@dataclass(frozen=True)
class LittlesLawParams:
    tolerance: float = 0.15


@dataclass(frozen=True)
class LittlesLawCheck:
    params: LittlesLawParams
    iops: float
    mean_latency_ns: float
    asked: int  # iodepth x numjobs
    effective: float  # IOPS x mean latency
    ratio: float  # effective / asked
    verdict: str  # "ok", "load-limited", "inconsistent" or "not-evaluated"

    def findings(self, subject: str = "") -> list[Finding]:
        evidence = {
            "IOPS": f"{self.iops:.4g}",
            "mean latency": f"{self.mean_latency_ns / 1000:.4g} us",
            "outstanding asked (iodepth x numjobs)": str(self.asked),
            "outstanding measured (IOPS x latency)": f"{self.effective:.3g}",
            "method": f"Little's law, tolerance +/-{self.params.tolerance:.0%}",
        }
        if self.verdict == "not-evaluated":
            return [Finding("results.littles-law", "results", Severity.NOT_EVALUATED,
                            "Little's law not evaluated: no IOPS, latency or queue depth", subject, evidence)]
        if self.verdict == "load-limited":
            return [
                Finding(
                    rule_id="results.littles-law",
                    family="results",
                    severity=Severity.WARNING,
                    title=f"Only {self.effective:.2g} of {self.asked} requested I/Os were in flight on average",
                    subject=subject,
                    evidence=evidence,
                    why="The load generator did not keep the queue full, so this point shows the "
                    "submitter's limit, not the device's.",
                    fix="Check fio CPU use (CPU-bound?), use an async engine (libaio/io_uring), "
                    "more numjobs, or iodepth_batch settings.",
                )
            ]
        if self.verdict == "inconsistent":
            return [
                Finding(
                    rule_id="results.littles-law",
                    family="results",
                    severity=Severity.INFO,
                    title=f"IOPS x latency gives {self.effective:.3g} I/Os in flight, more than the {self.asked} asked",
                    subject=subject,
                    evidence=evidence,
                    why="More I/O cannot be outstanding than was asked for; the figures do not fit together.",
                    fix="Check that latency is fio's total lat in ns and IOPS is for the same direction.",
                )
            ]
        return []


def littles_law_check(
    iops: float, mean_latency_ns: float, iodepth: int, numjobs: int = 1, params: LittlesLawParams | None = None
) -> LittlesLawCheck:
    """Compare IOPS x mean latency with iodepth x numjobs (sync engines: pass iodepth=1)."""
    params = params or LittlesLawParams()
    asked = int(iodepth) * int(numjobs)
    usable = iops > 0 and mean_latency_ns > 0 and asked > 0 and iops == iops and mean_latency_ns == mean_latency_ns
    effective = iops * mean_latency_ns * 1e-9 if usable else 0.0
    ratio = effective / asked if usable else 0.0
    if not usable:
        verdict = "not-evaluated"
    elif ratio < 1.0 - params.tolerance:
        verdict = "load-limited"
    elif ratio > 1.0 + params.tolerance:
        verdict = "inconsistent"
    else:
        verdict = "ok"
    return LittlesLawCheck(params, float(iops), float(mean_latency_ns), asked, effective, ratio, verdict)
