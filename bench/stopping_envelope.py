"""Does a point stopped "when known" hold the mean of the WHOLE run it stands in for? (issue 40)

Real traces: fio-plot's collection (per-job IOPS logs, read as `stopping_replay.py` reads them: 1,322
points, 60 s and 5-minute runs) replayed second by second with iolab's rule (`iolab.analysis.stopping.decide`
as the runner asks it: ±2%, at least 3 s, a writer's wander term for points that write), each point's
maximum and horizon being its own length (the job asked that long). A stop is judged against the mean of
every second of the run, warm-up included ("whole run"), and beside it against the run's mean with the
stop's warm-up set aside ("whole run after the cut"). Groups: reads, writes and mixed (randrw: the runner
asks the rule of it as of a writer, over all its I/Os) x 60 s runs (under `LONG_S`) and 300 s runs; for each, the stops made, the share whose 95% interval holds
the whole run's mean, the median stop second and the fio time saved against running every point whole,
beside the rule before issue 40 (`analysis.stopping.TODAY`, no drift bound) on the same points.

The points are split by drive (`drive`: the model a folder names, so a drive's traces never sit on both
sides; fio-plot keeps the same drive under several folders), 5-minute drives and the rest dealt out in
turn by size: the rule's parameters (wander terms) are chosen on the "choose" half only, as the smallest
in a grid whose stops hold the whole run's mean in at least 95% of every group there; the "held-out" half
is reported once.

Simulation (`--part sim`): series with known truth over the envelope real devices present, by bin:
per-second scatter 0.5-5%, AR(1) noise phi 0-0.8, drift 0 to ±10% over the run, warm-ups (a fast start that
decays, a slow start that ramps up), periodic garbage-collection dips, 60 s and 300 s runs; judged against
the whole simulated run's mean.

    .venv/bin/python bench/stopping_envelope.py --data PATH/TO/benchmark_data [--choose] [--part real|sim|both]

Writes bench/results/stopping_envelope.json.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import sys
import time
import zlib
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from results_file import add_smoke_flag, write_result
from stopping_product import first_stop
from stopping_replay import Trace, traces

RESULT = Path(__file__).parent / "results" / "stopping_envelope.json"
TARGET = 0.02
MIN_S = 3.0
LONG_S = 150  # a run at least this long is a "300 s" run (fio-plot's are 298-300 s; its 60 s runs 34-142 s)
GOAL = 0.95
MIN_STOPS = 50  # a group judged on fewer stops says so
WANDER_GRID = (0.0, 0.005, 0.01, 0.015, 0.02)
LEVEL_BLOCK_S = 5  # seconds a block, for a run's level wander and its falls
FALL = 0.05  # a fall of a run's rate, relative to its mean: 2.5 times the target, well beyond its scatter

DRIVES = (  # a drive model a folder names: the same model under several folders is one drive
    ("FLOPPY", "floppy"),
    ("3XSSD", "P420i 3x SSD set"),
    ("RAID0_4X", "P420i RAID 0 of 4 SSDs"),
    ("INTEL", "Intel"),
    ("KINGSTON", "Kingston DC500M"),
    ("SAMSUNG860", "Samsung 860"),
    ("SAMSUNG_860", "Samsung 860"),
    ("SAMSUNG_DC", "Samsung DC (PM883)"),
    ("PM883", "Samsung DC (PM883)"),
    ("CRUCIAL_MX200", "Crucial MX200"),
    ("USB", "USB Crucial"),
    ("HIGHPOINT", "HighPoint RAID 5"),
    ("RAID5MDADM", "mdadm RAID 5 of 8 HDDs"),
)


def drive(path: str) -> str:
    """The drive a point ran on, from its folders (the folder itself when none of `DRIVES` matches)."""
    folder = "/".join(path.split("/")[:-1]).upper()
    for mark, name in DRIVES:
        if mark in folder:
            return name
    return folder


def split(found: list[Trace], salt: str | None = None) -> dict[str, str]:
    """Drive -> "choose" or "held-out": drives with 5-minute runs first, then the rest, each by number of
    traces (ties by a hash of the name), dealt in turn, the held-out half first, so both halves hold
    5-minute and 60 s runs of several drives. With `salt`, each tier is ordered by a hash of the salted name
    instead (a second split: `stopping_second_split.py`)."""
    long_runs: dict[str, int] = defaultdict(int)
    count: dict[str, int] = defaultdict(int)
    for t in found:
        count[drive(t.path)] += 1
        long_runs[drive(t.path)] += len(t.rates) >= LONG_S

    def rank(d: str) -> tuple:
        if salt is not None:
            return (zlib.crc32(f"{salt}{d}".encode()),)
        return (-long_runs[d], -count[d], zlib.crc32(d.encode()))

    order = sorted(count, key=lambda d: (long_runs[d] == 0, *rank(d)))
    halves = {}
    for tier in (True, False):
        names = [d for d in order if (long_runs[d] > 0) == tier]
        for i, name in enumerate(names):
            halves[name] = "held-out" if i % 2 == 0 else "choose"
    return halves


@dataclass(frozen=True)
class Stop:
    """What a rule did on one series: the second it stopped (its length when never), and the judged means."""

    group: str
    stopped: bool
    stop_s: int
    length: int
    holds_whole: bool
    holds_after_cut: bool


def kind(trace: Trace) -> str:
    """ "reads", "writes" (a job that writes and does not read) or "mixed" (reads and writes: randrw). The
    runner asks the rule of a mixed job as of a writer (`Trace.writes`) over all its I/Os, as fio's status
    gives them; it is a group of its own so that its reads' steadier rate cannot stand in for the writers'
    (pooled, 143 mixed stops lifted fio-plot's held-out writes of 60 s from 92.7% to 96.4%, issue 40)."""
    from iolab.models.job_options import JobOptions

    if not trace.writes:
        return "reads"
    return "mixed" if JobOptions({"rw": trace.workload.split()[0]}).reads else "writes"


def group(label: str, length: int) -> str:
    return f"{label} {'300 s' if length >= LONG_S else '60 s'}"


def replay(rates: list[float], writes: bool, params, label: str | None = None) -> Stop:
    """The rule asked after each second, as the runner asks it of a job as long as the trace
    (`stopping_product.first_stop`); `label` the group's kind (`kind`; default by `writes`)."""
    label = label or ("writes" if writes else "reads")
    length = len(rates)
    found = first_stop(rates, writes, params)
    if not found.stopped:
        return Stop(group(label, length), False, found.stop_s, length, False, False)
    d, n = found.decision, found.stop_s
    estimate = statistics.fmean(rates[d.discarded : n])
    half = d.interval.half_width if d.interval else math.inf
    whole, after = statistics.fmean(rates), statistics.fmean(rates[d.discarded :])
    return Stop(group(label, length), True, n, length, abs(estimate - whole) <= half, abs(estimate - after) <= half)


def figures(stops: list[Stop]) -> dict:
    """Coverage, stops and time saved over `stops` (see the module's doc)."""
    made = [s for s in stops if s.stopped]
    return {
        "points": len(stops),
        "stops": len(made),
        "holds_whole_mean": _share(made, lambda s: s.holds_whole),
        "holds_whole_mean_after_cut": _share(made, lambda s: s.holds_after_cut),
        "median_stop_s": statistics.median(s.stop_s for s in made) if made else None,
        "time_saved": 1 - sum(s.stop_s for s in stops) / sum(s.length for s in stops) if stops else None,
        "judged_on_fewer_than_min_stops": len(made) < MIN_STOPS,
    }


def _share(rows: list, holds) -> float | None:
    return sum(1 for r in rows if holds(r)) / len(rows) if rows else None


def by_group(stops: list[Stop]) -> dict[str, dict]:
    groups: dict[str, list[Stop]] = defaultdict(list)
    for s in stops:
        groups[s.group].append(s)
    return {name: figures(groups[name]) for name in sorted(groups)}


PROCS = 1  # processes replaying traces (`--procs`): each trace's replay is independent of the others'


def run_rule(found: list[Trace], params) -> list[Stop]:
    jobs = [(t.rates, t.writes, params, kind(t)) for t in found]
    if PROCS <= 1:
        return [replay(*job) for job in jobs]
    from multiprocessing import Pool

    with Pool(PROCS) as pool:
        return pool.starmap(replay, jobs, chunksize=8)


def level_wander(rates: list[float]) -> float:
    """A run's level wander: the per-second variance of a random walk its level follows, relative to its mean
    squared. From the variogram of `LEVEL_BLOCK_S`-second block means (the mean squared difference of blocks
    `L` apart, L up to a third of the run): a random walk adds `q` x seconds apart to a constant (the blocks'
    own noise), fitted by least squares; 0 when the fit's slope is below zero."""
    import numpy as np

    r = np.asarray(rates, float) / statistics.fmean(rates)
    n = len(r) // LEVEL_BLOCK_S
    blocks = r[len(r) - n * LEVEL_BLOCK_S :].reshape(n, LEVEL_BLOCK_S).mean(axis=1)
    lags = np.arange(1, n // 3 + 1)
    if len(lags) < 2:
        return 0.0
    gamma = [float(np.mean((blocks[k:] - blocks[:-k]) ** 2)) for k in lags]
    design = np.vstack([np.ones(len(lags)), lags * LEVEL_BLOCK_S]).T
    slope = float(np.linalg.lstsq(design, np.asarray(gamma), rcond=None)[0][1])
    return max(slope, 0.0)


def choose_level(found: list[Trace]) -> tuple[float, dict]:
    """The level allowance's variance: the mean of `level_wander` over the runs of `found` at least `LONG_S`
    long, reads and writes pooled. The mean, not a quantile: the future mean of a run drawn from runs whose
    levels wander with variances q has variance E[q] x seconds / 3, whatever their spread."""
    long_runs = [t for t in found if len(t.rates) >= LONG_S]
    wanders = sorted(level_wander(t.rates) for t in long_runs)
    if not wanders:
        return 0.0, {"runs": 0}
    chosen = statistics.fmean(wanders)
    quartiles = statistics.quantiles(wanders, n=4) if len(wanders) > 1 else wanders * 3
    return chosen, {"runs": len(wanders), "mean": chosen, "median": quartiles[1], "p75": quartiles[2]}


def first_fall(rates: list[float]) -> int | None:
    """The second a run's rate first falls for good: the first `LEVEL_BLOCK_S` boundary (from 10 s on) where
    the mean of the next block and that of the rest both lie more than `FALL` of the run's mean below the 10 s
    before it (the rest alone would name a boundary before a late fall, its mean pulled down by it); None
    when never."""
    import numpy as np

    blocks = len(rates) // LEVEL_BLOCK_S
    b = np.asarray(rates[: blocks * LEVEL_BLOCK_S], float).reshape(blocks, LEVEL_BLOCK_S).mean(axis=1)
    b = b / statistics.fmean(rates)
    for k in range(2, blocks - 1):
        before = b[k - 2 : k].mean() - FALL
        if b[k] < before and b[k:].mean() < before:  # the next block and the rest: where it falls, for good
            return k * LEVEL_BLOCK_S
    return None


def choose_write_min(found: list[Trace]) -> tuple[float, dict]:
    """A writer's minimum (`analysis.stopping.WRITE_MIN_S`): the median second at which the 60 s write runs of
    `found` (the choose half; writes only, not mixed) that fall first fall (`first_fall`), rounded up to a
    whole block. A stop before it has seen fewer than half of the falls to come."""
    falls = [f for t in found if kind(t) == "writes" and len(t.rates) < LONG_S if (f := first_fall(t.rates))]
    if not falls:
        return 0.0, {"runs_that_fall": 0}
    median = statistics.median(falls)
    chosen = float(math.ceil(median / LEVEL_BLOCK_S) * LEVEL_BLOCK_S)
    runs = sum(1 for t in found if kind(t) == "writes" and len(t.rates) < LONG_S)
    return chosen, {"runs": runs, "runs_that_fall": len(falls), "median_first_fall_s": median}


def choose(found: list[Trace]) -> tuple[object, list[dict]]:
    """The level allowance from `choose_level`, then the smallest wander terms (reads, writes apart: each
    group's stops depend on one of them) whose stops hold the whole run's mean in at least `GOAL` of every
    group of `found` (the choose half)."""
    from iolab.analysis.stopping import PARAMS

    level, spread = choose_level(found)
    print(f"choose: level wander {level:.2e} a second from {spread}", flush=True)
    tried: list[dict] = [{"level": level, **spread}]
    chosen = {}
    base = replace(PARAMS, level=level)
    for writes in (False, True):
        side = [t for t in found if t.writes == writes]
        for wander in WANDER_GRID:
            params = replace(base, wander_write=wander) if writes else replace(base, wander_read=wander)
            groups = by_group(run_rule(side, params))
            tried.append({"writes": writes, "wander": wander, "groups": groups})
            print(f"choose: {'writes' if writes else 'reads'} wander {wander:.1%}: {_line(groups)}", flush=True)
            if all((g["holds_whole_mean"] or 0) >= GOAL for g in groups.values()):
                chosen[writes] = wander
                break
    params = replace(base, wander_read=chosen.get(False, math.nan), wander_write=chosen.get(True, math.nan))
    return params, tried


def _line(groups: dict[str, dict]) -> str:
    return "; ".join(
        f"{name}: {g['stops']}/{g['points']} stopped, holds {_pct(g['holds_whole_mean'])}, "
        f"median {g['median_stop_s']} s, saved {_pct(g['time_saved'])}"
        for name, g in groups.items()
    )


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.1%}"


def real_part(data: Path, limit: int | None, do_choose: bool) -> dict:
    from iolab.analysis.stopping import PARAMS, TODAY

    found, counts = traces(data, limit)
    halves = split(found)
    half = {name: [t for t in found if halves[drive(t.path)] == name] for name in ("choose", "held-out")}
    out: dict = {"counts": counts, "replayed": len(found), **sides(half)}
    params = PARAMS
    write_min, falls = choose_write_min(half["choose"])
    out["write_min"] = {"chosen_s": write_min, **falls, "in_rule_s": PARAMS.write_min_s}
    print(f"writer's minimum from the choose half: {write_min:g} s ({falls}); the rule's {PARAMS.write_min_s:g} s")
    if do_choose:
        params, out["choice"] = choose(half["choose"])
        print(f"chosen: level {params.level:.2e}, wander reads {params.wander_read:.1%}, "
              f"writes {params.wander_write:.1%}", flush=True)  # fmt: skip
    out["params"] = {"wander_read": params.wander_read, "wander_write": params.wander_write,
                     "wander_s": params.wander_s, "drift": params.drift, "level": params.level,
                     "level_evidence": params.level_evidence, "write_min_s": params.write_min_s}  # fmt: skip
    out["overall"] = {}
    for name, ts in half.items():
        ours, today = run_rule(ts, params), run_rule(ts, TODAY)
        out[name], out["overall"][name] = beside(ours, today), overall(ours, today)
        print(f"{name}: {_line({**out[name], 'all': out['overall'][name]})}", flush=True)
        print(f"{name}, today's rule: {_line({g: f['today'] for g, f in out[name].items()})}", flush=True)
    out["swapped"] = swapped(half, params)
    return out


def sides(half: dict[str, list[Trace]]) -> dict:
    """Which drives and which device folders each half holds (a folder is never on both sides)."""
    return {
        "drives": {name: sorted({drive(t.path) for t in ts}) for name, ts in half.items()},
        "folders": {name: sorted({folder(t.path) for t in ts}) for name, ts in half.items()},
    }


def folder(path: str) -> str:
    return "/".join(path.split("/")[:-1])


def beside(ours: list[Stop], today: list[Stop]) -> dict[str, dict]:
    """Figures by group, each with today's rule's beside it and whether it saves at least half the time
    today's rule saves; `overall` gives the same over all groups."""
    out = by_group(ours)
    old = by_group(today)
    for g, f in out.items():
        f["today"] = old[g]
        f["saves_half_of_today"] = (f["time_saved"] or 0) >= (old[g]["time_saved"] or 0) / 2
    return out


def overall(ours: list[Stop], today: list[Stop]) -> dict:
    f = figures(ours)
    f["today"] = figures(today)
    f["saves_half_of_today"] = (f["time_saved"] or 0) >= (f["today"]["time_saved"] or 0) / 2
    return f


def swapped(half: dict[str, list[Trace]], params) -> dict:
    """The other fold: the level allowance estimated on the held-out half's long runs, the choose half
    replayed with it (a check that the estimate does not hinge on which drives sat where)."""
    from iolab.analysis.stopping import TODAY

    level, spread = choose_level(half["held-out"])
    other = replace(params, level=level)
    ours, today = run_rule(half["choose"], other), run_rule(half["choose"], TODAY)
    out = {"level": level, "spread": spread, "figures": beside(ours, today), "overall": overall(ours, today)}
    print(f"swapped fold (level {level:.2e} from the held-out half), choose half: {_line(out['figures'])}")
    return out


@dataclass(frozen=True)
class Shape:
    """One bin of the simulated envelope."""

    name: str
    cv: float
    phi: float
    drift: float  # relative change of the level from the run's first to its last second
    warm: str  # "none", "fast start" (+30% decaying over 5 s), "slow start" (-30% ramping up over 10 s)
    gc: bool  # a 3 s dip to 70% every 30 s, the first at a random second of the first 30
    length: int


def simulate(shape: Shape, rng: random.Random) -> list[float]:
    level, out, phase = 0.0, [], rng.randrange(30)
    innovation = shape.cv * math.sqrt(1 - shape.phi**2)
    for i in range(shape.length):
        level = shape.phi * level + rng.gauss(0, innovation)
        base = 1 + shape.drift * i / (shape.length - 1)
        if shape.warm == "fast start":
            base *= 1 + 0.3 * math.exp(-i / 5)
        elif shape.warm == "slow start":
            base *= 1 - 0.3 * max(0.0, 1 - i / 10)
        if shape.gc and (i + phase) % 30 >= 27:
            base *= 0.7
        out.append(1000 * base * (1 + level))
    return out


def shapes() -> list[Shape]:
    out = []
    for length, cv, phi, drift, warm, gc in itertools.product(
        (60, 300),
        (0.005, 0.02, 0.05),
        (0.0, 0.5, 0.8),
        (0.0, 0.05, -0.10),
        ("none", "fast start", "slow start"),
        (False, True),
    ):
        name = (f"{length} s, CV {cv:.1%}, phi {phi:g}, drift {drift:+.0%}, {warm}"
                f"{', GC dips' if gc else ''}")  # fmt: skip
        out.append(Shape(name, cv, phi, drift, warm, gc, length))
    return out


def sim_part(series: int, seed: int, every: int = 1) -> dict:
    """Each bin's coverage of the whole simulated run's mean, stops and median stop, for both rules, and the
    figures by each axis of the envelope (the bins pooled along the others)."""
    from iolab.analysis.stopping import PARAMS, TODAY

    rows = []
    for k, shape in enumerate(shapes()[::every]):
        rng = random.Random(seed * 1_000_003 + k)
        runs = [simulate(shape, rng) for _ in range(series)]
        row = {"bin": shape.name, "length": shape.length, "cv": shape.cv, "phi": shape.phi, "drift": shape.drift,
               "warm": shape.warm, "gc": shape.gc}  # fmt: skip
        for label, params in (("ours", PARAMS), ("today", TODAY)):
            row[label] = figures([replace(replay(r, False, params), group=shape.name) for r in runs])
        rows.append(row)
    axes = {}
    for axis in ("length", "cv", "phi", "drift", "warm", "gc"):
        axes[axis] = {}
        for value in sorted({r[axis] for r in rows}, key=str):
            sel = [r for r in rows if r[axis] == value]
            axes[axis][str(value)] = {label: _pooled([r[label] for r in sel]) for label in ("ours", "today")}
    worst = min(rows, key=lambda r: r["ours"]["holds_whole_mean"] if r["ours"]["stops"] else 1.0)
    return {"series_per_bin": series, "seed": seed, "bins": rows, "by_axis": axes, "worst_bin": worst["bin"]}


def _pooled(parts: list[dict]) -> dict:
    stops = sum(p["stops"] for p in parts)
    held = sum((p["holds_whole_mean"] or 0) * p["stops"] for p in parts)
    saved = statistics.fmean(p["time_saved"] for p in parts)
    return {"stops": stops, "points": sum(p["points"] for p in parts),
            "holds_whole_mean": held / stops if stops else None, "time_saved": saved}  # fmt: skip


def merged(out: dict) -> dict:
    """`out` over the figures last written (the part not run stays as last measured; the date is this run's)."""
    kept = {k: v for k, v in json.loads(RESULT.read_text()).items() if k not in ("benchmark", "when")}
    return {**kept, **out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="fio-plot's benchmark_data folder")
    parser.add_argument("--limit", type=int, help="replay at most this many points")
    parser.add_argument("--part", choices=("real", "sim", "both"), default="both")
    parser.add_argument("--choose", action="store_true", help="choose the wander terms on the choose half first")
    parser.add_argument("--series", type=int, default=20, help="simulated series a bin")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--procs", type=int, default=1, help="processes replaying the real traces")
    add_smoke_flag(parser)
    args = parser.parse_args()
    global PROCS
    PROCS = max(args.procs, 1)
    every = 1  # every bin of the envelope; the smoke run takes one in 36
    if args.smoke:  # the suite's own real fio outputs with logs stand in for the collection
        args.data = args.data or Path(__file__).resolve().parent.parent / "tests" / "data" / "fio"
        args.limit, args.series, every = args.limit or 20, 1, 36
    started = time.monotonic()
    out: dict = {"rule": {"target_ci": TARGET, "min_s": MIN_S, "goal": GOAL, "min_stops": MIN_STOPS}}
    if args.part in ("real", "both"):
        if args.data is None or not args.data.is_dir():
            sys.exit(f"{args.data} is not a folder: give fio-plot's benchmark_data with --data")
        out["real"] = real_part(args.data, args.limit, args.choose)
    if args.part in ("sim", "both"):
        out["sim"] = sim_part(args.series, args.seed, every)
        for axis, values in out["sim"]["by_axis"].items():
            for value, f in values.items():
                print(f"sim {axis} {value}: ours holds {_pct(f['ours']['holds_whole_mean'])} of "
                      f"{f['ours']['stops']}, saved {_pct(f['ours']['time_saved'])}; today holds "
                      f"{_pct(f['today']['holds_whole_mean'])} of {f['today']['stops']}")  # fmt: skip
    out["seconds"] = round(time.monotonic() - started, 1)
    if args.part != "both" and RESULT.exists() and not args.smoke:  # the other part stays as last measured
        out = merged(out)
    if args.limit is None or args.smoke:
        write_result(RESULT, "stopping_envelope", out, smoke=args.smoke)


if __name__ == "__main__":
    main()
