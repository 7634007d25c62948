"""Repeats: the order runs happen in.

Pure so the runner's loop stays a loop. When adaptive repeats may stop is
the runner's (`iolab.runner.repeat_gate`): it judges measured values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

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
