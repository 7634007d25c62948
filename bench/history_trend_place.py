"""A change point placed with a straight line through its segment taken out beside the level (`history.PLACE_TREND`,
issue 40, twenty-first look, second element): false change points, of them 4-10 runs from a true step, steps found within 3 runs, ramps
found and unplanted outlier runs under t4 noise, the method with each setting on the same histories.

Sets (seeds of bench/simulated_histories.py's draw): 30-199-run and 200-1,999-run histories and the two must-show
cells (one step of -10% at COV 2-5%, of -15% at COV 2-10%, 60-1,999 runs), each from `--first` on. False change
points count in histories with phi under 0.7 spanning three of each cycle they hold, as the bench counts them; steps
with at least 20 runs a side (ramps apart).

    python bench/history_trend_place.py --set tuning     # seeds 71,000,000+: what the setting was chosen on
    python bench/history_trend_place.py --set held-out   # seeds 141,000,000+: before and the shipped setting, read once
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

FIRST = {"tuning": 71_000_000, "held-out": 141_000_000}
# Each setting: its label and the module constants it sets (the first is the method before).
SETTINGS: tuple[tuple[str, dict], ...] = (
    ("before", {}),
    ("placed with a line out", {(history, "PLACE_TREND"): True}),
)
SHIPPED = "placed with a line out"  # the setting taken to the held-out set
BEFORE = {(history, "PLACE_TREND"): False}
LENGTH_BINS = ((30, 60, "30-59"), (60, 200, "60-199"), (200, 1000, "200-999"), (1000, 2000, "1,000-1,999"))
PHI_BINS = ((0.0, 1e-9, "0"), (1e-9, 0.35, "0-0.35"), (0.35, 0.7, "0.35-0.7"))
BINS = {
    "runs": lambda r: sim._bin(r["runs"], LENGTH_BINS),
    "cov": lambda r: sim._bin(r["cov"], sim.FALSE_COV_BINS),
    "phi": lambda r: sim._bin(r["phi"], PHI_BINS),
    "cycle": lambda r: sim._bin(max(r["daily"], r["weekly"], r.get("semidaily", 0.0)), sim.CYCLE_BINS),
    "noise": lambda r: r["noise"],
}


def _sides(h: sim.History, i: int) -> int:
    bounds = [0, *h.steps, len(h.values)]
    return min(h.steps[i] - bounds[i], bounds[i + 2] - h.steps[i] - h.ramps[i])


def _judged(h: sim.History, setting: dict) -> dict:
    changes = {**BEFORE, **setting}
    kept = {key: getattr(*key) for key in changes}
    try:
        for (module, name), value in changes.items():
            setattr(module, name, value)
        result = analyse_history(h.values, ChangePointParams(), h.times)
    finally:
        for (module, name), value in kept.items():
            setattr(module, name, value)
    credited, kinds = sim._credit(h, [cp.index for cp in result.change_points])
    steps = [i for i, r in enumerate(h.ramps) if not r and _sides(h, i) >= sim.SIDE]
    return {
        "false": kinds["false"],
        "misplaced": kinds["misplaced"],
        "found": sum(1 for i in steps if h.steps[i] in credited),
        "ramps_found": sum(1 for s, r in zip(h.steps, h.ramps, strict=True) if r and s in credited),
        "outliers_false": len(set(result.outlier_runs) - h.outliers),
    }


def _row(h: sim.History) -> dict:
    row: dict = {k: h.knobs[k] for k in ("runs", "cov", "phi", "noise", "daily", "weekly", "days")}
    row["semidaily"] = h.knobs.get("semidaily", 0.0)
    row["ramps"] = sum(1 for r in h.ramps if r)
    row["steps"] = sum(1 for i, r in enumerate(h.ramps) if not r and _sides(h, i) >= sim.SIDE)
    for label, setting in SETTINGS:
        row[label] = _judged(h, setting)
    return row


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
    t4 = [r for r in rows if r["noise"] == "t4"]
    out: dict = {
        "histories": len(rows),
        "spanning_runs": runs,
        "steps_20_a_side": sum(r["steps"] for r in rows),
        "ramps": sum(r["ramps"] for r in rows),
        "t4_runs": sum(r["runs"] for r in t4),
    }
    for name, _ in SETTINGS:
        false = sum(r[name]["false"] for r in spanning)
        out[name] = {
            "false": false,
            "false_interval_95": _interval(false),
            "per_1000_runs": round(1000 * false / runs, 3) if runs else None,
            "far_from_steps": false - sum(r[name]["misplaced"] for r in spanning),
            "found": sum(r[name]["found"] for r in rows),
            "ramps_found": sum(r[name]["ramps_found"] for r in rows),
            "unplanted_outliers_t4_per_10000": round(
                1e4 * sum(r[name]["outliers_false"] for r in t4) / max(1, out["t4_runs"]), 3
            ),
            "false_by_bin": {
                key: {
                    label: sum(r[name]["false"] for r in spanning if bin_of(r) == label)
                    for label in sorted({bin_of(r) for r in spanning if bin_of(r) is not None})
                }
                for key, bin_of in BINS.items()
            },
        }
    return out


def _cell(rows: list[dict]) -> dict:
    return {
        "steps": sum(r["steps"] for r in rows),
        **{label: sum(r[label]["found"] for r in rows) for label, _ in SETTINGS},
    }


def one_set(first: int, short: int, mid: int, cells: int) -> dict:
    out: dict = {
        "30-199": _figures(_rows(range(first, first + short), 30, 199)),
        "200-1,999": _figures(_rows(range(first + 500_000, first + 500_000 + mid), 200, 1999)),
    }
    for name in ("30-199", "200-1,999"):
        f = out[name]
        print(name, "runs", f["spanning_runs"], "steps", f["steps_20_a_side"], "ramps", f["ramps"], flush=True)
        for label, _ in SETTINGS:
            g = f[label]
            print(
                " ", label, {k: g[k] for k in ("false", "far_from_steps", "found", "ramps_found")}, flush=True
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
    global SETTINGS
    if args.set == "held-out":  # read once: the method before and the setting chosen, nothing else
        SETTINGS = (SETTINGS[0], *(s for s in SETTINGS if s[0] == SHIPPED))
    sizes = (20, 2, 4) if args.smoke else (args.short, args.mid, args.cells)
    out = args.out or Path(__file__).parent / "results" / f"history_trend_place_{args.set}.json"
    figures = {"set": args.set, "first_seed": FIRST[args.set], **one_set(FIRST[args.set], *sizes)}
    write_result(out, "history_trend_place", figures, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
