"""Adaptive queue-depth search: where one job's queue stops paying, and the peak over depth and jobs.

A full grid (iodepth 1..256 x numjobs 1..16, 45 fio runs as bench-fio runs
it) spends most of its points where nothing happens: the straight start of
each curve and the flat top. This search measures where the curve bends, in
four phases over (iodepth, numjobs) configurations:

1. Climb: one job, depth `start`, x4, x16 ... up to `max_qd`, until a step
   stops paying (less than `plateau_gain` per doubling, compounded over the
   step). A 4x step moves throughput by more than a noisy host scatters it,
   so the plateau shows in fewer points; a single fall is run past once.
2. Knee: the gap around the first depth reaching `fraction` of the plateau
   (QD_90, the headline knee of docs/reference analysis section 6; plateau
   = median of the top three, as there) is bisected geometrically until
   hi <= lo * (1 + resolution).
3. Jobs: one job's submission path can be the limit (one CPU submits and
   reaps every I/O), so numjobs doubles up to `max_jobs` while it pays, each
   job at `jobs_depth`: the power of two at least twice the knee, where one
   job is on its plateau. Adding jobs at the best depth shared out starves
   the device (seen on a loop device: QD8 x 4 jobs 10% under QD16 x 4), and
   at the deepest plateau point it buries it (QD128 x 4 7% over x 1, where
   QD32 x 4 was 43% over).
4. Deeper: at the best job count, when more jobs paid, the per-job depth
   doubled once, since more submitters can want deeper queues each (seen:
   4 jobs peaked at QD32 each where one job's knee was QD8).

The peak is the best measured configuration. `next_configs` is pure: it
re-derives the phase from the measurements alone, so a resumed run
continues where it stopped.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping

from iolab.models.plan import QdSearch, Workload
from iolab.plan.matrix import workload_name

Config = tuple[int, int]  # (iodepth per job, numjobs)
CLIMB_STEP = 4


def next_configs(measured: Mapping[Config, float], search: QdSearch) -> list[Config] | None:
    """The (iodepth, numjobs) configurations to run next, given throughput so far; None when done.

    Three stages in turn: climb the depth grid at one job until it plateaus, bisect the knee, then
    (with max_jobs > 1) add jobs at a depth past the knee and try one deeper point if jobs paid."""
    single = {qd: v for (qd, jobs), v in measured.items() if jobs == 1}
    step = _depth_step(single, search)
    if step is not None or search.max_jobs <= 1:
        return step
    return _jobs_step(measured, single, search)


def _depth_step(single: Mapping[int, float], search: QdSearch) -> list[Config] | None:
    """The next one-job depth: the climb's next step, else the geometric middle of the knee's bracket."""
    climb = _climb_grid(search.start, search.max_qd)
    done = [qd for qd in climb if qd in single]
    if len(done) < len(climb) and not _plateaued(done, single, _step_gain(search.plateau_gain)):
        return [(next(qd for qd in climb if qd not in single), 1)]
    low, high = qd_bracket(single, search.fraction)
    if low is not None and high - low > 1 and high > low * (1 + search.resolution):
        middle = min(max(round(math.sqrt(low * high)), low + 1), high - 1)
        return [(middle, 1)]
    return None


def _jobs_step(measured: Mapping[Config, float], single: Mapping[int, float], search: QdSearch) -> list[Config] | None:
    """The next job count at the jobs' depth, then one deeper point for the best count if more jobs paid."""
    _, high = qd_bracket(single, search.fraction)
    depth = jobs_depth(high, search.max_qd)
    by_jobs = {1: plateau(single.values()), **{j: v for (qd, j), v in measured.items() if qd == depth and j > 1}}
    counts = _doubling(1, search.max_jobs)
    if not _jobs_settled(counts, by_jobs, search.plateau_gain):
        return [(depth, next(n for n in counts if n not in by_jobs))]
    best_jobs = max(by_jobs, key=by_jobs.__getitem__)
    deeper = min(2 * depth, search.max_qd)
    paid = by_jobs[best_jobs] > by_jobs[1] * (1 + search.plateau_gain)
    if not paid or deeper == depth or (deeper, best_jobs) in measured:
        return None
    return [(deeper, best_jobs)]


