"""A faint change point declined where its place is not known to within a few runs (`analysis.history.PLACE_MIN_MASS`
and `PLACE_FAINT_P`, issue 40, nineteenth look): false change points, of them 4-10 runs from a true step, steps found
within 3 runs and ramps found, at each least neighbourhood mass and p a point is kept at, on the same histories.

Each history is judged once; each change point's mass (the share of its placement likelihood within
PLACE_RUNS runs of the place reported, `history._placed_with_mass`) and p are recorded, and every threshold is read off
the same runs (declining a change point changes nothing else that is credited). Sets (seeds of
bench/simulated_histories.py's draw): 30-199-run and 200-1,999-run histories and the two must-show cells (one step
of -10% at COV 2-5%, of -15% at COV 2-10%, 60-1,999 runs), each from `--first` on. False change points count in
histories with phi under 0.7 spanning three of each cycle they hold, as the bench counts them; steps with at least
20 runs a side (ramps apart).

    python bench/history_place_mass.py --set tuning     # seeds 71,000,000+: what the threshold was chosen on
    python bench/history_place_mass.py --set held-out   # seeds 91,000,000+: before and the shipped rule, read once
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import simulated_histories as sim
from results_file import add_smoke_flag, write_result

from iolab.analysis import history
from iolab.analysis.history import ChangePointParams, analyse_history

FIRST = {"tuning": 71_000_000, "held-out": 91_000_000}
THRESHOLDS = ((0.0, 1.0),) + tuple((m, c) for m in (0.6, 0.7, 0.8, 0.9) for c in (1e-5, 1e-6, 1e-7, 1e-8, 0.0))
LENGTH_BINS = ((30, 60, "30-59"), (60, 200, "60-199"), (200, 1000, "200-999"), (1000, 2000, "1,000-1,999"))
PHI_BINS = ((0.0, 1e-9, "0"), (1e-9, 0.35, "0-0.35"), (0.35, 0.7, "0.35-0.7"))
BINS = {
    "runs": lambda r: sim._bin(r["runs"], LENGTH_BINS),
    "cov": lambda r: sim._bin(r["cov"], sim.FALSE_COV_BINS),
    "phi": lambda r: sim._bin(r["phi"], PHI_BINS),
    "cycle": lambda r: sim._bin(max(r["daily"], r["weekly"], r.get("semidaily", 0.0)), sim.CYCLE_BINS),
    "noise": lambda r: r["noise"],
}


def _label(t: tuple[float, float]) -> str:
    """A threshold's name: a change point is declined where its mass is under the first and its p over the second."""
    return f"mass {t[0]}, p {t[1]:g}"


def _masses(h: sim.History) -> list[tuple[int, float, float]]:
    """(index, mass, p) of each change point the shipped method reports with no threshold."""
    seen: list[list[tuple[int, float]]] = []
    inner = history._placed_with_mass

    def recording(*args, **kwargs):
        out = inner(*args, **kwargs)
        seen.append(out)
        return out

    history._placed_with_mass = recording  # type: ignore[assignment]
    keep, history.PLACE_MIN_MASS = history.PLACE_MIN_MASS, 0.0
    try:
        result = analyse_history(h.values, ChangePointParams(), h.times)
    finally:
        history._placed_with_mass, history.PLACE_MIN_MASS = inner, keep  # type: ignore[assignment]
    masses = [mass for _, mass in seen[-1]] if seen else []
    return [(cp.index, mass, cp.pvalue) for cp, mass in zip(result.change_points, masses, strict=True)]


def _row(h: sim.History) -> dict:
    points = _masses(h)
    row: dict = {**{k: h.knobs[k] for k in ("runs", "cov", "phi", "noise", "daily", "weekly", "days")}}
    row["semidaily"] = h.knobs.get("semidaily", 0.0)
    row["masses"] = [round(m, 3) for _, m, _ in points]
    for t in THRESHOLDS:
        credited, kinds = sim._credit(h, [at for at, m, p in points if m >= t[0] or p <= t[1]])
        row[t] = {
            "false": kinds["false"],
            "misplaced": kinds["misplaced"],
            "found": sum(
                1
                for at, r, i in zip(h.steps, h.ramps, range(len(h.steps)), strict=True)
                if not r and at in credited and _sides(h, i) >= sim.SIDE
            ),
            "ramps_found": sum(1 for at, r in zip(h.steps, h.ramps, strict=True) if r and at in credited),
        }
    row["ramps"] = sum(1 for r in h.ramps if r)
    row["steps"] = sum(1 for i, r in enumerate(h.ramps) if not r and _sides(h, i) >= sim.SIDE)
    return row


