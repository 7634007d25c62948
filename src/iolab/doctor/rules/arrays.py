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
from statistics import median as _median

from iolab.analysis.noise import own_noise, relative_error
from iolab.analysis.outliers import DeviceScore, OutlierParams, OutlierReport, find_outliers_by_class
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


def _outliers(ctx: Context, view: ArrayView) -> dict[str, dict[str, OutlierReport]]:
    """The outlier reports of each view the array was measured in ("together", "alone"), by drive model where
    the host's probe knows two or more among the array's drives (`models`: each model judged against its own
    kind; one report, model "", otherwise), each device's figure judged against its own noise where its
    seconds were logged. Judged once for ARR-OUTLIER and ARR-SHARED-PATH (`Context.shared`: each judged every
    array itself, the group search and every drive's noise twice)."""

    def judged() -> dict[str, dict[str, OutlierReport]]:
        models = _models(ctx, view)
        return {
            label: find_outliers_by_class(
                values, models, view=label, metric="bandwidth", noise=_noise(ctx, view, label)
            )
            for label, values in (("together", view.together), ("alone", view.alone))
            if values
        }

    return ctx.shared(f"arrays.outliers.{id(view)}", judged)


def _models(ctx: Context, view: ArrayView) -> dict[str, str]:
    """Each drive's model, where the snapshot knows every drive's and they are two or more ({} otherwise: the
    array is judged as one). Drives of two models run at two speeds; judged as one array, the slower model is a
    slow group that is no fault (issue 40, fourth round)."""
    devices = set(view.together) | set(view.alone)
    known = {d: dev.model for d in devices if ctx.snapshot and (dev := ctx.snapshot.device(d)) and dev.model}
    return known if len(known) == len(devices) and len(set(known.values())) > 1 else {}


def _shared_port(ctx: Context, group: tuple[str, ...], others: list[str]) -> str:
    """The PCI function nearest the drives that every drive of the group hangs off and not every other drive
    does (an HBA, a switch's port, a root port), as "0000:41:00.0"; "" where the snapshot does not know it."""
    chains = [_chain(ctx, name) for name in group]
    if not all(chains):
        return ""
    rest = [_chain(ctx, name) for name in others]
    common = [a for a in chains[0] if all(a in c for c in chains[1:])]
    return next((a for a in common if not all(a in c for c in rest)), "")


def _chain(ctx: Context, name: str) -> list[str]:
    """The PCI functions a drive hangs off, nearest first, as the snapshot read them ([] where it did not)."""
    device = ctx.snapshot.device(name) if ctx.snapshot else None
    return [] if device is None else [p.address for p in (device.pcie, *device.upstream) if p is not None]


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
    if report.mixture_judged:
        from iolab.analysis.outlier_mixture import SLOW_RANGE  # numpy: only where an array is judged

        return (
            "each drive's posterior odds of being slow (up to two slow drives, a slow drive anywhere at "
            f"{SLOW_RANGE[0]:.0%}-{SLOW_RANGE[1]:.0%} of the healthy centre, the peers' spread unknown) past the cut "
            f"simulated for {len(report.scores)} drives on clean arrays; or modified z-score (robust scale: "
            f"{report.scale_method}) below -{p.threshold:.3g}; and at least {p.rel_floor:.0%} below the median"
        )
    alarm = p.loo_alarm
    if not report.envelope_judged:
        envelope = f" ({p.envelope_devices} drives or more: judged by their own spread)"
    elif p.small_loo_alarm is not None:
        alarm = p.small_loo_alarm
    return (
        f"leave-out t against the others' mean and sd past its {alarm:g}/n quantile{envelope}; or modified "
        f"z-score (robust scale: {report.scale_method}) below -{p.threshold:.3g} in {p.z_min_devices} drives or more; "
        f"and at least {p.rel_floor:.0%} below the median"
    )


