"""Rules on arrays of drives: the odd drive out, a drive slow only together, sets that do not scale.

An array run measures each workload three ways (`iolab.runner.arrays`):
every drive together (one job per drive), each drive alone, and sets of
drives (the first 1, 2, 4 ... by default; the first N, every drive but one,
or named sets with `--subsets`). The numbers come from `iolab.analysis.outliers` and
`iolab.analysis.scaling`; this module says what they mean.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from iolab.analysis.noise import own_noise, relative_error
from iolab.analysis.outliers import DeviceScore, OutlierParams, OutlierReport, find_outliers
from iolab.analysis.scaling import ScalingReport, scaling_table
from iolab.analysis.stopping import MIN_BATCHES as MIN_BATCH_SECONDS
from iolab.doctor.derived import ArrayView, active_seconds
from iolab.doctor.rule import Context, Rule, rule
from iolab.doctor.rules.telemetry import busy_points
from iolab.models import Finding, units
from iolab.models.array_names import TOGETHER

_P = OutlierParams()  # the defaults the rule's description quotes
# An array that could not have named a drive at this share of its median (or above) says so: "60% of its peers"
# is what a user asks of an outlier test (issue 40); fewer drives or a wider spread cannot show it.
UNSEEN_RATIO = 0.6
KEEPS_UP = 0.95  # alone, a drive within 5% of the median of its peers keeps up with them
NOISE_SIGMAS = 2.0  # a drop between two sets must exceed this many standard errors of their difference


def _mb(value: float) -> str:
    return f"{units.mb_per_s(value)} MB/s"


def _score(value: float | None) -> str:
    """A drive's test statistic as read: infinite when the others read alike (a spread of zero), so that any
    difference at all is beyond it."""
    if value is None:
        return "n/a"
    if math.isinf(value):
        return f"{'below' if value < 0 else 'above'} any spread (the others read alike)"
    return f"{value:.1f}"


def _outliers(ctx: Context, view: ArrayView) -> dict[str, OutlierReport]:
    """The outlier report of each view the array was measured in ("together", "alone"), each device's figure
    judged against its own noise where its seconds were logged."""
    return {
        label: find_outliers(values, view=label, metric="bandwidth", noise=_noise(ctx, view, label))
        for label, values in (("together", view.together), ("alone", view.alone))
        if values
    }


def _seconds(ctx: Context, view: ArrayView, label: str, device: str) -> list[float] | None:
    """The device's per-second bandwidth in a view, its active seconds only (`active_seconds`: no partial
    first and last second, no idle start-up): its own series in the together point (telemetry), the
    point's jobs summed alone; None when not logged."""
    point = _point_of(view, label, device)
    if label == "together":
        mine = [s for s in ctx.series if s.point == point and s.label.startswith(f"{device} ")]
    else:
        mine = [s for s in ctx.series if s.point == point and s.label == "all jobs"]
    best = max(mine, key=lambda s: sum(s.values), default=None)
    return None if best is None else active_seconds(best)[1]


def _noise(ctx: Context, view: ArrayView, label: str) -> dict[str, float]:
    """Each device's relative standard error in a view, where known: of its seconds' mean about its own levels
    (`own_noise`: a drive slow for part of the point holds two levels, which are what is to be named, not noise
    that excuses it)."""
    values = view.together if label == "together" else view.alone
    out = {}
    for device in values:
        seconds = _seconds(ctx, view, label, device)
        error = own_noise(seconds) if seconds else None
        if error is not None:
            out[device] = error
    return out


def _point_of(view: ArrayView, label: str, device: str) -> str:
    """The point a device's figure in a view comes from."""
    return f"{view.workload}-{TOGETHER}" if label == "together" else view.points.get((device,), "")


def _method(report: OutlierReport) -> str:
    p = report.params
    envelope = (
        f", or against a spread of {p.envelope_sigma:.0%} (the widest healthy peers are taken to have) past the "
        f"normal {p.envelope_alarm:g}/n quantile"
        if report.envelope_holds
        else f" (the peers spread wider than {p.envelope_sigma:.0%}: judged by their own spread only)"
    )
    alarm = p.loo_alarm
    if not report.envelope_judged:
        envelope = f" ({p.envelope_devices} drives or more: judged by their own spread)"
    elif p.small_loo_alarm is not None:
        alarm = p.small_loo_alarm
    return (
        f"leave-out t against the others' mean and sd past its {alarm:g}/n quantile{envelope}; or modified "
        f"z-score (robust scale: {report.scale_method}) below -{p.threshold:g} in {p.z_min_devices} drives or more; "
        f"and at least {p.rel_floor:.0%} below the median"
    )