def _sides(h: sim.History, i: int) -> int:
    bounds = [0, *h.steps, len(h.values)]
    return min(h.steps[i] - bounds[i], bounds[i + 2] - h.steps[i] - h.ramps[i])


def _rows(seeds: range, least: int, most: int, step=None) -> list[dict]:
    rows = []
    for seed in seeds:
        h = sim.draw(seed, most, step, least=least, widened=False if step else None)
        if h.knobs["phi"] < 0.7:
            rows.append(_row(h))
    return rows


def _interval(count: int) -> list[float]:
    """A rough 95% interval of a Poisson count (Wilson-Hilferty)."""
    if count == 0:
        return [0.0, 3.69]
    lower = count * (1 - 1 / (9 * count) - 1.96 / (3 * math.sqrt(count))) ** 3
    upper = (count + 1) * (1 - 1 / (9 * (count + 1)) + 1.96 / (3 * math.sqrt(count + 1))) ** 3
    return [round(lower, 1), round(upper, 1)]


def _figures(rows: list[dict]) -> dict:
    spanning = sim._spanning(rows)
    runs = sum(r["runs"] for r in spanning)
    out: dict = {
        "histories": len(rows),
        "spanning_runs": runs,
        "steps_20_a_side": sum(r["steps"] for r in rows),
        "ramps": sum(r["ramps"] for r in rows),
    }
    for t in THRESHOLDS:
        false = sum(r[t]["false"] for r in spanning)
        by_bin = {
            name: {
                label: sum(r[t]["false"] for r in spanning if key(r) == label)
                for label in sorted({key(r) for r in spanning if key(r) is not None})
            }
            for name, key in BINS.items()
        }
        out[_label(t)] = {
            "false": false,
            "false_interval_95": _interval(false),
            "per_1000_runs": round(1000 * false / runs, 3) if runs else None,
            "far_from_steps": false - sum(r[t]["misplaced"] for r in spanning),
            "found": sum(r[t]["found"] for r in rows),
            "ramps_found": sum(r[t]["ramps_found"] for r in rows),
            "false_by_bin": by_bin,
        }
    return out


def _cell(rows: list[dict]) -> dict:
    steps = sum(r["steps"] for r in rows)
    return {"steps": steps, **{_label(t): sum(r[t]["found"] for r in rows) for t in THRESHOLDS}}


def one_set(first: int, short: int, mid: int, cells: int) -> dict:
    out: dict = {
        "30-199": _figures(_rows(range(first, first + short), 30, 199)),
        "200-1,999": _figures(_rows(range(first + 500_000, first + 500_000 + mid), 200, 1999)),
    }
    for name in ("30-199", "200-1,999"):
        print(
            name,
            {
                t: {k: out[name][_label(t)][k] for k in ("false", "far_from_steps", "found", "ramps_found")}
                for t in THRESHOLDS
            },
        )
        print(
            "  steps",
            out[name]["steps_20_a_side"],
            "ramps",
            out[name]["ramps"],
            "runs",
            out[name]["spanning_runs"],
            flush=True,
        )
    for cell, (size, cov, _, base) in sim.MUST_SHOW.items():
        rows = _rows(range(base + first, base + first + cells), 2 * sim.SIDE + 10, sim.SHORT_RUNS, (size, cov))
        out[cell] = _cell(rows)
        print(cell, out[cell], flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(FIRST), default="held-out")
    parser.add_argument("--short", type=int, default=4000, help="histories of 30-199 runs")
    parser.add_argument("--mid", type=int, default=400, help="histories of 200-1,999 runs")
    parser.add_argument("--cells", type=int, default=200, help="histories per must-show cell")
    parser.add_argument("--out", type=Path, default=None)
    add_smoke_flag(parser)
    args = parser.parse_args()
    global THRESHOLDS
    if args.set == "held-out":  # read once: the method before and the rule chosen, nothing else
        THRESHOLDS = (THRESHOLDS[0], (history.PLACE_MIN_MASS, history.PLACE_FAINT_P))
    sizes = (20, 2, 4) if args.smoke else (args.short, args.mid, args.cells)
    out = args.out or Path(__file__).parent / "results" / f"history_place_mass_{args.set}.json"
    figures = {"set": args.set, "first_seed": FIRST[args.set], **one_set(FIRST[args.set], *sizes)}
    write_result(out, "history_place_mass", figures, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
