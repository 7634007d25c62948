"""Repeats: the order runs happen in, and when adaptive repeats may stop.

Both are pure so the runner's loop stays a loop, and so the gate can be
tested end to end (pbench's stddev gate silently never fired, pbench #2386).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from iolab.analysis.stability import summarize
from iolab.models.plan import RepeatPolicy

T = TypeVar("T")


def run_order(points: Sequence[T], count: int, interleave: bool) -> list[tuple[T, int]]:
    """Every (point, repeat index) pair in the order to run them.

    Without interleaving, a point's repeats run back to back (cheapest when
    a phase such as preconditioning sits between points). With it, pass r
    runs repeat r of every point, so drift over the session (heating, SLC
    cache filling, background work) lands on all points alike instead of on
    whichever ran last.
    """
    if interleave:
        return [(point, r) for r in range(count) for point in points]
    return [(point, r) for point in points for r in range(count)]


def needs_more_runs(values: Sequence[float], policy: RepeatPolicy) -> bool:
    """Whether a point needs another run, given its primary metric per run so far.

    Fixed policy: until `count` runs. Adaptive: at least `count`, then more
    while the CoV exceeds `cov_target` (or cannot be computed), never beyond
    `max_count`; the runner records that the cap was hit.
    """
    n = len(values)
    if n < policy.count:
        return True
    if not policy.adaptive or n >= policy.max_count:
        return False
    cov = summarize(values).cov
    return cov is None or cov > policy.cov_target
