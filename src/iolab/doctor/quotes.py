"""A finding's numbers are the numbers of the points it names: quotes, and the check that holds them.

A rule that shows a measured point's rate, IOPS or latency makes it with `quote`, which computes the figure
from the points' results and formats it; the rule puts `Quote.shown` into its title or evidence and passes
the quote to the finding. Before a run's findings are stored, `misquotes` recomputes every quote from the
points it names and looks for its text in the finding, so a figure taken from the wrong point, from some
jobs only, or formatted from another number than the one quoted, becomes a critical RES-INVARIANT finding
instead of a wrong sentence. `tests/test_quoted_figures.py` holds every rule to this: a unit formatter
applied to a result's bandwidth or IOPS anywhere in `doctor/rules` but through `quote` fails the suite.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from iolab.models import Finding, units
from iolab.models.finding import Quote
from iolab.models.result import Result, primary_metric

# How a quoted figure is shown: the unit's name -> the text of a value.
FORMATS: dict[str, Callable[[float], str]] = {
    "MB/s": lambda v: f"{units.mb_per_s(v)} MB/s",
    "GB/s": lambda v: f"{v / 1e9:.2f} GB/s" if v >= 1e9 else f"{units.mb_per_s(v)} MB/s",
    "IOPS": lambda v: f"{units.iops(v)} IOPS",
    "latency": units.latency,
}
DIRECTIONS = ("read", "write", "trim")
# What a quote may name: a point's totals over its directions (as `primary_metric` reads them), or one
# direction's bandwidth or IOPS ("read.bw").
METRICS = ("bw", "iops", "lat_mean") + tuple(f"{d}.{m}" for d in DIRECTIONS for m in ("bw", "iops"))
# The same results give the same float; only a value computed in another order may differ, in its last bits.
SAME = 1e-9


def figure(result: Result, metric: str) -> float | None:
    """One point's figure by its quote name; None when the point has no such direction."""
    if metric not in METRICS:
        raise ValueError(f"not a quotable metric: {metric!r} (one of {', '.join(METRICS)})")
    ddir, _, name = metric.rpartition(".")
    if not ddir:
        return primary_metric(result, metric)
    direction = result.directions.get(ddir)
    if direction is None:
        return None
    return direction.bw_bytes if name == "bw" else direction.iops


def mean_figure(results: Sequence[Result], metric: str) -> float | None:
    """The figure's mean over the points (the repeats of one configuration); None if one lacks it."""
    values = [figure(r, metric) for r in results]
    if not values or any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None) / len(values)


def quote(points: Iterable[tuple[str, Result | None]], metric: str, unit: str) -> Quote:
    """The figure `metric` of the points, given as (`JobView.key`, result) (its mean over them), shown in `unit`."""
    named = list(points)
    results = [result for _, result in named if result is not None]
    value = mean_figure(results, metric) if len(results) == len(named) else None
    if value is None:
        raise ValueError(f"{metric} is not a figure of {', '.join(name for name, _ in named)}")
    return Quote(tuple(name for name, _ in named), metric, value, FORMATS[unit](value), unit)


def misquotes(findings: Iterable[Finding], results: Mapping[str, Result]) -> list[tuple[Finding, str]]:
    """Each finding whose quoted figure is not its points' figure (`results` by `JobView.key`), or is not what
    it shows; and why."""
    wrong = []
    for finding in findings:
        text = " ".join([finding.title, finding.fix, *finding.evidence.values()])
        for q in finding.quotes:
            problem = _misquote(q, text, results)
            if problem:
                wrong.append((finding, problem))
    return wrong


def _misquote(q: Quote, text: str, results: Mapping[str, Result]) -> str:
    missing = [name for name in q.points if name not in results]
    if missing:
        return f"quotes {q.shown} of {len(missing)} point(s) with no result in this run"
    value = mean_figure([results[name] for name in q.points], q.metric)
    if value is None:
        return f"quotes {q.metric} of {len(q.points)} point(s), which has no such figure"
    if abs(value - q.value) > SAME * max(abs(value), 1.0):
        show = FORMATS[q.unit]
        return f"quotes {show(q.value)} as {q.metric} of {len(q.points)} point(s); the points give {show(value)}"
    shown = FORMATS[q.unit](value)
    if shown != q.shown:
        return f"shows {q.shown} for {q.metric} of {len(q.points)} point(s); the points' figure reads {shown}"
    if q.shown not in text:
        return f"quotes {q.shown} ({q.metric} of {len(q.points)} point(s)) but does not show it"
    return ""
