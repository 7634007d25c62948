"""A rule on drops that recur inside a point: garbage collection every few minutes, a disk's periodic stalls.

The drops are TEL-DIP's events (`telemetry.patterns`); this rule reports the pattern once, with how many, how
often, how deep and how long, and what the point's own windows could have shown by chance.
"""

from __future__ import annotations

from collections.abc import Iterator

from iolab.analysis.recurring import Standing
from iolab.doctor.rule import Context, Rule, rule
from iolab.doctor.rules.telemetry import ALARM, busy_points, patterns
from iolab.models import Finding, units


def _every(seen: Standing) -> str:
    period = seen.pattern.period_s
    if period is not None:
        return f"about every {period:.0f} s"
    gaps = seen.pattern.intervals
    return f"at irregular intervals ({min(gaps):.0f}-{max(gaps):.0f} s apart)"


def _chance(chance: float | None) -> str:
    if chance is None:
        return "not read (too short)"
    return "under 0.01%" if chance < 1e-4 else units.percent(100 * chance)


def _evidence(seen: Standing) -> dict[str, object]:
    p = seen.pattern
    gaps = p.intervals
    alone = (
        f"one drop of {seen.window_s:g} s needs a mean drop of {units.percent(100 * seen.alone_depth)} to stand out of "
        "this point's own windows alone"
        if seen.alone_depth is not None
        else f"the point is too short to show its own tail in windows of {seen.window_s:g} s (100 needed): each "
        "drop judged by the Gaussian cut alone"
    )
    return {
        "drops": len(p.drops),
        "first onset": f"{p.drops[0].onset_s:.0f} s",
        "last onset": f"{p.drops[-1].onset_s:.0f} s",
        "period": f"{p.period_s:.0f} s" if p.period_s is not None else "irregular",
        "intervals": f"{min(gaps):.0f}-{max(gaps):.0f} s (median {sorted(gaps)[len(gaps) // 2]:.0f} s)",
        "typical depth": units.percent(100 * p.depth),
        "typical mean drop": units.percent(100 * p.mean_drop),
        "typical length": f"{p.duration_s:.0f} s",
        "chance alike by noise": _chance(seen.chance),
        "what it could see": alone,
    }


@rule(
    id="TEL-RECURRING",
    family="telemetry",
    level="medium",
    needs="series",
    title="Bandwidth dropped again and again inside a point",
    applies="points with at least 6 per-second bandwidth samples (fio's logs, or per-device telemetry in arrays)",
    trigger="at least 3 of TEL-DIP's events (segments of constant level, PELT), each beyond the series' noise by "
    "TEL-DIP's Gaussian cut, alike in depth (mean drop within 2x on a log scale) and length (within 3x) (that alone "
    "where the windows of their length outside them are too few to fit a tail, under 100); else more such drops than "
    f"the point's own windows reach that deep by chance (chance under {ALARM:.0%}: an exponential tail fitted to "
    "the ten lowest windows outside the drops, a Poisson count), counting only the drops that are also beyond them "
    "alone (at TEL-DIP's chance per place; the others go back among the point's windows and the rest are judged "
    "again, at least 3 left); in arrays, each drop also against the other "
    "devices; info when the host was busy during the point unless the series is a device's own counters",
    why="A drive that stalls again and again holds back every job each time, and the point's average hides it: "
    "a full SSD collecting garbage every few minutes, a disk's periodic stalls.",
    fix="On flash, TRIM (blkdiscard) or precondition before measuring, and run long enough to hold several "
    "periods of it; on a disk, read SMART and the kernel log for retries. Report the drops beside the average.",
    evidence="how many, the period (or the intervals), typical depth and length, first and last onset, the chance "
    "the noise makes as many, and the shallowest single drop the point's own windows let stand out",
    source="PELT segmentation (Killick, Fearnhead and Eckley 2012); peaks over threshold with an exponential "
    "tail (Pickands 1975) for the point's own windows",
)
def recurring_drops(ctx: Context, r: Rule) -> Iterator[Finding]:
    busy = busy_points(ctx)
    for series, seen in patterns(ctx):
        p = seen.pattern
        title = (
            f"{series.point}: {series.label} bandwidth dropped {len(p.drops)} times by about "
            f"{units.percent(100 * p.depth)} for {p.duration_s:.0f} s, {_every(seen)}, from {p.drops[0].onset_s:.0f} s"
        )
        subject = f"{series.point}: {series.label}"
        doubt = busy.get(series.point)
        if doubt is None:
            yield r.finding(title, subject, _evidence(seen))
        elif series.device is not None:
            evidence = _evidence(seen) | {"host busy too": f"{doubt}; the drops are in {series.device}'s own counters"}
            yield r.finding(f"{title}; the host was busy too, re-run to rule it out", subject, evidence)
        else:
            evidence = _evidence(seen) | {"why a possibility": f"the host was busy during this point ({doubt})"}
            yield r.finding(f"{title}; the host was busy: a possibility, re-run to confirm", subject, evidence, "info")
