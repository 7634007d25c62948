"""Change points placed by a t4 likelihood where the history's innovations read heavy-tailed (`analysis.history.
PLACE_HEAVY`, issue 40, eighteenth look): false change points and steps found, with the element and without it, on
the same histories, by bin.

Sets (seeds of bench/simulated_histories.py's draw): 30-199-run and 200-1,999-run histories and the two must-show
cells (one step of -10% at COV 2-5%, of -15% at COV 2-10%, 60-1,999 runs), each from `--first` on. False change
points count in histories with phi under 0.7 spanning three of each cycle they hold, as the bench counts them;
steps with at least 20 runs a side (ramps apart).

    python bench/history_heavy_place.py --set tuning     # seeds 71,000,000+: what the element was chosen on
    python bench/history_heavy_place.py --set held-out   # seeds 81,000,000+: read once, after the decision
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
from iolab.analysis.history import ChangePointParams

FIRST = {"tuning": 71_000_000, "held-out": 81_000_000}
LENGTH_BINS = ((30, 60, "30-59"), (60, 200, "60-199"), (200, 1000, "200-999"), (1000, 2000, "1,000-1,999"))
PHI_BINS = ((0.0, 1e-9, "0"), (1e-9, 0.35, "0-0.35"), (0.35, 0.7, "0.35-0.7"))


def _cycle(row: dict) -> float:
    return max(row["daily"], row["weekly"], row.get("semidaily", 0.0))


BINS = {
    "runs": lambda r: sim._bin(r["runs"], LENGTH_BINS),
    "cov": lambda r: sim._bin(r["cov"], sim.FALSE_COV_BINS),
    "phi": lambda r: sim._bin(r["phi"], PHI_BINS),
    "cycle": lambda r: sim._bin(_cycle(r), sim.CYCLE_BINS),
    "noise": lambda r: r["noise"],
}


def _judged(seeds: range, least: int, most: int, on: bool, step=None) -> list[dict]:
    history.PLACE_HEAVY = on
    kept = []
    for seed in seeds:
        h = sim.draw(seed, most, step, least=least, widened=False if step else None)
        if h.knobs["phi"] < 0.7:
            kept.append(sim.judge(h, ChangePointParams()))
    return kept


def _interval(count: int) -> list[float]:
    """A rough 95% interval of a Poisson count (Wilson-Hilferty), for the figures' reader."""
    if count == 0:
        return [0.0, 3.69]
    lower = count * (1 - 1 / (9 * count) - 1.96 / (3 * math.sqrt(count))) ** 3
    upper = (count + 1) * (1 - 1 / (9 * (count + 1)) + 1.96 / (3 * math.sqrt(count + 1))) ** 3
    return [round(lower, 1), round(upper, 1)]


def _figures(rows: list[dict]) -> dict:
    spanning = sim._spanning(rows)
    steps = [s for r in rows for s in r["steps"] if s["sides"] >= sim.SIDE and not s["ramp"]]
    false = sum(r["false"] for r in spanning)
    runs = sum(r["runs"] for r in spanning)
    by_bin = {}
    for name, key in BINS.items():
        labels = sorted({key(r) for r in spanning if key(r) is not None})
        by_bin[name] = {
            label: {
                "runs": sum(r["runs"] for r in spanning if key(r) == label),
                "false": sum(r["false"] for r in spanning if key(r) == label),
            }
            for label in labels
        }
    return {
        "histories": len(rows),
        "spanning_runs": runs,
        "false": false,
        "false_interval_95": _interval(false),
        "per_1000_runs": round(1000 * false / runs, 3) if runs else None,
        "far_from_steps": false - sum(r["misplaced"] for r in spanning),
        "steps_20_a_side": len(steps),
        "found": sum(s["found"] for s in steps),
        "by_bin": by_bin,
    }


def one_set(first: int, short: int, mid: int, cells: int) -> dict:
    out: dict = {}
    for on in (False, True):
        name = "t4 placement" if on else "before"
        out[name] = {
            "30-199": _figures(_judged(range(first, first + short), 30, 199, on)),
            "200-1,999": _figures(_judged(range(first + 500_000, first + 500_000 + mid), 200, 1999, on)),
        }
        for cell, (size, cov, _, base) in sim.MUST_SHOW.items():
            rows = _judged(
                range(base + first, base + first + cells), 2 * sim.SIDE + 10, sim.SHORT_RUNS, on, (size, cov)
            )
            steps = [s for r in rows for s in r["steps"]]
            out[name][cell] = {"steps": len(steps), "found": sum(s["found"] for s in steps)}
            print(name, cell, out[name][cell], flush=True)
        for length in ("30-199", "200-1,999"):
            f = out[name][length]
            print(
                name,
                length,
                {k: f[k] for k in ("spanning_runs", "false", "far_from_steps", "steps_20_a_side", "found")},
            )
    history.PLACE_HEAVY = True
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
    sizes = (20, 2, 4) if args.smoke else (args.short, args.mid, args.cells)
    out = args.out or Path(__file__).parent / "results" / f"history_heavy_place_{args.set}.json"
    figures = {"set": args.set, "first_seed": FIRST[args.set], **one_set(FIRST[args.set], *sizes)}
    write_result(out, "history_heavy_place", figures, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
