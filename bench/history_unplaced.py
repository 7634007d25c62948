"""A change point placed only where its place is known; an unplaced level change reported as a span (issue 40,
twenty-second look; `analysis.history.PLACE_MIN_MASS`, `HistoryAnalysis.unplaced`).

Each history is judged once. Before: every change the method finds, reported at its place (the method before the
split into placed and unplaced: the places are the same, `PLACE_MIN_MASS` only decides which are claimed as a run).
After: the placed change points (`change_points`), credited and counted false as the envelope bench counts them
(`simulated_histories._credit`: within NEAR runs of a step, of a ramp from its start to its end), and the unplaced
changes' spans (`unplaced`), a claim of another kind: a span covers a true step when the step's first run lies in it
(a ramp when the ramp overlaps it); one covering no step or ramp is a false span. Also counted: the steps and ramps
found before (a point within NEAR runs) that are now neither credited to a placed point nor covered by a span.

Sets (seeds of bench/simulated_histories.py's draw): 30-199-run and 200-1,999-run histories and the two must-show
cells (one step of -10% at COV 2-5%, of -15% at COV 2-10%, 60-1,999 runs). False points and spans count in histories
with phi under 0.7 spanning three of each cycle they hold, as the bench counts them; recall is of steps with at least
20 runs a side (ramps apart).

Each history is analysed once with every change placed (`PLACE_MIN_MASS` 0) and split by place mass: "before" claims
as a run every change whose mass is at least `--before` (0: every change, the twenty-second look's before), "after"
every change at least `--after` (the shipped `PLACE_MIN_MASS` unless given), the rest as spans. The places and spans
do not depend on the threshold, so one analysis gives both.

    python bench/history_unplaced.py --set tuning     # seeds 71,000,000+ (the nineteenth look's tuning seeds)
    python bench/history_unplaced.py --set held-out   # 95,000,000+ / 95,500,000+ / 96,000,000+ / 97,000,000+
    python bench/history_unplaced.py --set held-out-24 --before 0.5 --after 0.7   # twenty-fourth look, 141,000,000+
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import simulated_histories as sim
from results_file import add_smoke_flag, write_result

from iolab.analysis import history
from iolab.analysis.history import ChangePointParams, analyse_history

# First seeds of each set: 30-199 runs, 200-1,999 runs, the -10% cell, the -15% cell.
SEEDS = {
    "tuning": (71_000_000, 71_500_000, 73_000_000, 74_000_000),
    "held-out": (95_000_000, 95_500_000, 96_000_000, 97_000_000),
    "held-out-24": (141_000_000, 141_500_000, 143_000_000, 144_000_000),
}
LENGTH_BINS = ((30, 60, "30-59"), (60, 200, "60-199"), (200, 1000, "200-999"), (1000, 2000, "1,000-1,999"))
PHI_BINS = ((0.0, 1e-9, "0"), (1e-9, 0.35, "0-0.35"), (0.35, 0.7, "0.35-0.7"))
BINS = {
    "runs": lambda r: sim._bin(r["runs"], LENGTH_BINS),
    "cov": lambda r: sim._bin(r["cov"], sim.FALSE_COV_BINS),
    "phi": lambda r: sim._bin(r["phi"], PHI_BINS),
    "cycle": lambda r: sim._bin(max(r["daily"], r["weekly"], r.get("semidaily", 0.0)), sim.CYCLE_BINS),
    "noise": lambda r: r["noise"],
}
COUNTS = ("false_before", "false_after", "spans", "false_spans")


def _covers(h: sim.History, span: tuple[int, int]) -> list[int]:
    """The true steps (first runs) a span covers: a step whose first run lies in it, a ramp that overlaps it."""
    first, last = span
    return [s for s, r in zip(h.steps, h.ramps, strict=True) if first <= s + r and s <= last]


def _row(h: sim.History, before_mass: float, after_mass: float) -> dict:
    saved = history.PLACE_MIN_MASS
    history.PLACE_MIN_MASS = 0.0
    try:
        changes = analyse_history(h.values, ChangePointParams(), h.times).change_points
    finally:
        history.PLACE_MIN_MASS = saved
    placed = [cp.index for cp in changes if cp.place_mass >= after_mass]
    claimed = sorted(cp.index for cp in changes if cp.place_mass >= before_mass)
    spans = [cp.span for cp in changes if cp.place_mass < after_mass and cp.span is not None]
    before, kinds_before = sim._credit(h, claimed)
    after, kinds_after = sim._credit(h, placed)
    covered = {s for span in spans for s in _covers(h, span)}
    row: dict = {k: h.knobs[k] for k in ("runs", "cov", "phi", "noise", "daily", "weekly", "days")}
    row["semidaily"] = h.knobs.get("semidaily", 0.0)
    row |= {
        "false_before": kinds_before["false"],
        "false_after": kinds_after["false"],
        "spans": len(spans),
        "false_spans": sum(1 for span in spans if not _covers(h, span)),
        "span_runs": [last - first + 1 for first, last in spans],
        "lost": sum(1 for s in before if s not in after and s not in covered),
    }
    for kind, want in (("steps", False), ("ramps", True)):
        chosen = [i for i, r in enumerate(h.ramps) if bool(r) == want and (want or _sides(h, i) >= sim.SIDE)]
        row[kind] = len(chosen)
        row[f"{kind}_before"] = sum(1 for i in chosen if h.steps[i] in before)
        row[f"{kind}_placed"] = sum(1 for i in chosen if h.steps[i] in after)
        row[f"{kind}_spanned"] = sum(1 for i in chosen if h.steps[i] not in after and h.steps[i] in covered)
    return row


def _sides(h: sim.History, i: int) -> int:
    bounds = [0, *h.steps, len(h.values)]
    return min(h.steps[i] - bounds[i], bounds[i + 2] - h.steps[i] - h.ramps[i])


def _rows(seeds: range, least: int, most: int, masses: tuple[float, float], step=None) -> list[dict]:
    rows = []
    for seed in seeds:
        h = sim.draw(seed, most, step, least=least, widened=False if step else None)
        if h.knobs["phi"] < 0.7:
            rows.append(_row(h, *masses))
    return rows


def _interval(count: int) -> list[float]:
    """A rough 95% interval of a Poisson count (Wilson-Hilferty)."""
    if count == 0:
        return [0.0, 3.69]
    lower = count * (1 - 1 / (9 * count) - 1.96 / (3 * math.sqrt(count))) ** 3
    upper = (count + 1) * (1 - 1 / (9 * (count + 1)) + 1.96 / (3 * math.sqrt(count + 1))) ** 3
    return [round(lower, 1), round(upper, 1)]


def _counted(rows: list[dict], runs: int) -> dict:
    """The false points before and after, the spans and the false spans over `rows`: each a count, its 95%
    interval and its rate per 1,000 runs."""
    out = {}
    for key in COUNTS:
        count = sum(r[key] for r in rows)
        per = round(1000 * count / runs, 3) if runs else None
        out[key] = {"count": count, "interval_95": _interval(count), "per_1000_runs": per}
    return out


def _figures(rows: list[dict]) -> dict:
    spanning = sim._spanning(rows)
    runs = sum(r["runs"] for r in spanning)
    widths = [w for r in rows for w in r["span_runs"]]
    out: dict = {"histories": len(rows), "spanning_runs": runs, **_counted(spanning, runs)}
    for kind in ("steps", "ramps"):
        out[kind] = {part: sum(r[f"{kind}{part}"] for r in rows) for part in ("", "_before", "_placed", "_spanned")}
    out["found_before_now_lost"] = sum(r["lost"] for r in rows)
    out["spans_all_histories"] = len(widths)
    out["span_runs_median"] = statistics.median(widths) if widths else None
    out["by_bin"] = {
        name: {
            label: {
                "runs": sum(r["runs"] for r in spanning if key(r) == label),
                **{k: sum(r[k] for r in spanning if key(r) == label) for k in COUNTS},
            }
            for label in sorted({key(r) for r in spanning if key(r) is not None})
        }
        for name, key in BINS.items()
    }
    return out


def _cell(rows: list[dict]) -> dict:
    return {part: sum(r[f"steps{part}"] for r in rows) for part in ("", "_before", "_placed", "_spanned")}


def one_set(seeds: tuple[int, int, int, int], short: int, mid: int, cells: int, masses: tuple[float, float]) -> dict:
    out: dict = {
        "30-199": _figures(_rows(range(seeds[0], seeds[0] + short), 30, 199, masses)),
        "200-1,999": _figures(_rows(range(seeds[1], seeds[1] + mid), 200, 1999, masses)),
    }
    for name in ("30-199", "200-1,999"):
        shown = {k: v for k, v in out[name].items() if k != "by_bin"}
        print(name, shown, flush=True)
    for first, (cell, (size, cov, _, _)) in zip(seeds[2:], sim.MUST_SHOW.items(), strict=True):
        rows = _rows(range(first, first + cells), 2 * sim.SIDE + 10, sim.SHORT_RUNS, masses, (size, cov))
        out[cell] = _cell(rows)
        print(cell, out[cell], flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SEEDS), default="tuning")
    parser.add_argument("--short", type=int, default=4000, help="histories of 30-199 runs")
    parser.add_argument("--mid", type=int, default=400, help="histories of 200-1,999 runs")
    parser.add_argument("--cells", type=int, default=200, help="histories per must-show cell")
    parser.add_argument("--before", type=float, default=0.0, help="place mass a change needs to be a point, before")
    parser.add_argument("--after", type=float, default=history.PLACE_MIN_MASS, help="the same, after")
    parser.add_argument("--out", type=Path, default=None)
    add_smoke_flag(parser)
    args = parser.parse_args()
    sizes = (20, 2, 4) if args.smoke else (args.short, args.mid, args.cells)
    out = args.out or Path(__file__).parent / "results" / f"history_unplaced_{args.set}.json"
    masses = (args.before, args.after)
    figures = {
        "set": args.set,
        "first_seeds": SEEDS[args.set],
        "place_min_mass": {"before": args.before, "after": args.after},
        **one_set(SEEDS[args.set], *sizes, masses),
    }
    write_result(out, "history_unplaced", figures, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