def _unseen(report: OutlierReport) -> str:
    """What a drive, and a group of three drives slow together, would have had to be to be named, where either is
    below UNSEEN_RATIO of the median ("" when the array could have named both at UNSEEN_RATIO)."""
    said = [part for part in (_single_power(report.floor), _group_power(report.group_floor)) if part]
    if not said:
        return ""
    spread = (
        "" if report.envelope_holds else f", wider than the {report.params.envelope_sigma:.0%} healthy drives show,"
    )
    return f"{len(report.scores)} drives spread {math.expm1(report.scale):.0%} (robust sd of ln bandwidth){spread} " + (
        "; ".join(said)
    )


def _single_power(floor: float | None) -> str:
    if floor is None or floor >= UNSEEN_RATIO:
        return ""
    return (
        f"could name only a drive {1 - floor:.0%} or more below the median (at {floor:.0%} of it or less): a drive "
        f"at {UNSEEN_RATIO:.0%} of its peers would go unseen"
    )


def _group_power(floor: float | None) -> str:
    if floor is None or floor >= UNSEEN_RATIO:
        return ""
    return (
        f"could name three or more drives slow together (behind one HBA or switch) only at {floor:.0%} of the "
        f"median or less: such a group at {UNSEEN_RATIO:.0%} would go unseen"
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
    f"{_P.z_min_devices} drives or more, a modified z-score of ln(bandwidth) below -{_P.threshold:g}; or, in "
    f"{_P.group_devices} drives or more, one of a group of 3 up to {_P.group_share:.0%} of the drives slow together "
    "(the least slow of the worst k against the rest past its split's cut, simulated so that clean arrays of peers "
    f"spread normally or flat pass one at {_P.group_alarm:g}), named as a group with the PCI function its drives share where the snapshot knows it. "
    "Drives of two or more models (where the snapshot knows each drive's) are judged against their own model. Info when "
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
        models = _models(ctx, view)
        if models:
            yield _models_finding(r, view, models)
        for label, by_model in reports.items():
            for model, report in by_model.items():
                together = reports.get("together", {}).get(model)
                yield from _report_findings(ctx, r, view, (label, model), (report, together), busy)


def _report_findings(
    ctx: Context,
    r: Rule,
    view: ArrayView,
    where: tuple[str, str],
    reports: tuple[OutlierReport, OutlierReport | None],
    busy: dict[str, str],
) -> Iterator[Finding]:
    """One view's (and model's) report: not evaluated, what it could not have seen, its group, its drives."""
    (label, model), (report, together) = where, reports
    subject = f"{view.workload} ({label}{f', {model}' if model else ''})"
    if not report.evaluated:
        yield r.not_evaluated(report.reason, subject)
        return
    unseen = _unseen(report)
    if unseen:
        evidence = {"drives": len(report.scores), "median": _mb(report.median), "method": _method(report)}
        yield r.finding(f"{subject}: {unseen}", subject, evidence, "info")
    if report.group:
        yield _group_finding(ctx, r, view, label, report, busy)
    for score in report.outliers:
        if not score.in_group:
            yield _drive_finding(ctx, r, view, label, (score, report, together), busy)


def _models_finding(r: Rule, view: ArrayView, models: dict[str, str]) -> Finding:
    """Information: the array's drives are of two or more models, each judged against its own kind."""
    by: dict[str, list[str]] = {}
    for device, model in sorted(models.items()):
        by.setdefault(model, []).append(device)
    kinds = "; ".join(f"{model}: {len(devices)} drives" for model, devices in sorted(by.items()))
    return r.finding(
        f"{view.workload}: drives of {len(by)} models ({kinds}), each judged against drives of its own model: a "
        "slower model is no fault",
        view.workload,
        {"models": kinds},
        "info",
    )


def _group_finding(
    ctx: Context, r: Rule, view: ArrayView, label: str, report: OutlierReport, busy: dict[str, str]
) -> Finding:
    """A group of drives slow together, named as a group: how slow against the other drives, the PCI function
    they share where the snapshot knows it, and where the run does not know the drives' models, that a slower
    model would look the same."""
    values = view.together if label == "together" else view.alone
    group = tuple(d for d in values if d in set(report.group))  # in the array's order
    others = [d for d in values if d not in group]
    slow, rest = _median([values[d] for d in group]), _median([values[d] for d in others])
    port = _shared_port(ctx, group, others)
    evidence = _group_evidence(report, view, (slow, rest, len(values)), port)
    title = _group_title(group, label, slow / rest, port, _every_model_known(ctx, values))
    points = {_point_of(view, label, d) for d in group} & set(busy)
    if points:
        evidence["why a possibility"] = f"the host was busy ({busy[sorted(points)[0]]})"
        title += "; the host was busy: a possibility, re-run to confirm"
        return r.finding(title, "+".join(group), evidence, "info")
    return r.finding(title, "+".join(group), evidence)


def _group_title(group: tuple[str, ...], label: str, ratio: float, port: str, models_known: bool) -> str:
    shown = ", ".join(group[:8]) + (f" and {len(group) - 8} more" if len(group) > 8 else "")
    title = f"{len(group)} drives are slow together ({label}): {shown}, at {ratio:.0%} of the other drives' median"
    if port:
        title += f"; they share {port}, which the other drives do not: an HBA, switch or root port to look at first"
    if not models_known:
        title += "; or they are a slower drive model: the run does not know the drives' models to tell"
    return title


def _group_evidence(
    report: OutlierReport, view: ArrayView, medians: tuple[float, float, int], port: str
) -> dict[str, str | int]:
    slow, rest, count = medians
    return {
        "drives": f"{len(report.group)} of {count}",
        "median of the group": _mb(slow),
        "median of the others": _mb(rest),
        "group t": f"{_score(-(report.group_t or 0.0))} (the cut: -{report.group_cut or 0.0:.1f})",
        "shared path": port or "not known (no PCI path for every drive in the snapshot)",
        "method": "the worst k drives (3 up to half) against the rest, the least slow one's t past its split's cut "
        f"(a clean array, its peers spread normally or flat, passes one at {report.params.group_alarm:g}; "
        "analysis.outlier_groups)",
        "workload": view.workload,
    }


def _every_model_known(ctx: Context, devices: dict[str, float]) -> bool:
    snapshot = ctx.snapshot
    return snapshot is not None and all((d := snapshot.device(name)) is not None and d.model for name in devices)


def _drive_finding(
    ctx: Context,
    r: Rule,
    view: ArrayView,
    label: str,
    judged: tuple[DeviceScore, OutlierReport, OutlierReport | None],
    busy: dict[str, str],
) -> Finding:
    """One drive named: a warning, or information where its point's host was busy, its point too short to know
    its noise, or (alone) it kept up together."""
    score, report, together = judged
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
    if score.odds is not None:  # the mixture test judged the array (8-32 drives)
        evidence["log odds of being slow"] = _score(score.odds)
    title = f"{score.device} is an outlier: bandwidth {score.rel_dev:+.0%} from the array median ({label})"
    doubt = _doubt(ctx, view, label, score, busy)
    if doubt:
        evidence["why a possibility"] = doubt
        return r.finding(f"{title}; {doubt}: a possibility, re-run to confirm", score.device, evidence, "info")
    if label == "alone" and _kept_up_together(score.device, view, together):
        # Alone, each drive runs at another moment of a possibly busy host; together, all run in the same
        # seconds. A drive that kept up together is not shown slow beyond the host's own drift.
        evidence["together"] = _mb(view.together[score.device])
        return r.finding(f"{title}; together it kept up: re-run it alone to confirm", score.device, evidence, "info")
    return r.finding(title, score.device, evidence)


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
        for model, together in reports.get("together", {}).items():
            alone = reports.get("alone", {}).get(model)
            if alone is not None and alone.evaluated:
                yield from _slow_only_together(r, view, together, alone)


def _slow_only_together(r: Rule, view: ArrayView, together: OutlierReport, alone: OutlierReport) -> Iterator[Finding]:
    """The drives named together that, alone, kept up with their peers."""
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