def _unseen(report: OutlierReport) -> str:
    """What a drive would have had to be to be named, where that is below UNSEEN_RATIO of the median ("" when
    the array could have named a drive at UNSEEN_RATIO)."""
    if report.floor is None or report.floor >= UNSEEN_RATIO:
        return ""
    spread = (
        "" if report.envelope_holds else f", wider than the {report.params.envelope_sigma:.0%} healthy drives show,"
    )
    return (
        f"{len(report.scores)} drives spread {math.expm1(report.scale):.0%} (robust sd of ln bandwidth){spread} "
        f"could name only a drive {1 - report.floor:.0%} or more below the median (at {report.floor:.0%} of it or "
        f"less): a drive at {UNSEEN_RATIO:.0%} of its peers would go unseen"
    )


@rule(
    id="ARR-OUTLIER",
    family="arrays",
    level="high",
    needs="arrays",
    title="A drive is the odd one out of its array",
    applies="array runs with at least 3 drives in a view (together or alone)",
    trigger=f"at least 5% below the array median and, of the worst {_P.loo_block} drives set aside one at a time "
    "(each 5% below the median), below the mean of the others' ln(bandwidth) by more than Student's "
    f"t (n - 2 degrees of freedom) at {_P.loo_alarm:g}/n times their sample sd ({_P.small_loo_alarm:g}/n in "
    f"arrays of fewer than {_P.envelope_devices} drives), or, in those, by more than the normal "
    f"{_P.envelope_alarm:g}/n quantile of a spread of {_P.envelope_sigma:.0%} (the widest healthy peers of one "
    "array are taken to have; not where the others spread wider), its own noise beyond theirs (of its seconds' "
    "mean, blind to level steps) in quadrature; or, in "
    f"{_P.z_min_devices} drives or more, a modified z-score of ln(bandwidth) below -{_P.threshold:g}. Info when "
    "only alone and the drive kept up together, when the host was busy during its point (TEL-INTERFERENCE), or "
    "when its point was too short to know its noise; info, naming no drive, when the array could not have named a "
    f"drive at {UNSEEN_RATIO:.0%} of its median (few drives, wide spread)",
    why="In an array every job waits for the slowest member, so one slow drive sets the pace.",
    fix="Compare its PCIe link speed and width, NUMA node, firmware, SMART temperature and fill/TRIM state "
    "with its peers; re-run to see if it stays an outlier.",
    evidence="its bandwidth, the median, leave-out t, envelope score, modified z, drives",
    source="a leave-out prediction interval on log rates (Student's t, Bonferroni over the drives) set aside one "
    "drive at a time as in Rosner's generalized ESD, beside one at the widest spread of healthy peers "
    "(reference/analysis.md §5.4; parameters from bench/outlier_envelope.py); Iglewicz and Hoaglin's modified "
    "z-score on a log scale; Rousseeuw and Croux's Qn when MAD is 0; batch means for each point's standard error",
)
def outlier(ctx: Context, r: Rule) -> Iterator[Finding]:
    busy = busy_points(ctx)
    for view in ctx.arrays:
        reports = _outliers(ctx, view)
        for label, report in reports.items():
            subject = f"{view.workload} ({label})"
            if not report.evaluated:
                yield r.not_evaluated(report.reason, subject)
                continue
            unseen = _unseen(report)
            if unseen:
                evidence = {"drives": len(report.scores), "median": _mb(report.median), "method": _method(report)}
                yield r.finding(f"{subject}: {unseen}", subject, evidence, "info")
            for score in report.outliers:
                evidence = {
                    "bandwidth": _mb(score.value),
                    "median": _mb(report.median),
                    "leave-out t": _score(score.t),
                    "envelope score": _score(score.envelope),
                    "modified z": _score(score.z),
                    "own noise": "not logged" if score.noise is None else f"±{score.noise:.1%} (standard error)",
                    "drives": len(report.scores),
                    "workload": view.workload,
                    "method": _method(report),
                }
                title = f"{score.device} is an outlier: bandwidth {score.rel_dev:+.0%} from the array median ({label})"
                doubt = _doubt(ctx, view, label, score, busy)
                if doubt:
                    evidence["why a possibility"] = doubt
                    yield r.finding(
                        f"{title}; {doubt}: a possibility, re-run to confirm", score.device, evidence, "info"
                    )
                    continue
                if label == "alone" and _kept_up_together(score.device, view, reports.get("together")):
                    # Alone, each drive runs at another moment of a possibly busy host; together, all run in the
                    # same seconds. A drive that kept up together is not shown slow beyond the host's own drift.
                    evidence["together"] = _mb(view.together[score.device])
                    yield r.finding(
                        f"{title}; together it kept up: re-run it alone to confirm",
                        score.device,
                        evidence,
                        level="info",
                    )
                    continue
                yield r.finding(title, score.device, evidence)


