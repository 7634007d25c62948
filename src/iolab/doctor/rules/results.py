"""Result-plausibility rules (catalogue Part D): numbers that cannot be true, or say why."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from functools import partial

from iolab.analysis.knee import KneeReport
from iolab.analysis.noise import relative_error
from iolab.analysis.scaling import LARGE_DF, SweepLevel, SweepPower, sweep_drop, unseen_drop
from iolab.analysis.stability import FAR_RATIO, FAR_SIGMAS, far_repeats, summarize
from iolab.doctor.derived import Level
from iolab.doctor.quotes import quote
from iolab.doctor.rule import Context, JobView, Rule, rule
from iolab.doctor.rules.pcie import gbs, link_bandwidths
from iolab.models import Finding, units
from iolab.models.finding import Quote


def _total_bw(job: JobView) -> float:
    return sum(d.bw_bytes for d in job.result.directions.values()) if job.result else 0.0


@rule(
    id="RES-ABOVE-LINK",
    family="results",
    level="critical",
    needs="snapshot+results",
    title="Faster than the PCIe link can carry",
    applies="results on a device whose link ceiling is known",
    trigger="read or write bandwidth > 1.02 x the hard ceiling of the narrowest current link",
    why="Physically impossible: the data came from the page cache, a tiny cached working set, compression, "
    "or the target is not the device you think.",
    fix="Check FIO-BUFFERED, FIO-CACHE-SIZE, FIO-UNWRITTEN-READ, FIO-BUFFER-CONTENT and the target mapping.",
    evidence="measured, link, ceiling",
    source="PCIe per-lane rates (kernel PCIE_SPEED2MBS_ENC)",
)
def above_link(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job, device, limit, ddir, d, ceiling in link_bandwidths(ctx):
        if d.bw_bytes > 1.02 * ceiling:
            measured = quote([(job.key, job.result)], f"{ddir}.bw", "GB/s")
            yield r.finding(
                f"{job.name}: {ddir} {measured.shown} exceeds the {gbs(ceiling)} link of {device.name}",
                device.name,
                {"measured": measured.shown, "link": f"{limit.address} {limit.describe()}", "ceiling": gbs(ceiling)},
                quotes=[measured],
            )


def _shape(job: JobView, drop: tuple[str, ...]) -> tuple:
    """Everything that defines a job except the options named in `drop` and its rw mode (rw's `:<n>` suffix,
    the same for a read and a write of one pattern, stays)."""
    keep = {k: v for k, v in job.options.items() if k not in drop + ("name", "rw", "readwrite")}
    return (job.target_path, job.job.rw_suffix, tuple(sorted(keep.items())))


@rule(
    id="RES-WRITE-GT-READ",
    family="results",
    level="medium",
    needs="results",
    title="Writes faster than reads",
    applies="pairs of results alike except for read vs write",
    trigger="write bandwidth > 1.2 x read bandwidth with the same pattern, bs, depth and target",
    why="Writes landing in a cache (page cache without end_fsync, device DRAM/SLC, async export) while reads go to "
    "media; a desktop test on a 1 GB file saw writes 3x faster than reads.",
    fix="direct=1, end_fsync=1, longer writes (past the SLC cache).",
    evidence="read and write bandwidth of the pair",
    source="page cache and device write caches (fio HOWTO: direct, end_fsync)",
)
def write_gt_read(ctx: Context, r: Rule) -> Iterator[Finding]:
    groups: dict[tuple, dict[str, JobView]] = defaultdict(dict)
    for job in ctx.results:
        kind = {"read": "seq-read", "write": "seq-write", "randread": "rand-read", "randwrite": "rand-write"}.get(
            job.rw
        )
        if kind:
            groups[(_shape(job, ()), kind.split("-")[0])][kind.split("-")[1]] = job
    for pair in groups.values():
        if "read" in pair and "write" in pair:
            reader, writer = pair["read"], pair["write"]
            rd = reader.result.directions.get("read") if reader.result else None
            wr = writer.result.directions.get("write") if writer.result else None
            if rd and wr and rd.bw_bytes > 0 and wr.bw_bytes > 1.2 * rd.bw_bytes:
                read = quote([(reader.key, reader.result)], "read.bw", "GB/s")
                write = quote([(writer.key, writer.result)], "write.bw", "GB/s")
                yield r.finding(
                    f"{writer.name} writes {wr.bw_bytes / rd.bw_bytes:.1f}x faster than {reader.name} reads",
                    writer.name,
                    {"read": read.shown, "write": write.shown},
                    quotes=[read, write],
                )


@rule(
    id="RES-NONMONOTONIC-SCALING",
    family="results",
    level="high",
    needs="results",
    heuristic=True,
    title="More parallelism, less bandwidth",
    applies="results that differ only in numjobs or iodepth (device counts: ARR-SCALING-DROP)",
    trigger="the mean bandwidth over repeats drops below the best at a smaller value, by more than 5% and more than "
    "the sweep's noise allows (relative standard errors from the repeats, else from batch means of each point's "
    "per-second series, pooled over the sweep; a 5% false-alarm share a clean sweep, split over its pairs; "
    "10% where the run logged no seconds, as for imported results; where a point was run once, also more than "
    "the sweep's own scatter allows; not evaluated for a point measured once with too few seconds); info when a "
    "drop past 5% is within the noise: below what that many points at that noise can show, with what it would "
    "take; not for file create/stat/delete jobs",
    why="Check in order: CPU saturation (FIO-CPU-BOUND; per-I/O cost from IOMMU, mitigations, debug kernel), a shared "
    "PCIe uplink, NUMA placement, and for writes a device cache that more writers fill sooner.",
    fix="Sweep per NUMA node and per uplink; fix per-I/O CPU cost first, then re-run the sweep.",
    evidence="parameter values and their bandwidth; or the drop, the noise allowed, the points and a point's noise",
    source="standard error of a difference of means, pooled over the sweep, Student's t with Bonferroni over the "
    "comparisons (bench/scaling_envelope.py); 5% floor as a practical effect size",
)
def nonmonotonic(ctx: Context, r: Rule) -> Iterator[Finding]:
    for param in ("numjobs", "iodepth"):
        groups: dict[tuple, dict[int, list[JobView]]] = defaultdict(lambda: defaultdict(list))
        for job in ctx.results:
            if not job.metadata:
                groups[(job.rw, _shape(job, (param,)))][job.numjobs if param == "numjobs" else job.iodepth].append(job)
        for by_value in groups.values():
            yield from _sweep_verdict(ctx, r, param, by_value)


def _sweep_verdict(ctx: Context, r: Rule, param: str, by_value: dict[int, list[JobView]]) -> Iterator[Finding]:
    """One sweep's finding: a drop, a drop it could not judge, or a drop below what its noise can show."""
    levels = [SweepLevel(v, *_level(ctx, jobs)) for v, jobs in sorted(by_value.items())]
    found = sweep_drop(levels)
    if found is None and (unseen := unseen_drop(levels)) is not None:
        yield _below_power(r, param, unseen, by_value[unseen.value][0].name)
    elif found is not None and not found.measured:
        yield r.not_evaluated(
            f"{param}={found.value} gave less than {param}={found.best_value}, but a point measured once "
            "kept too few seconds to know its noise",
            by_value[found.value][0].name,
        )
    elif found is not None:
        now, before = (_bandwidth(by_value[v]) for v in (found.value, found.best_value))
        yield r.finding(
            f"{param}={found.value} gives {now.shown}, less than {before.shown} at {param}={found.best_value}",
            by_value[found.value][0].name,
            {
                param: f"{found.best_value} -> {found.value}",
                "bandwidth": f"{before.shown} -> {now.shown}",
                "drop": f"{found.drop:.0%}",
                "noise allowed": f"{found.tolerance:.0%}",
            },
            quotes=[now, before],
        )


