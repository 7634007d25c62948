"""TEL-DIP and TEL-STEP at a run's edges: dips that end in its last seconds or start in its first, steps that last.

Written for issue 40 (branch dips61: a dip that recovered in the run's last second was read as a step,
`analysis.dips._recovered`). Nothing here is imported from `bench/`: each series goes to the TEL-DIP/TEL-STEP rules through
`doctor.engine.evaluate` on a `Context` holding one "all jobs" series, as `iolab doctor` builds one from fio's
logs (and as bench/independent_audit.py calls them), and the findings with an onset are read.

The declared envelope (each case drawn from its own seed):

- a run of 20-600 s (log-uniform) logged every 1 s (seven cases in ten), 0.5 s or 2 s (three in twenty each); the
  series the rules get carries a partial first and last window besides, which they leave out as they leave out
  fio's (`doctor.derived.active_seconds`): the run's windows here are the ones the rules judge;
- noise multiplying the level: a COV of 1-15% per window (log-uniform), AR(1) phi 0-0.7, Gaussian or Student t3
  shocks (unit variance);
- "end": one dip whose last low window is 0-5 windows before the run's last window, i.e. the run back at its level
  for its last 1-6 windows ("back 1" is a dip recovering in the last window, the bug);
- "start": one dip starting in the run's first window or up to 5 windows later;
- each dip 2-30 s long (log-uniform, at most half the run), 30-100% deep and at least 3x the per-window sd (depth
  drawn uniform over that), shaped as a rectangle, a ramp (down over a third, flat, up over a third), a V, or a
  noisy bottom (each window's loss varying by 30% of the depth, at least half the depth, the deepest at the depth);
- "step": the shallow-step twin, a real step down of 20-60% lasting to the end (its last 3-60 s, at most half the
  run), half of them with a last window noise-high (the level after plus a shock of 1.5-3 sd): a step read as a
  dip that ended is counted as misread;
- "clean": the same noise, no event: every finding is false.

Not spanned (bins a user's machine can present that this generator does not draw; main-space benches cover some):
dips longer than 30 s near an edge, runs longer than 600 s, COV above 15%, windows under 0.5 s, daily cycles,
drift or a second event beside the first, and a last window that is partial and low (fio's own last window).

Figures, by bin: recall (a TEL-DIP finding overlapping the dip), recall by any rule (TEL-STEP too), onset within
+-1 s of the dip's first window, a step misread (a TEL-DIP finding over the step's seconds), false findings per
clean run. `recovered_z` (`DipParams`) is chosen on the tuning seeds only (--seed on), from `GRID`: the largest
recall of dips back for 1-2 windows with the steps misread no more than 1 point above the switch off and false
findings per clean run no more than 0.01 above it, the larger z on a tie; the held-out seeds (--seed + 1,000,000
on) are then read with it and with it off (before/after).

Run: `python bench/dips_edges.py [--cases 3000] [--tune-cases 1500] [--seed 61000000] [--procs 2]
[--out bench/results/dips_edges.json]`; `--smoke` runs a few cases.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import replace
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from iolab.doctor.derived import PointSeries, active_seconds
from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context
from iolab.doctor.rules import telemetry

RULES = ("TEL-DIP", "TEL-STEP")
SEED = 61_000_000  # tuning seeds; held out: SEED + HELD_OUT on
HELD_OUT = 1_000_000
GRID: tuple[float | None, ...] = (None, 1.5, 2.0, 2.5, 3.0)  # recovered_z; None: the switch off (as before)
KINDS = ("end", "start", "step", "clean")
SHAPES = ("rect", "ramp", "V", "noisy")
MISREAD_SLACK = 0.01  # steps misread, share above the switch off that a tuning choice may cost
FALSE_SLACK = 0.01  # false findings per clean run above the switch off that a tuning choice may cost
RESULT = Path(__file__).parent / "results" / "dips_edges.json"

_RULE_OBJECTS: list | None = None


# ------------------------------------------------------------------------------------------------- the rules


def series(values: np.ndarray, interval: float) -> PointSeries:
    """One "all jobs" series whose window i (0-based) ends at (i + 1) x `interval`."""
    return PointSeries(
        "p", "all jobs", [float(i + 1) * interval for i in range(len(values))], [float(v) for v in values]
    )


def findings(values: np.ndarray, interval: float, z: float | None) -> list[tuple[str, float, float]]:
    """(rule, onset s, duration s) of each TEL-DIP/TEL-STEP finding with an onset on one series whose window i
    (0-based) ends at (i + 1) x `interval`, the rules' detector with `recovered_z` = z."""
    global _RULE_OBJECTS
    if _RULE_OBJECTS is None:
        _RULE_OBJECTS = [r for r in all_rules() if r.id in RULES]
    shipped = telemetry.PARAMS
    telemetry.PARAMS = replace(shipped, recovered_z=z)
    try:
        ctx = Context(series=[series(values, interval)])
        out = []
        for f in evaluate(ctx, _RULE_OBJECTS):
            onset, duration = f.evidence.get("onset"), f.evidence.get("duration")
            if onset is not None:
                out.append((f.rule_id, float(str(onset).split()[0]), float(str(duration or "0 s").split()[0])))
        return out
    finally:
        telemetry.PARAMS = shipped


