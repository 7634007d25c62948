"""Axes people can read: latency ticks on the 1-2-5 ladder with their units, labels that stay inside.

matplotlib's own log axis labels minor ticks `6 × 10^2` when the data spans less than a decade, and
text placed beside a point runs off the figure when the point is at the edge. These helpers replace
both for every chart (`charts`, `cross_charts`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes

LADDER = (1.0, 2.0, 5.0)
MAX_LADDER_TICKS = 10  # beyond this, decades only: a 1-2-5 label every few pixels runs together
LATENCY_UNITS = (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1.0))  # as units.latency


def latency_tick(ns: float) -> str:
    """`500 µs`, `1 ms`, `2.5 s`: a tick's latency in the largest unit it reaches, without trailing zeros."""
    unit, scale = next(((u, s) for u, s in LATENCY_UNITS if ns >= s * (1 - 1e-9)), LATENCY_UNITS[-1])
    return f"{ns / scale:.3g} {unit}"


def ladder(low: float, high: float) -> list[float]:
    """The 1-2-5 steps (1, 2, 5, 10, 20 ...) from the last one at or below `low` to the first at or above
    `high`, or decades only when that would be more than MAX_LADDER_TICKS; both ends positive."""
    low, high = min(low, high), max(low, high)
    steps = _steps(low, high, LADDER)
    return steps if len(steps) <= MAX_LADDER_TICKS else _steps(low, high, (1.0,))


def _steps(low: float, high: float, subs: Sequence[float]) -> list[float]:
    decade = math.floor(math.log10(low))
    candidates = [s * 10.0**d for d in range(decade - 1, math.ceil(math.log10(high)) + 2) for s in subs]
    below = max(c for c in candidates if c <= low * (1 + 1e-9))
    above = min(c for c in candidates if c >= high * (1 - 1e-9))
    return [c for c in candidates if below <= c <= above]


def latency_log_axis(ax: Axes, axis: str, scale: float) -> None:
    """A log latency axis (data in units of `scale` ns) ticked on the 1-2-5 ladder and labelled with units.

    The limits are widened to the ladder's steps around the data, so a range narrower than a decade still
    has two labelled ticks and no minor tick needs a label. Call after everything is drawn.
    """
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    target = getattr(ax, f"{axis}axis")
    getattr(ax, f"set_{axis}scale")("log")
    ax.autoscale_view()
    steps = ladder(*getattr(ax, f"get_{axis}lim")())
    getattr(ax, f"set_{axis}lim")(steps[0], steps[-1])
    target.set_major_locator(FixedLocator(steps))
    target.set_major_formatter(FuncFormatter(lambda value, _: latency_tick(value * scale)))
    target.set_minor_formatter(NullFormatter())


def beside(x: float, y: float, xs: Sequence[float], ys: Sequence[float], log_y: bool = False) -> dict[str, Any]:
    """Where an annotation of the point (x, y) goes so it stays inside the axes: to its right, or to its
    left in the right half of the data; above it, or below it in the top fifth (`annotate` keywords)."""
    x_frac = _fraction(x, min(xs), max(xs), log=False)
    y_frac = _fraction(y, min(ys), max(ys), log=log_y)
    right, up = x_frac <= 0.5, y_frac <= 0.8
    return {
        "xytext": (4 if right else -4, 4 if up else -4),
        "textcoords": "offset points",
        "ha": "left" if right else "right",
        "va": "bottom" if up else "top",
    }


def _fraction(value: float, low: float, high: float, log: bool) -> float:
    if log and low > 0:
        value, low, high = math.log(value), math.log(low), math.log(high)
    return 0.5 if high == low else (value - low) / (high - low)