def _below_power(r: Rule, param: str, seen: SweepPower, subject: str) -> Finding:
    """Info: a drop the sweep shows but its noise could not confirm, with what it would take (issue 40:
    a finding states its power)."""
    noise = "unmeasured noise" if seen.noise is None else f"noise {seen.noise:.1%}"
    return r.finding(
        f"{param}={seen.value} gives {seen.drop:.0%} less than {param}={seen.best_value}: a drop of "
        f"{seen.drop:.0%} is below what {seen.points} points at {noise} can show (it takes more than "
        f"{seen.allowed:.0%})",
        subject,
        {
            param: f"{seen.best_value} -> {seen.value}",
            "drop": f"{seen.drop:.0%}",
            "noise allowed": f"{seen.allowed:.0%}",
            "points": seen.points,
            "a point's relative standard error": "unmeasured" if seen.noise is None else f"{seen.noise:.1%}",
        },
        "info",
    )


def _bandwidth(jobs: list[JobView]) -> Quote:
    """The repeats' mean bandwidth over all directions, as a finding quotes it."""
    return quote([(job.key, job.result) for job in jobs], "bw", "GB/s")


def _level(ctx: Context, jobs: list[JobView]) -> tuple[float, float | None, float]:
    """(mean bandwidth over the repeats, its relative standard error, that error's degrees of freedom): from
    the repeats, else from batch means
    of the point's per-second series (`analysis.noise`). None when nothing measures it and the run logged no
    seconds at all (imported results: a fixed tolerance decides); infinite when the run logged seconds but
    this point, measured once, kept too few of them to know its noise: one second is no verdict (issue 33)."""
    values = [_total_bw(job) for job in jobs]
    mean = sum(values) / len(values)
    if mean <= 0:
        return mean, None, LARGE_DF
    if len(values) >= 2:
        variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
        return mean, math.sqrt(variance / len(values)) / mean, len(values) - 1
    error = _series_error(ctx, jobs[0].name)
    if error is None:
        return mean, math.inf if ctx.series else None, LARGE_DF
    return mean, error, LARGE_DF