def plateau(values: Iterable[float]) -> float:
    """The plateau throughput: the median of the top three values (one lucky point does not set it)."""
    return statistics.median(sorted(values, reverse=True)[:3])


def jobs_depth(knee: int, max_qd: int) -> int:
    """The per-job depth for more jobs: the power of two at least twice the knee, within max_qd."""
    return min(max_qd, 1 << max(0, (2 * knee - 1).bit_length()))


def qd_bracket(measured: Mapping[int, float], fraction: float = 0.90) -> tuple[int | None, int]:
    """(lo, hi): hi is the shallowest depth reaching `fraction` of the plateau,
    lo the deepest measured depth below hi (None if hi is the shallowest measured)."""
    top = plateau(measured.values())
    depths = sorted(measured)
    high = next(qd for qd in depths if measured[qd] >= fraction * top)
    lower = [qd for qd in depths if qd < high]
    return (lower[-1] if lower else None, high)


def workload_at_qd(base: Workload, qd: int, jobs: int | None = None) -> Workload:
    """The base workload at queue depth `qd` (and `jobs` jobs), named like a swept point (``…-qd16-j4``)."""
    varied = {"iodepth": str(qd), **({"numjobs": str(jobs)} if jobs is not None else {})}
    return Workload(name=workload_name(base.name, varied), options={**base.options, **varied}, target=base.target)


def max_runs(search: QdSearch) -> int:
    """An upper bound on the points a search runs (for duration estimates)."""
    climb = _climb_grid(search.start, search.max_qd)
    # Each geometric bisection halves log(hi/lo), starting from the climb's step.
    ratio = math.log(CLIMB_STEP) / math.log(1 + search.resolution)
    bisections = max(1, math.ceil(math.log2(ratio)))
    jobs = len(_doubling(1, search.max_jobs)) if search.max_jobs > 1 else 0  # the doublings and the deeper point
    return len(climb) + bisections + jobs


def _climb_grid(start: int, max_qd: int) -> list[int]:
    """start, x4, x16 ... and max_qd itself when the steps miss it."""
    grid = [start]
    while grid[-1] * CLIMB_STEP <= max_qd:
        grid.append(grid[-1] * CLIMB_STEP)
    return grid if grid[-1] >= max_qd else [*grid, max_qd]


def _doubling(start: int, top: int) -> list[int]:
    grid = [start]
    while grid[-1] * 2 <= top:
        grid.append(grid[-1] * 2)
    return grid


def _step_gain(per_doubling: float) -> float:
    """What `per_doubling` compounds to over one climb step."""
    return (1 + per_doubling) ** math.log2(CLIMB_STEP) - 1


def _plateaued(done: list[int], measured: Mapping[int, float], gain: float) -> bool:
    """Whether climbing has stopped paying: the last step beat the best before it by less than `gain` and
    either stayed within `gain` of it (flat: the plateau) or fell further, as did the step before it. A
    single fall is run past once: on a noisy host one unlucky point would otherwise end the climb below
    the real peak (seen on a loop device: QD32 measured 11% under QD16, QD64 10% above it)."""
    if len(done) < 2 or not _short(done, measured, len(done) - 1, gain):
        return False
    best_before = max(measured[d] for d in done[:-1])
    flat = measured[done[-1]] >= best_before * (1 - gain)
    return flat or (len(done) > 2 and _short(done, measured, len(done) - 2, gain))


def _short(done: list[int], measured: Mapping[int, float], index: int, gain: float) -> bool:
    """Whether the `index`-th step beat the best before it by less than `gain`."""
    best_before = max(measured[d] for d in done[:index])
    return best_before > 0 and measured[done[index]] < best_before * (1 + gain)


def _jobs_settled(counts: list[int], by_jobs: Mapping[int, float], gain: float) -> bool:
    """Whether doubling the jobs is done: at the cap, or the last doubling did not beat the best before it
    by `gain`. Two jobs are run past once: a second job can cost as much as it adds (each job's ramp, two
    submitters on one CPU) before four pay (seen on a loop device: 2 jobs level with 1, 4 jobs 26% above)."""
    done = [n for n in counts if n in by_jobs]
    if len(done) == len(counts):
        return True
    last = done[-1]
    if last <= 2:
        return False
    return by_jobs[last] <= max(by_jobs[n] for n in done[:-1]) * (1 + gain)  # failed points (0) settle it too
