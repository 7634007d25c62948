"""Adaptive queue-depth search: find where throughput reaches 90% of its peak.

A full sweep 1..256 runs nine depths and still only brackets the knee
between two powers of two. Here the depth doubles only until throughput
stops growing (the peak is then known; a single fall is run past once, as
it may be noise), and the gap around the first depth
reaching `fraction` of the peak (QD_90, the headline knee of
docs/reference analysis section 6) is bisected until it is narrow.

`next_queue_depths` is pure and stateless: it re-derives where the search is
from the measurements alone, so a resumed run continues where it stopped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from iolab.models.plan import QdSearch, Workload
from iolab.plan.matrix import workload_name


def next_queue_depths(measured: Mapping[int, float], search: QdSearch) -> list[int] | None:
    """The depths to run next, given throughput per depth so far; None when done.

    Doubling phase: depths start, 2*start, 4*start ... up to max_qd, stopping
    once a doubling gains less than `plateau_gain` over the best so far and
    stays within it, or after two doublings in a row that do not gain.
    Refinement: bisect (geometrically) between the deepest measured depth
    below `fraction` x peak and the shallowest one at or above it, until
    hi <= lo * (1 + resolution) or they are adjacent integers.
    """
    if not measured:
        return [search.start]
    grid = _doubling_grid(search.start, search.max_qd)
    done = [qd for qd in grid if qd in measured]
    if len(done) < len(grid) and not _plateaued(done, measured, search.plateau_gain):
        return [next(qd for qd in grid if qd not in measured)]
    bracket = qd_bracket(measured, search.fraction)
    low, high = bracket
    if low is None or high - low <= 1 or high <= low * (1 + search.resolution):
        return None
    middle = round(math.sqrt(low * high))
    middle = min(max(middle, low + 1), high - 1)
    return [middle]


def next_job_counts(measured: Mapping[int, float], search: QdSearch) -> list[int] | None:
    """After the depth search: the job count to run next, given throughput per job count so far
    (1 = the depth search's best); None when done. Each count runs at `depth_per_job`.

    One job's submission path can be the limit (one CPU submits every I/O),
    so a device that still has room shows it only with more jobs. The count
    doubles up to `max_jobs` until doubling stops paying, by the same rule
    as the depths.
    """
    grid = _doubling_grid(1, search.max_jobs)
    done = [n for n in grid if n in measured]
    if len(done) == len(grid) or _plateaued(done, measured, search.plateau_gain):
        return None
    return [next(n for n in grid if n not in measured)]


def depth_per_job(best_depth: int, jobs: int) -> int:
    """The queue depth of each of `jobs` jobs: the best single-job depth shared out, so the I/O in flight
    stays where the depth search found the device saturated and only the number of submitters grows.
    Adding jobs at the full depth instead multiplies the load past the plateau (seen on a loop device:
    QD128 x 2 jobs gave no more than QD128 x 1, while QD32 x 4 gave 20% more)."""
    return max(1, best_depth // jobs)


def qd_bracket(measured: Mapping[int, float], fraction: float = 0.90) -> tuple[int | None, int]:
    """(lo, hi): hi is the shallowest depth reaching `fraction` of the peak,
    lo the deepest measured depth below hi (None if hi is the shallowest measured)."""
    peak = max(measured.values())
    depths = sorted(measured)
    high = next(qd for qd in depths if measured[qd] >= fraction * peak)
    lower = [qd for qd in depths if qd < high]
    return (lower[-1] if lower else None, high)


def workload_at_qd(base: Workload, qd: int, jobs: int | None = None) -> Workload:
    """The base workload at queue depth `qd` (and `jobs` jobs), named like a swept point (``…-qd16-j4``)."""
    varied = {"iodepth": str(qd), **({"numjobs": str(jobs)} if jobs is not None else {})}
    return Workload(name=workload_name(base.name, varied), options={**base.options, **varied}, target=base.target)


def max_runs(search: QdSearch) -> int:
    """An upper bound on the points a search runs (for duration estimates)."""
    grid = _doubling_grid(search.start, search.max_qd)
    # Each geometric bisection halves log(hi/lo), starting from a factor of 2.
    bisections = max(1, math.ceil(math.log2(math.log(2) / math.log(1 + search.resolution))))
    return len(grid) + bisections + len(_doubling_grid(1, search.max_jobs)) - 1


def _doubling_grid(start: int, max_qd: int) -> list[int]:
    grid = [start]
    while grid[-1] * 2 <= max_qd:
        grid.append(grid[-1] * 2)
    return grid


def _plateaued(done: list[int], measured: Mapping[int, float], gain: float) -> bool:
    """Whether doubling has stopped paying: the last doubling beat the best before it by less than `gain`
    and either stayed within `gain` of it (flat: the plateau) or fell further, as did the doubling before
    it. A single fall is run past once: on a noisy host one unlucky point would otherwise end the climb
    below the real peak (seen on a loop device: QD32 measured 11% under QD16, QD64 10% above it)."""
    if len(done) < 2 or not _short(done, measured, len(done) - 1, gain):
        return False
    best_before = max(measured[d] for d in done[:-1])
    flat = measured[done[-1]] >= best_before * (1 - gain)
    return flat or (len(done) > 2 and _short(done, measured, len(done) - 2, gain))


def _short(done: list[int], measured: Mapping[int, float], index: int, gain: float) -> bool:
    """Whether the `index`-th doubling beat the best before it by less than `gain`."""
    best_before = max(measured[d] for d in done[:index])
    return best_before > 0 and measured[done[index]] < best_before * (1 + gain)