def _series_error(ctx: Context, name: str) -> float | None:
    """The relative standard error of the point's summed series (`analysis.noise.relative_error` of its
    "all jobs" seconds, without the partial first and last), None without one: measured once per point and
    context, though both of `nonmonotonic`'s sweeps (numjobs, iodepth) ask it of every point."""
    errors: dict[str, float | None] = ctx.shared("results.series_error", dict)
    if name not in errors:
        seconds = next((s.values[1:-1] for s in ctx.series if s.point == name and s.label == "all jobs"), None)
        errors[name] = relative_error(seconds) if seconds else None
    return errors[name]


@rule(
    id="RES-QD-KNEE",
    family="results",
    level="info",
    needs="curves",
    title="Where more queue depth stops paying",
    applies="queue-depth curves with at least 3 depths at one job",
    trigger="always, once the curve has 3 depths: the knee is the answer of a QD sweep",
    why="Past the knee each extra outstanding I/O adds latency but little throughput.",
    fix="Use the knee's depth: most of the peak's throughput at a fraction of the peak's latency.",
    evidence="QD at 90% of the peak, N* = X_max x R0, latency elbow, Kneedle, the peak (the sweep's highest point)",
    source="Little's law bounds (N* = X_max x R0); Kneedle (Satopaa et al. 2011); hinge fit of latency",
)
def qd_knee(ctx: Context, r: Rule) -> Iterator[Finding]:
    from iolab.analysis.knee import find_knee

    for curve in ctx.curves:
        single = sorted((qd, level) for (qd, jobs), level in curve.configs.items() if jobs == 1)
        if len(single) < 3:
            continue
        latencies = [level.latency_ns for _, level in single if level.latency_ns is not None]
        report = find_knee(
            [qd for qd, _ in single],
            [level.iops for _, level in single],
            latencies if len(latencies) == len(single) else None,  # the latency elbow needs every depth's latency
        )
        if not report.evaluated or report.recommended_qd is None:
            continue
        top = single[report.throughput.index(report.peak)]
        peak = quote(top[1].points, "iops", "IOPS")
        yield r.finding(
            f"{curve.name}: queue-depth knee at QD {report.recommended_qd:g} (one job)"
            + ("" if report.consistent else "; ill-defined, the methods disagree"),
            curve.name,
            {
                f"QD at {report.params.fraction:.0%} of the peak": _qd(report.qd_at_fraction),
                "N* (X_max x R0)": "n/a" if report.n_star is None else f"{report.n_star:.1f}",
                "latency elbow": _qd(report.latency_elbow_qd),
                "Kneedle": _qd(report.kneedle_qd),
                "knee": _qd(report.recommended_qd),  # the depth a page's headline quotes (`views.headline`)
                "peak": f"{peak.shown} at QD {top[0]:g}",
            },
            fix=f"{curve.name}: {_knee_advice(report)}",
            quotes=[peak],
        )  # each curve's advice its own, never folded into another's


