"""How long a plan takes, for `--dry-run` and the `iolab presets` listing."""

from __future__ import annotations

from collections.abc import Mapping

from iolab.models.job_options import JobOptions
from iolab.models.plan import MetadataScaling, Plan
from iolab.plan.adaptive import max_runs
from iolab.plan.presets import calibration_seconds

# Wall time fio adds to each invocation beyond ramp_time + runtime (start-up,
# job setup, teardown, JSON output). Measured with fio 3.33 on a 2-CPU VM,
# ext4 on virtio: `fio --name=o --filename=F --size=64M --rw=randread --bs=4k
# --ioengine=libaio --iodepth=32 --time_based --runtime=1` took 1.30-1.34 s
# over 5 runs (0.55 s extra on the first, which laid out the file);
# numjobs=4 direct=1: 1.31-1.34 s; the null engine 1.28 s. We use 0.35 s.
FIO_STARTUP_SECONDS = 0.35


def point_seconds(options: Mapping[str, str]) -> float:
    """Expected wall time of one fio invocation of these options: the job plus fio's start-up."""
    return JobOptions(options).expected_seconds + FIO_STARTUP_SECONDS


def metadata_seconds(scaling: MetadataScaling) -> float:
    """A metadata scaling's seconds: one calibration (unless the file count is fixed), then per thread count
    three phases of about `runtime` each (remove counted at its cap; it is often much shorter)."""
    calibration = 0.0 if scaling.files_per_thread is not None else calibration_seconds(scaling) + FIO_STARTUP_SECONDS
    return calibration + len(scaling.threads) * 3 * (scaling.runtime + FIO_STARTUP_SECONDS)


def estimate_seconds(plan: Plan) -> float:
    """Seconds a plan should take on its targets (one target when none are named).

    Open-ended parts count at their cap (adaptive QD searches at their
    worst case, steady-state rounds at max_rounds); adaptive repeats at the
    minimum count. Preconditioning counts only fio's start-up, because
    writing a device twice takes as long as the device makes it take.
    """
    count = plan.repeat
    targets = max(1, len(plan.targets))
    fixed = sum(point_seconds(w.options) * (1 if w.target else targets) for w in plan.workloads) * count
    total = sum(max_runs(s) * point_seconds(s.base.options) for s in plan.qd_searches) * count
    if plan.latency_curve is not None:
        curve = plan.latency_curve
        total += (1 + len(curve.fractions)) * point_seconds(curve.probe.options) * count
    if plan.steady_rounds is not None:
        rounds = plan.steady_rounds
        total += rounds.max_rounds * sum(point_seconds(w.options) for w in rounds.round)
    if plan.metadata is not None:
        total += metadata_seconds(plan.metadata) * count
    if plan.phases.precondition is not None:
        total += FIO_STARTUP_SECONDS
    return fixed + total * targets


def chosen_while_running(plan: Plan) -> dict[str, int]:
    """The parts of a plan that choose their points from results, each with the most points it adds on one
    target: what a preview can promise about a run whose points are not known before it runs."""
    parts: dict[str, int] = {}
    if plan.qd_searches:
        parts["adaptive queue-depth search"] = sum(max_runs(s) for s in plan.qd_searches)
    if plan.latency_curve is not None:
        parts["latency curve"] = 1 + len(plan.latency_curve.fractions)
    if plan.steady_rounds is not None:
        parts["steady-state rounds"] = plan.steady_rounds.max_rounds * len(plan.steady_rounds.round)
    if plan.metadata is not None:
        parts["file create, stat and remove, file counts sized from a calibration"] = 3 * len(plan.metadata.threads)
    return parts
