"""Would an oracle that knows the noise place the misplaced steps (issue 40, seventeenth look)? For each false
change point of `bench/history_false_classes.py`'s class "misplaced step" (its result file, tuning seeds
71,000,000+), each instant true step within 10 runs that no change point found is placed by two oracles over the
runs with everything the generator put there but that step and the noise taken out (`simulated_histories.
_oracle_runs`): the bench's own (`oracle_placed`: the split of largest Gaussian AR(1) likelihood at the true phi
and COV), and, for t4 noise, the split of largest likelihood under AR(1) noise with Student-t4 innovations of the
true scale (the two levels fitted by iteratively reweighted least squares). What no method can beat: a step
neither oracle places within NEAR runs is placed off by the noise itself.

    python bench/history_misplaced_oracle.py [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import simulated_histories as sim
from history_placement_floor import t4_split_logliks
from results_file import add_smoke_flag, write_result

CLASSES = Path(__file__).parent / "results" / "history_false_classes.json"
LENGTHS = {"30-199": (30, 199), "200-1,999": (200, 1999)}


def _placed_t4(h: sim.History, i: int) -> bool:
    at, r = sim._oracle_runs(h, h.base, i)
    loglik = t4_split_logliks(r, np.arange(1, len(r)), h.knobs["phi"], h.knobs["cov"])
    return abs(int(at[1 + int(np.argmax(loglik))]) - h.steps[i]) <= sim.NEAR


def one_set(points: list[dict], least: int, most: int) -> dict:
    rows = []
    for p in points:
        if p["class"] != "misplaced step":
            continue
        h = sim.draw(p["seed"], most, least=least)
        for i, (step, ramp) in enumerate(zip(h.steps, h.ramps, strict=True)):
            if ramp or not step - 10 <= p["at"] <= step + 10:
                continue
            found, placed = sim.oracle_placed(h, i) or (False, False)
            heavy = h.knobs["noise"] == "t4"
            rows.append(
                {
                    "seed": p["seed"],
                    "at": p["at"],
                    "step": step,
                    "size": h.sizes[i],
                    **{k: h.knobs[k] for k in ("runs", "cov", "phi", "noise")},
                    "oracle_found": found,
                    "gaussian_oracle_placed": placed,
                    "t4_oracle_placed": _placed_t4(h, i) if heavy else None,
                }
            )
    heavy = [r for r in rows if r["noise"] == "t4"]
    best = sum(r["t4_oracle_placed"] if r["noise"] == "t4" else r["gaussian_oracle_placed"] for r in rows)
    return {
        "instant_steps": len(rows),
        "gaussian_oracle_places": sum(r["gaussian_oracle_placed"] for r in rows),
        "t4_steps": len(heavy),
        "t4_steps_gaussian_oracle_places": sum(r["gaussian_oracle_placed"] for r in heavy),
        "t4_steps_t4_oracle_places": sum(bool(r["t4_oracle_placed"]) for r in heavy),
        "the_noise_law_oracle_places": best,
        "rows": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "history_misplaced_oracle.json")
    add_smoke_flag(parser)
    args = parser.parse_args()
    classes = json.loads(CLASSES.read_text())
    figures = {}
    for name, (least, most) in LENGTHS.items():
        points = classes[name]["points"][: 8 if args.smoke else None]
        figures[name] = one_set(points, least, most)
        print(name, {k: v for k, v in figures[name].items() if k != "rows"}, flush=True)
    write_result(args.out, "history_misplaced_oracle", figures, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