def overlap(found: list[tuple[str, float, float]], start: float, end: float, rule: str | None) -> tuple | None:
    """The first finding of `rule` (None: any) overlapping [start, end) s."""
    for f in found:
        if (rule is None or f[0] == rule) and f[1] < end and f[1] + max(f[2], 1.0) > start:
            return f
    return None


# ------------------------------------------------------------------------------------------------- the draws


def ar1(rng: np.random.Generator, n: int, phi: float, sd: float, tails: str) -> np.ndarray:
    """Stationary AR(1) noise of marginal sd `sd`, Gaussian or Student t3 (unit variance) shocks."""
    eta = rng.standard_normal(n) if tails == "gauss" else rng.standard_t(3, n) / math.sqrt(3.0)
    e = np.empty(n)
    e[0] = sd * eta[0]
    scale = sd * math.sqrt(1.0 - phi * phi)
    for i in range(1, n):
        e[i] = phi * e[i - 1] + scale * eta[i]
    return e


def multiplier(kind: str, length: int, depth: float, rng: np.random.Generator) -> np.ndarray:
    """The level's multiplier over a dip's `length` windows."""
    if kind == "rect" or length < 3:
        return np.full(length, 1.0 - depth)
    if kind == "ramp":
        a = max(1, length // 3)
        down = 1.0 - depth * np.arange(1, a + 1) / a
        return np.concatenate([down, np.full(max(1, length - 2 * a), 1.0 - depth), down[::-1]])[:length]
    if kind == "V":
        half = (length + 1) // 2
        down = 1.0 - depth * np.arange(1, half + 1) / half
        return np.concatenate([down, down[::-1][length % 2 :]])[:length]
    m = (1.0 - depth) + 0.3 * depth * rng.standard_normal(length)
    m = np.minimum(np.clip(m, 1.0 - depth, 1.0), 1.0 - 0.5 * depth)
    m[rng.integers(length)] = 1.0 - depth
    return m


def draw(kind: str, seed: int, i: int) -> dict:
    """Case `i` of `kind` at `seed`: the judged windows `x`, the interval, the event's [start, end) window indices
    and its draws."""
    rng = np.random.default_rng([seed, KINDS.index(kind), i])
    seconds = int(round(math.exp(rng.uniform(math.log(20), math.log(600)))))
    interval = float(rng.choice([1.0, 0.5, 2.0], p=[0.7, 0.15, 0.15]))
    n = max(10, int(round(seconds / interval)))
    cov = math.exp(rng.uniform(math.log(0.01), math.log(0.15)))
    phi, tails = float(rng.uniform(0.0, 0.7)), ("gauss", "t3")[i % 2]
    x = 1e8 * np.maximum(1.0 + ar1(rng, n, phi, cov, tails), 0.02)
    case = {"kind": kind, "i": i, "n": n, "interval": interval, "cov": cov, "phi": phi, "tails": tails}
    if kind in ("end", "start"):
        length_s = math.exp(rng.uniform(math.log(2.0), math.log(30.0)))
        length = max(int(math.ceil(2.0 / interval)), min(int(round(length_s / interval)), n // 2))
        edge = int(rng.integers(0, 6))  # windows before the end (after the start)
        start = max(n - 1 - edge - length, 0) if kind == "end" else edge  # "end": back for its last edge + 1
        shape, depth = SHAPES[(i // 2) % 4], float(rng.uniform(max(0.3, 3 * cov), 1.0))
        x[start : start + length] *= multiplier(shape, length, depth, rng)
        case |= {"start": start, "end": start + length, "edge": edge, "shape": shape, "depth": depth}
    elif kind == "step":
        length = min(int(round(math.exp(rng.uniform(math.log(3), math.log(60))) / interval)), n // 2)
        length = max(length, 2)
        depth, high = float(rng.uniform(0.2, 0.6)), bool(i % 4 >= 2)
        x[n - length :] *= 1.0 - depth
        if high:  # the last window noise-high: the level after plus a shock of 1.5-3 sd
            x[-1] = 1e8 * (1.0 - depth) * (1.0 + rng.uniform(1.5, 3.0) * cov)
        case |= {"start": n - length, "end": n, "depth": depth, "high_last": high}
    case["x"] = x
    return case


def judged(case: dict, z: float | None) -> dict:
    """The case through the rules at `recovered_z` = z: what was found over its event, and how many others."""
    x, interval = case["x"], case["interval"]
    rng = np.random.default_rng([case["i"], 7])
    partial = x[[0, -1]] * rng.uniform(0.3, 1.0, 2)  # fio's partial first and last windows, left out by the rules
    whole = np.concatenate(([partial[0]], x, [partial[1]]))
    found = findings(whole, interval, z)
    out = {k: v for k, v in case.items() if k != "x"}
    # windows of the run itself the rules leave out as start-up or wind-down (idle, below 15% of the median)
    times, _ = active_seconds(series(whole, interval))
    out["cut_idle"] = [round(times[0] / interval) - 2, len(x) + 1 - round(times[-1] / interval)] if times else None
    if case["kind"] == "clean":
        return out | {"false": len(found)}
    start, end = (case["start"] + 1) * interval, (case["end"] + 1) * interval  # in the rules' time base
    dip, anyhit = overlap(found, start, end, "TEL-DIP"), overlap(found, start, end, None)
    out |= {
        "found": dip is not None,
        "found_any": anyhit is not None,
        "step_found": overlap(found, start, end, "TEL-STEP") is not None,
        "onset_ok": dip is not None and abs(dip[1] - start) <= 1.0,
        "others": sum(1 for f in found if f is not dip and f is not anyhit),
    }
    return out


def _task(args: tuple[str, int, int, float | None]) -> dict:
    kind, seed, i, z = args
    return judged(draw(kind, seed, i), z)


# ----------------------------------------------------------------------------------------------------- figures


def rate(hits: int, total: int) -> dict:
    """A share with its Wilson 90% interval."""
    if total == 0:
        return {"n": 0, "hits": 0, "rate": None}
    zz, p = 1.645, hits / total
    centre = (p + zz * zz / (2 * total)) / (1 + zz * zz / total)
    half = zz * math.sqrt(p * (1 - p) / total + zz * zz / (4 * total * total)) / (1 + zz * zz / total)
    return {"n": total, "hits": hits, "rate": round(p, 4), "lo": round(centre - half, 4), "hi": round(centre + half, 4)}


def tally(rows: Iterable[dict], key: Callable[[dict], str], hit: Callable[[dict], bool]) -> dict[str, dict]:
    groups: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        groups[key(row)].append(bool(hit(row)))
    return {k: rate(sum(v), len(v)) for k, v in sorted(groups.items())}


def edge_bin(r: dict) -> str:
    """Where the dip is: back at the level for its run's last 1, 2, 3-6 windows; starting in window 1, 2, 3-6."""
    e = r["edge"]
    if r["kind"] == "end":
        return "end: back 1 (last window)" if e == 0 else ("end: back 2" if e == 1 else "end: back 3-6")
    return "start: window 1" if e == 0 else ("start: window 2" if e == 1 else "start: windows 3-6")


def length_bin(r: dict) -> str:
    s = (r["end"] - r["start"]) * r["interval"]
    return (
        "length 2 s" if s <= 2 else ("length 3-5 s" if s <= 5 else ("length 6-10 s" if s <= 10 else "length 11-30 s"))
    )


def cov_bin(r: dict) -> str:
    return "COV 01-3%" if r["cov"] < 0.03 else ("COV 03-7%" if r["cov"] < 0.07 else "COV 07-15%")


def phi_bin(r: dict) -> str:
    return "phi 0-0.3" if r["phi"] < 0.3 else ("phi 0.3-0.5" if r["phi"] < 0.5 else "phi 0.5-0.7")


def depth_bin(r: dict) -> str:
    return "depth 30-50%" if r["depth"] < 0.5 else ("depth 50-80%" if r["depth"] < 0.8 else "depth 80-100%")


def run_bin(r: dict) -> str:
    s = r["n"] * r["interval"]
    return "run 020-59 s" if s < 60 else ("run 060-199 s" if s < 200 else "run 200-600 s")


def interval_bin(r: dict) -> str:
    return f"interval {r['interval']:g} s"


DIP_AXES: dict[str, Callable[[dict], str]] = {
    "edge": edge_bin,
    "edge x interval": lambda r: f"{edge_bin(r)}, {interval_bin(r)}",
    "edge x shape": lambda r: f"{edge_bin(r)}, {r['shape']}",
    "edge x length": lambda r: f"{edge_bin(r)}, {length_bin(r)}",
    "edge x COV": lambda r: f"{edge_bin(r)}, {cov_bin(r)}",
    "edge x phi": lambda r: f"{edge_bin(r)}, {phi_bin(r)}",
    "edge x tails": lambda r: f"{edge_bin(r)}, {r['tails']}",
    "edge x depth": lambda r: f"{edge_bin(r)}, {depth_bin(r)}",
    "edge x run": lambda r: f"{edge_bin(r)}, {run_bin(r)}",
}


def _step_bin(r: dict) -> str:
    depth = "20-25%" if r["depth"] < 0.25 else ("25-40%" if r["depth"] < 0.4 else "40-60%")
    return ("last window high" if r["high_last"] else "last window as drawn") + f", depth {depth}"


def _cut(r: dict) -> str:
    """Whether the rules left out some of the dip's windows as the run's start-up or wind-down (idle)."""
    cut = r["cut_idle"]
    return "cut as idle" if cut is None or cut[0] > r["start"] or cut[1] > 0 else "judged whole"


def summarise(rows: list[dict]) -> dict:
    """Recall, onset and findings by bin over the dips; misread steps; false findings per clean run."""
    dips = [r for r in rows if r["kind"] in ("end", "start")]
    steps = [r for r in rows if r["kind"] == "step"]
    clean = [r for r in rows if r["kind"] == "clean"]
    found = [r for r in dips if r["found"]]
    return {
        "dips": len(dips),
        "recall": rate(len(found), len(dips)),
        "recall_by": {axis: tally(dips, key, lambda r: r["found"]) for axis, key in DIP_AXES.items()},
        "recall_any_rule_by_edge": tally(dips, edge_bin, lambda r: r["found_any"]),
        "missed_by_edge_and_idle_cut": tally(dips, lambda r: f"{edge_bin(r)}, {_cut(r)}", lambda r: not r["found"]),
        "read_as_step_by_edge": tally(dips, edge_bin, lambda r: r["step_found"] and not r["found"]),
        "onset_within_1s_of_found_by_edge": tally(found, edge_bin, lambda r: r["onset_ok"]),
        "onset_within_1s_by_edge x interval": tally(found, DIP_AXES["edge x interval"], lambda r: r["onset_ok"]),
        "extra_findings_per_dip_run": round(sum(r["others"] for r in dips) / max(len(dips), 1), 4),
        "steps": len(steps),
        "step_misread_as_dip": rate(sum(r["found"] for r in steps), len(steps)),
        "step_misread_as_dip_by": tally(steps, _step_bin, lambda r: r["found"]),
        "step_misread_by_interval": tally(steps, interval_bin, lambda r: r["found"]),
        "step_found_as_step": rate(sum(r["step_found"] for r in steps), len(steps)),
        "clean_runs": len(clean),
        "false_per_clean_run": round(sum(r["false"] for r in clean) / max(len(clean), 1), 4),
        "clean_runs_with_a_finding_by_interval": tally(clean, interval_bin, lambda r: r["false"] > 0),
        "missed_examples": [{k: v for k, v in r.items() if k != "others"} for r in dips if not r["found"]][:10],
    }


def _near_end(s: dict) -> float | None:
    """Recall of the dips back for the run's last 1-2 windows, the bins the choice is made on."""
    cells = [s["recall_by"]["edge"].get(k, {"hits": 0, "n": 0}) for k in ("end: back 1 (last window)", "end: back 2")]
    n = sum(c["n"] for c in cells)
    return sum(c["hits"] for c in cells) / n if n else None


def choose(grid: dict[str, dict]) -> str:
    """The grid's key chosen: the largest recall near the end with misread steps and false findings within the
    slack of the switch off ("off"), the larger z on a tie."""
    off = grid["off"]
    fit = [
        k
        for k, s in grid.items()
        if s["step_misread_as_dip"]["rate"] <= off["step_misread_as_dip"]["rate"] + MISREAD_SLACK
        and s["false_per_clean_run"] <= off["false_per_clean_run"] + FALSE_SLACK
    ]
    return max(fit, key=lambda k: (_near_end(grid[k]) or 0.0, -1 if k == "off" else float(k)))


def score(pmap, seed: int, cases: int, z: float | None) -> list[dict]:
    """Every kind's `cases` draws from `seed` through the rules at recovered_z = z."""
    return list(pmap(_task, [(kind, seed, i, z) for kind in KINDS for i in range(cases)]))


def line(name: str, s: dict) -> str:
    edge = s["recall_by"]["edge"]
    cells = "  ".join(f"{k.split(': ')[1]} {_pct(v['rate'])} ({v['n']})" for k, v in edge.items())
    return (
        f"{name:>6}: {cells}  | step misread {_pct(s['step_misread_as_dip']['rate'])}"
        f" ({s['steps']})  false/clean run {s['false_per_clean_run']:.3f}"
    )


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def print_bins(title: str, s: dict) -> None:
    print(title)
    for axis in ("edge", "edge x interval", "edge x shape", "edge x length", "edge x COV", "edge x phi"):
        for k, v in s["recall_by"][axis].items():
            onset = s["onset_within_1s_by_edge x interval"].get(k, {}) if axis == "edge x interval" else {}
            if axis == "edge":
                onset = s["onset_within_1s_of_found_by_edge"].get(k, {})
            extra = f"  onset +-1 s {_pct(onset.get('rate'))}" if onset else ""
            print(f"  {k:<48} found {_pct(v['rate']):>6} of {v['n']:>4}{extra}")
    for k, v in s["missed_by_edge_and_idle_cut"].items():
        print(f"  missed, {k:<40} {_pct(v['rate']):>6} of {v['n']:>4}")
    for k, v in s["step_misread_as_dip_by"].items():
        print(f"  step misread as a dip, {k:<32} {_pct(v['rate']):>6} of {v['n']:>4}")
    print(f"  false findings per clean run {s['false_per_clean_run']:.4f} over {s['clean_runs']}")


# -------------------------------------------------------------------------------------------------------- main


def add_smoke_flag(parser: argparse.ArgumentParser) -> None:
    """--smoke as every bench takes it (tests/bench/test_smoke.py), defined here: this bench imports nothing from
    bench/."""
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="a few cases: checks it runs; written to $IOLAB_BENCH_RESULTS (else a temporary directory)",
    )


def host() -> dict:
    return {"kernel": platform.release(), "cpus": os.cpu_count(), "python": platform.python_version()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3000, help="held-out cases of each kind (end, start, step, clean)")
    parser.add_argument("--tune-cases", type=int, default=0, help="tuning cases of each kind (default: half --cases)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"the first tuning seed; held out from it + {HELD_OUT}")
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULT)
    add_smoke_flag(parser)
    args = parser.parse_args(argv)
    cases, tune_cases = (args.cases, args.tune_cases or max(1, args.cases // 2))
    grid_values = GRID
    if args.smoke:
        cases, tune_cases, grid_values = 3, 2, (None, telemetry.PARAMS.recovered_z)
    started = time.time()
    pool = Pool(args.procs) if args.procs > 1 and not args.smoke else None
    pmap = pool.imap if pool is not None else map
    try:
        grid = {
            ("off" if z is None else f"{z:g}"): summarise(score(pmap, args.seed, tune_cases, z)) for z in grid_values
        }
        for k, s in grid.items():
            print(line(k, s))
        chosen = choose(grid)
        shipped = telemetry.PARAMS.recovered_z
        print(f"chosen on seeds {args.seed}..: recovered_z {chosen} (shipped {shipped})")
        held = args.seed + HELD_OUT
        after = summarise(score(pmap, held, cases, shipped))
        before = summarise(score(pmap, held, cases, None))
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    print_bins(f"held out, seeds {held}.., before (recovered_z off):", before)
    print_bins(f"held out, seeds {held}.., after (recovered_z {shipped}):", after)
    figures = {
        "benchmark": "dips_edges",
        "smoke": bool(args.smoke),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": host(),
        "cases_per_kind": {"tuning": tune_cases, "held_out": cases},
        "tuning": {"seeds": [args.seed, args.seed + tune_cases], "grid": grid, "chosen": chosen},
        "held_out": {"seeds": [held, held + cases], "recovered_z": shipped, "before": before, "after": after},
        "seconds": round(time.time() - started, 1),
    }
    out = args.out
    if args.smoke:
        out = Path(os.environ.get("IOLAB_BENCH_RESULTS") or tempfile.mkdtemp(prefix="iolab-bench-smoke-")) / out.name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