def _doubt(ctx: Context, view: ArrayView, label: str, score: DeviceScore, busy: dict[str, str]) -> str:
    """Why an outlier verdict is only a possibility ("" when it is not): the host was busy during its point,
    or its point was too short to know its own noise (seconds logged for the run, too few for this point).
    A drive past half of its slowest peer is named whatever the host did."""
    if score.far:
        return ""
    point = _point_of(view, label, score.device)
    if point in busy:
        return f"the host was busy during this point ({busy[point]})"
    if score.noise is None and ctx.series:
        return "its point was too short to know its own noise"
    return ""


def _kept_up_together(device: str, view: ArrayView, together: OutlierReport | None) -> bool:
    """Whether the device reached KEEPS_UP of the together median and was not an outlier there."""
    if together is None or not together.evaluated or device not in view.together:
        return False
    return device not in {s.device for s in together.outliers} and view.together[device] >= KEEPS_UP * together.median


@rule(
    id="ARR-SHARED-PATH",
    family="arrays",
    level="high",
    needs="arrays",
    title="A drive is slow only when the array runs together",
    applies="array runs measured both together and alone",
    trigger="an outlier together that, alone, reached at least 95% of the median of its peers alone",
    why="Alone it keeps up with its peers; something it shares with the others under load (a PCIe switch, a "
    "root port, a NUMA node, the CPUs taking its interrupts) does not.",
    fix="Check which PCIe switch or root port and NUMA node it hangs off, and which CPUs service its interrupts.",
    evidence="its bandwidth together and alone against each view's median",
    source="reading the together and alone views side by side",
)
def shared_path(ctx: Context, r: Rule) -> Iterator[Finding]:
    for view in ctx.arrays:
        reports = _outliers(ctx, view)
        together, alone = reports.get("together"), reports.get("alone")
        if together is None or alone is None or not alone.evaluated:
            continue
        for score in together.outliers:
            value = view.alone.get(score.device)
            if value is None or value < KEEPS_UP * alone.median:
                continue  # slow alone as well (flagged or not): the drive itself, never "fine"
            yield r.finding(
                f"{score.device} is slow only when the array runs together",
                score.device,
                {
                    "together": f"{_mb(score.value)} (median {_mb(together.median)})",
                    "alone": f"{_mb(value)} (median {_mb(alone.median)})",
                    "workload": view.workload,
                },
            )


def _relative_error(ctx: Context, view: ArrayView, *sets: tuple[str, ...]) -> float | None:
    """The noise of the difference of two sets' bandwidths, relative: the standard error of each point's mean
    from batch means of its per-second samples (all its jobs; `analysis.noise`). The points ran at different
    moments; a host busy in one of them is TEL-INTERFERENCE's to name, and makes a drop a possibility only.
    None when the run logged no seconds at all (imported results): the tolerance alone decides. Infinite
    when it did but a point has too few of them to know its noise (a 3 s point keeps one whole second):
    two single figures are no verdict."""
    if not ctx.series:
        return None
    errors = []
    for devices in sets:
        name = view.points.get(devices)
        values = next((s.values[1:-1] for s in ctx.series if s.point == name and s.label == "all jobs"), None)
        error = relative_error(values) if values else None
        if error is None:
            return math.inf
        errors.append(error**2)
    return math.sqrt(sum(errors))


def _scaling(view: ArrayView) -> ScalingReport | None:
    if not view.sets:
        return None
    return scaling_table(view.device_sets(), view.alone or None)