def _qd(value: float | None) -> str:
    return "n/a" if value is None else f"QD {value:g}"


def _knee_advice(report: KneeReport) -> str:
    """What running at the knee keeps and what the peak costs, in the curve's own figures."""
    i = report.qd.index(report.qd_at_fraction) if report.qd_at_fraction in report.qd else 0
    text = f"use QD {report.qd[i]:g}: {report.throughput[i] / report.peak:.0%} of the peak throughput"
    if report.latency_ns and report.latency_ns[0] > 0:
        top = max(range(len(report.throughput)), key=lambda k: report.throughput[k])
        text += (
            f" at {report.latency_ns[i] / report.latency_ns[0]:.1f}x the QD {report.qd[0]:g} latency; the "
            f"highest throughput (QD {report.qd[top]:g}) costs {report.latency_ns[top] / report.latency_ns[0]:.1f}x"
        )
    return text + ("." if report.consistent else ". The methods disagree: look at the curve before relying on it.")


@rule(
    id="RES-QD-PEAK",
    family="results",
    level="info",
    needs="curves",
    title="The best configuration over depths and job counts",
    applies="queue-depth curves with at least 3 configurations",
    trigger="always: the peak is the other answer of a QD sweep",
    why="The most this workload got from the target over the depths and job counts run; where more jobs beat one "
    "job's best, one job's submission path (one CPU) was the limit, not the device.",
    fix="Use the peak's iodepth and numjobs for peak throughput; quote latency at the knee, not at the peak.",
    evidence="configurations measured, I/Os in flight at the peak, best with one job, best per job count",
    source="the sweep's own results (means over repeats, with a 95% t interval where there are several)",
)
def qd_peak(ctx: Context, r: Rule) -> Iterator[Finding]:
    for curve in ctx.curves:
        (qd, jobs), top = max(curve.configs.items(), key=lambda item: item[1].iops)
        evidence: dict[str, object] = {
            "configurations measured": len(curve.configs),
            "in flight at the peak": qd * jobs,
        }
        if (stats := top.iops_estimate) is not None:
            evidence["peak's 95% interval"] = (
                f"too wide to say, over {stats.n} repeats far apart"
                if stats.ci95_low is None or stats.ci95_high is None
                else f"{units.iops(stats.ci95_low)} to {units.iops(stats.ci95_high)} IOPS over {stats.n} repeats"
            )
        peak, rate = quote(top.points, "iops", "IOPS"), quote(top.points, "bw", "MB/s")
        quotes = [peak, rate]
        title = f"{curve.name}: peak {peak.shown} ({rate.shown}) at QD{qd} x {jobs} job{'s' if jobs > 1 else ''}"
        single = {c: level for c, level in curve.configs.items() if c[1] == 1}
        if single and jobs > 1:
            (best_qd, _), best = max(single.items(), key=lambda item: item[1].iops)
            alone = quote(best.points, "iops", "IOPS")
            quotes.append(alone)
            evidence["best with one job"] = f"{alone.shown} at QD{best_qd}"
            title += f", {top.iops / best.iops - 1:+.0%} over one job's best"
        by_jobs: dict[int, list[Level]] = defaultdict(list)
        for (_, n), level in curve.configs.items():
            by_jobs[n].append(level)
        bests = {
            n: quote(max(levels, key=lambda level: level.iops).points, "iops", "IOPS") for n, levels in by_jobs.items()
        }
        quotes += bests.values()
        evidence["best per job count"] = ", ".join(f"{n}: {q.shown}" for n, q in sorted(bests.items()))
        yield r.finding(
            title,
            curve.name,
            evidence,
            fix=f"{curve.name}: iodepth={qd} numjobs={jobs} for peak throughput; quote latency at the knee, "
            "not at the peak.",
            quotes=quotes,
        )


