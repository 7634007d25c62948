"""What the false change points of short histories carry beside the steps found (issue 40, twentieth look): every
change point of the shipped method on tuning seeds of bench/simulated_histories.py's draw, with its p, its size, its
placement likelihood, the history's phi as read and its draw's knobs, and the shares by class.

Each change point is a hit (within NEAR runs of an instant step), a ramp's hit, a further point inside a ramp (not
false), or false: "misplaced" (a true step within 10 runs that no point found), "beside" (within 10 runs of a step
another point found), "far" (further than 10 runs from every step of a history with steps) or "step-free" (a
history without any step). Counted as the bench counts false points: phi under 0.7, histories spanning three of each
cycle they hold; the result keeps every false point and the shares of every class. The placement likelihood is
`_place`'s (the split's AR(1) likelihood at the test's phi, tempered as the product tempers it, over the runs it may
choose): its mass within PLACE_RUNS of the place reported and the size of its 90% highest-likelihood set.

    python bench/history_false_anatomy.py [--histories 6000] [--first 71000000] [--out PATH]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from statistics import NormalDist

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import simulated_histories as sim
from results_file import add_smoke_flag, write_result

from iolab.analysis import history
from iolab.analysis.history import ChangePointParams, analyse_history
from iolab.analysis.history_noise import gls_split_gains

CLASSES = ("hit", "ramp hit", "ramp extra", "misplaced", "beside", "far", "step-free")
FALSE = ("misplaced", "beside", "far", "step-free")


def _placements(h: sim.History) -> tuple[list, list[dict]]:
    """The change points of `h`, and each one's placement likelihood (mass, size of its 90% set)."""
    calls: list = []
    inner = history._placed

    def recording(x, found, params, temperature, phi=0.0):
        out = inner(x, found, params, temperature, phi)
        calls.append((np.asarray(x), list(found), [p.at for p in out], temperature, phi))
        return out

    history._placed = recording  # type: ignore[assignment]
    try:
        result = analyse_history(h.values, ChangePointParams(), h.times)
    finally:
        history._placed = inner  # type: ignore[assignment]
    if not calls:
        return result, []
    x, found, placed, temperature, phi = calls[-1]
    params = result.params
    shapes = []
    for i, at in enumerate(placed):
        lo = placed[i - 1] if i else 0
        hi = found[i + 1] if i + 1 < len(found) else len(x)
        k = np.arange(lo + params.min_size, hi - params.min_size + 1)
        k = k[np.abs(k - found[i]) <= params.window_len // 2]
        gains = gls_split_gains(x[lo:hi], k - lo, phi)
        weight = np.exp((gains - gains.max()) / (2.0 * temperature))
        weight /= weight.sum()
        cumulative = np.cumsum(np.sort(weight)[::-1])
        shapes.append(
            {
                "mass": float(weight[np.abs(k - at) <= history.PLACE_RUNS].sum()),
                "set90": int(np.searchsorted(cumulative, 0.9) + 1),
            }
        )
    return result, shapes


def _class(h: sim.History, at: int, credited: set[int], found_steps: set[int]) -> str:
    holding = [(s, r) for s, r in zip(h.steps, h.ramps, strict=True) if s - sim.NEAR <= at <= s + r + sim.NEAR]
    fresh = [(s, r) for s, r in holding if s not in credited]
    if fresh:
        credited.add(fresh[0][0])
        return "ramp hit" if fresh[0][1] else "hit"
    if any(r for _, r in holding):
        return "ramp extra"
    if not h.steps:
        return "step-free"
    near = [s for s in h.steps if abs(at - s) <= 10]
    if not near:
        return "far"
    return "misplaced" if any(s not in found_steps for s in near) else "beside"


def points(h: sim.History) -> list[dict]:
    """Every change point of `h` with what it carries."""
    result, shapes = _placements(h)
    every = sorted([*result.change_points, *result.unplaced], key=lambda cp: cp.index)  # placed or not, as before
    reported = [cp.index for cp in every]
    found_steps, _ = sim._credit(h, reported)
    credited: set[int] = set()
    noise = result.noise
    out = []
    for cp, shape in zip(every, shapes, strict=True):
        out.append(
            {
                "seed": h.knobs["seed"],
                "class": _class(h, cp.index, credited, found_steps),
                "at": cp.index,
                "p": cp.pvalue,
                "z": -NormalDist().inv_cdf(max(cp.pvalue, 1e-300) / 2.0),
                "sds": cp.magnitude / h.knobs["cov"],
                **shape,
                "phi_upper": None if noise is None else noise.phi_upper,
                "steps_within_10": [
                    [s, z, r] for s, z, r in zip(h.steps, h.sizes, h.ramps, strict=True) if abs(cp.index - s) <= 10
                ],
                **{k: h.knobs[k] for k in ("runs", "cov", "phi", "noise", "daily", "weekly", "drift")},
                "semidaily": h.knobs.get("semidaily", 0.0),
                "bursts": len(h.bursts),
            }
        )
    return out


SHARES = {
    "p over 1e-6": lambda r: r["p"] > 1e-6,
    "under 2 sds": lambda r: r["sds"] < 2.0,
    "90% set 5 runs or wider": lambda r: r["set90"] >= 5,
    "mass 0.9 or more": lambda r: r["mass"] >= 0.9,
    "phi_upper under the true phi": lambda r: r["phi_upper"] is not None and r["phi_upper"] < r["phi"],
    "COV 6-10%": lambda r: r["cov"] >= 0.06,
    "a drift": lambda r: r["drift"] != 0.0,
    "a cycle": lambda r: max(r["daily"], r["weekly"], r["semidaily"]) > 0.0,
    "t4 noise": lambda r: r["noise"] == "t4",
    "phi 0": lambda r: r["phi"] == 0.0,
    "phi 0-0.35": lambda r: 0.0 < r["phi"] < 0.35,
    "phi 0.35-0.7": lambda r: r["phi"] >= 0.35,
    "bursts planted": lambda r: r["bursts"] > 0,
}


def summary(rows: list[dict]) -> dict:
    groups = {name: [r for r in rows if r["class"] == name] for name in CLASSES}
    groups["false"] = [r for r in rows if r["class"] in FALSE]
    out: dict = {}
    for name, group in groups.items():
        medians = {key: round(float(np.median([r[key] for r in group])), 3) for key in ("z", "sds", "mass", "set90")}
        out[name] = {
            "points": len(group),
            "medians": medians if group else None,
            "shares": {k: round(sum(map(f, group)) / len(group), 3) for k, f in SHARES.items()} if group else None,
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--histories", type=int, default=6000, help="histories of 30-199 runs")
    parser.add_argument("--first", type=int, default=71_000_000, help="first seed (tuning seeds only)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "history_false_anatomy.json")
    add_smoke_flag(parser)
    args = parser.parse_args()
    rows: list[dict] = []
    for seed in range(args.first, args.first + (40 if args.smoke else args.histories)):
        h = sim.draw(seed, 199, least=30)
        h.knobs["seed"] = seed
        if h.knobs["phi"] < 0.7 and sim._spanning([h.knobs]):
            rows.extend(points(h))
    false = [r for r in rows if r["class"] in FALSE]  # every false point; the steps found only in the summary
    figures = {"first_seed": args.first, "histories": args.histories, "summary": summary(rows), "false_points": false}
    for name, group in figures["summary"].items():
        print(name, group["points"], group["medians"])
    write_result(args.out, "history_false_anatomy", figures, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