def _scaling_method(report: ScalingReport) -> str:
    p = report.params
    return (
        f"a set against the best of the smaller sets it contains; a drop beyond {p.tolerance:.0%}; "
        "efficiency = aggregate / the same drives' bandwidths alone, summed"
    )


@rule(
    id="ARR-SCALING-DROP",
    family="arrays",
    level="high",
    needs="arrays",
    title="More drives together, less bandwidth",
    applies="array runs with device sets (scaling mode)",
    trigger="a set's aggregate more than 2% below that of a smaller set it contains, and more than 2 standard "
    "errors of the difference of their means (batch means of each point's per-second samples); not evaluated on points too short to know their noise; info when either point's host was busy",
    why="Adding drives should never lower the total; when it does, a shared resource (CPU, PCIe switch, memory "
    "bandwidth, interrupts) is saturated or contended. A 30-SSD server in a public study gave 127 GB/s with "
    "30 drives, 131 GB/s with 28 and 132 GB/s with 24.",
    fix="Look at per-CPU busy and softirq telemetry during the larger set, spread jobs over NUMA nodes, and check "
    "the added drives' PCIe paths.",
    evidence="both sets' aggregates, the drives added",
    source="aggregate against contained subsets",
)
def scaling_drop(ctx: Context, r: Rule) -> Iterator[Finding]:
    for view in ctx.arrays:
        report = _scaling(view)
        if report is None:
            continue
        if not report.evaluated:
            yield r.not_evaluated(report.reason, view.workload)
            continue
        busy = busy_points(ctx)
        unknown = 0
        for drop in report.drops:
            noise = _relative_error(ctx, view, drop.larger, drop.smaller)
            if noise == math.inf:
                unknown += 1
                continue
            if noise is not None and drop.drop <= NOISE_SIGMAS * noise:
                continue  # inside what the two points' own seconds varied by
            added = sorted(set(drop.larger) - set(drop.smaller))
            evidence = {
                f"{len(drop.larger)} drives": _mb(drop.larger_aggregate),
                f"{len(drop.smaller)} drives": f"{_mb(drop.smaller_aggregate)} ({', '.join(drop.smaller)})",
                "added": ", ".join(added) or "-",
                "noise of the difference": "not logged" if noise is None else f"±{noise:.1%} (standard error)",
                "method": _scaling_method(report),
            }
            title = (
                f"{view.workload}: {len(drop.larger)} drives gave {drop.drop:.0%} less than {len(drop.smaller)} of them"
            )
            doubts = [busy[p] for p in (view.points.get(drop.larger), view.points.get(drop.smaller)) if p in busy]
            if doubts:
                evidence["why a possibility"] = f"the host was busy ({doubts[0]})"
                yield r.finding(
                    f"{title}; the host was busy: a possibility, re-run to confirm", view.workload, evidence, "info"
                )
                continue
            yield r.finding(title, view.workload, evidence)
        if unknown:
            yield r.not_evaluated(
                f"{unknown} drop(s) between points too short to know their own noise (fewer than "
                f"{MIN_BATCH_SECONDS} whole seconds logged)",
                view.workload,
            )


@rule(
    id="ARR-SCALING-LOW",
    family="arrays",
    level="info",
    needs="arrays",
    title="Drives together reach well under n times one drive",
    applies="array runs with device sets and drives measured alone",
    trigger="the least efficient set of 2 or more drives below 80% of what the same drives gave alone, summed",
    why="Below-linear scaling means something other than the drives limits the total.",
    fix="Check for CPU-bound jobs and saturated CPUs in the same run.",
    evidence="aggregate, ideal, efficiency",
    source="scaling efficiency",
)
def scaling_low(ctx: Context, r: Rule) -> Iterator[Finding]:
    for view in ctx.arrays:
        report = _scaling(view)
        if report is None or not report.evaluated:
            continue
        worst = min((row for row in report.rows if row.n > 1), key=lambda row: row.efficiency, default=None)
        if worst is not None and worst.efficiency < report.params.low_efficiency:
            yield r.finding(
                f"{view.workload}: {worst.n} drives together reach {worst.efficiency:.0%} of what they gave alone",
                view.workload,
                {"aggregate": _mb(worst.aggregate), "ideal": _mb(worst.ideal), "method": _scaling_method(report)},
            )