@rule(
    id="RES-STEADY-STATE",
    family="results",
    level="medium",
    needs="steady",
    title="Steady state across rounds reached, or not",
    applies="plans with steady-state rounds",
    trigger="the last rounds' range within 20% of their mean and the fitted line's excursion within 10% "
    "(info), or the round cap reached first (warning)",
    why="A result from before steady state describes a device still changing (a write cache filling, garbage "
    "collection starting), not the device under sustained load.",
    fix="Raise the round cap or precondition longer.",
    evidence="the tracked metric per round",
    source="SNIA Solid State Storage Performance Test Specification, steady state (definition 2.1.24)",
)
def steady_state(ctx: Context, r: Rule) -> Iterator[Finding]:
    for outcome in ctx.steady:
        yield r.finding(
            outcome.reason,
            outcome.target,
            {"rounds": ", ".join(f"{v:,.0f}" for v in outcome.values)},
            level="info" if outcome.steady else None,
            fix="" if outcome.steady else None,
        )


@rule(
    id="RES-REPEAT-OUTLIER",
    family="results",
    level="medium",
    needs="repeats",
    title="One repeat far from the others",
    applies="workloads repeated at least 3 times",
    trigger=f"a repeat at least {FAR_RATIO:.0%} from the median of the other repeats and beyond "
    f"{FAR_SIGMAS:g} robust standard deviations (1.4826 x MAD) of them",
    why="Something happened during that repeat (another process, a background flush, a thermal event) that did "
    "not happen in the others; its value pulls the mean and widens every interval computed from it.",
    fix="Re-run that point (`iolab run --resume` does not re-run finished points; run the plan again, or with "
    "more repeats) and look at its telemetry and TEL-INTERFERENCE for the cause.",
    evidence="the repeat's value, the others' median and range",
    source="leave-one-out median and MAD (robust statistics, Rousseeuw and Croux 1993)",
)
def repeat_outlier(ctx: Context, r: Rule) -> Iterator[Finding]:
    for found in ctx.repeats:
        for far in far_repeats(found.values):
            show = partial(units.metric_value, found.metric)
            yield r.finding(
                f"{found.name}: repeat {found.repeats[far.index] + 1} gave {show(far.value)}, the other "
                f"{len(found.values) - 1} {show(far.others_low)} to {show(far.others_high)}",
                found.name,
                {
                    "this repeat": show(far.value),
                    "others' median": show(far.others_median),
                    "others' range": f"{show(far.others_low)} to {show(far.others_high)}",
                },
            )


@rule(
    id="RES-COV-TARGET",
    family="results",
    level="medium",
    needs="repeats",
    title="Repeats still spread wider than the plan's target",
    applies="plans with adaptive repeats (a COV target)",
    trigger="the coefficient of variation over the workload's repeats is above the target after the last repeat",
    why="Adaptive repeats stop at their cap whether or not the spread came down: the mean is then less certain "
    "than the plan asked for.",
    fix="Find what varies (RES-REPEAT-OUTLIER, TEL-INTERFERENCE, a write cache or thermal state), then raise "
    "max_count or lengthen each repeat.",
    evidence="COV, target, repeats, mean with its 95% interval",
    source="sample standard deviation (n-1) over the mean; Student's t interval",
)
def cov_target(ctx: Context, r: Rule) -> Iterator[Finding]:
    if ctx.cov_target is None:
        return
    for found in ctx.repeats:
        summary = summarize(found.values)
        if summary.cov is None or summary.cov <= ctx.cov_target or summary.ci95_low is None:
            continue
        show = partial(units.metric_value, found.metric)
        yield r.finding(
            f"{found.name}: COV {summary.cov:.1%} over {summary.n} repeats, {(summary.cov - ctx.cov_target) * 100:.1f} "
            f"points above the {ctx.cov_target:.0%} target",
            found.name,
            {
                "COV": f"{summary.cov:.1%}",
                "target": f"{ctx.cov_target:.0%}",
                "repeats": summary.n,
                "mean (95% interval)": f"{show(summary.mean)} ({show(summary.ci95_low)} to {show(summary.ci95_high)})",
            },
        )
