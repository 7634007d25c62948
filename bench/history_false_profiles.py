"""What the false change points of short histories are: each one classed by whether the cycle profile taken out
before segmentation makes it (issue 40, thirteenth look).

Each history of the bench's draw (`simulated_histories.draw`, phi up to 0.7, spanning three of each cycle it holds)
is analysed as `iolab history` does, and again with no profile taken out. A false change point (no true step within
NEAR runs) is "made by the profile" when the history without any profile has no false change point within NEAR runs
of it; those are split by whether the history holds a cycle at all and how large the profile taken out was. The
others are split by distance to the nearest true step (4-10 runs: the other half of a misplaced step). The cost of
taking no profile out is counted beside: the false change points only the profile-less look makes.

    python bench/history_false_profiles.py   # both tuning sets, bench/results/history_false_profiles.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import simulated_histories as sim
from results_file import add_smoke_flag, write_result

from iolab.analysis import history, history_noise
from iolab.analysis.history import ChangePointParams, analyse_history


def _no_cycles(times, u, steps=()):
    """`remove_cycles` taking nothing out (the profile-less look)."""
    none = history_noise.Cycle(history_noise.DAY, "not sampled", 0.0, 0.0)
    return u, none, history_noise.Cycle(history_noise.WEEK, "not sampled", 0.0, 0.0)


def _false(h: sim.History, reported: list[int]) -> list[int]:
    return [
        at
        for at in reported
        if not any(s - sim.NEAR <= at <= s + r + sim.NEAR for s, r in zip(h.steps, h.ramps, strict=True))
    ]


def _analyse(h: sim.History, params: ChangePointParams, cycles: bool):
    kept = history.remove_cycles
    if not cycles:
        history.remove_cycles = _no_cycles
    try:
        return analyse_history(h.values, params, h.times)
    finally:
        history.remove_cycles = kept


def classify(first: int, cases: int, least: int, most: int) -> dict:
    """Every false change point of `cases` histories from seed `first`, classed (see the module's docstring)."""
    params = ChangePointParams()
    classes: Counter = Counter()
    rows = []
    runs = 0
    for seed in range(first, first + cases):
        h = sim.draw(seed, most, least=least)
        k = h.knobs
        if k["phi"] > 0.7 or not sim._spanning([k]):
            continue
        runs += k["runs"]
        with_profile = _analyse(h, params, True)
        false = _false(h, [cp.index for cp in with_profile.change_points])
        without = _false(h, [cp.index for cp in _analyse(h, params, False).change_points])
        classes["only_without_profile"] += sum(not any(abs(a - b) <= sim.NEAR for b in false) for a in without)
        noise = with_profile.noise
        amplitude = 0.0 if noise is None else max(noise.daily.amplitude, noise.weekly.amplitude)
        cycle = max(k["daily"], k["weekly"], k["semidaily"])
        for at in false:
            near = min((abs(at - s) for s in h.steps), default=10**9)
            if not any(abs(at - b) <= sim.NEAR for b in without):
                kind = "profile, no cycle" if cycle == 0 else "profile, a cycle"
                kind += ", taken out " + ("over 5%" if amplitude > 0.05 else "2-5%" if amplitude > 0.02 else "under 2%")
            else:
                kind = "4-10 runs from a step" if near <= 10 else "further than 10 runs from every step"
            classes[kind] += 1
            rows.append(
                {
                    "seed": seed,
                    "at": at,
                    "class": kind,
                    "runs": k["runs"],
                    "days": round(k["days"], 1),
                    "cov": round(k["cov"], 3),
                    "phi": round(k["phi"], 2),
                    "noise": k["noise"],
                    "daily": round(k["daily"], 3),
                    "weekly": round(k["weekly"], 3),
                    "semidaily": round(k["semidaily"], 3),
                    "drift": round(k["drift"], 3),
                    "steps": list(zip(h.steps, [round(s, 3) for s in h.sizes], h.ramps, strict=True)),
                    "profile_taken_out": round(amplitude, 3),
                    "phi_read": None if noise is None else round(noise.phi, 2),
                }
            )
    return {"seeds": [first, first + cases], "runs": runs, "classes": dict(classes), "false": rows}


# The tuning sets the thirteenth look classed (nothing held out: the parameters were chosen on seeds like these).
SETS = {"60-199 runs": (60_000_000, 4000, 60, 199), "200-999 runs": (61_000_000, 500, 200, 999)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "history_false_profiles.json")
    add_smoke_flag(parser)
    args = parser.parse_args()
    figures: dict = {}
    for name, (first, cases, least, most) in SETS.items():
        figures[name] = classify(first, 3 if args.smoke else cases, least, most)
        print(name, json.dumps(figures[name]["classes"]))
    write_result(args.out, "history_false_profiles", figures, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
