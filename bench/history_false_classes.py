"""What the false change points of short histories are made of (issue 40, sixteenth look): each false change point
of the shipped method classed by mechanism, on tuning seeds of bench/simulated_histories.py's draw.

Each false change point (phi under 0.7, histories spanning three of each cycle they hold, as the bench counts them)
gets every flag below, then the first class of `ORDER` whose flag it has:
- "misplaced step": a true step (or ramp) within 10 runs that no change point found within NEAR runs;
- "beside a found step": a true step within 10 runs that another change point found;
- "at a burst": within NEAR runs of a planted burst of three;
- "cycle profile": gone when the true cycles are divided out and no profile is fitted (no times given);
- "phi read low": gone when the test's phi (`NoiseModel.phi_upper`) is at least the true phi;
- "heavy-tail shock": gone when the noise's innovations are pulled in to 2.5 sds (the same runs otherwise);
- "drift": gone when the drift is divided out;
- "other": the test's own false alarm on the rest.

    python bench/history_false_classes.py [--short 6000] [--mid 600] [--first 71000000] [--out PATH]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import simulated_histories as sim
from results_file import add_smoke_flag, write_result

from iolab.analysis import history_noise
from iolab.analysis.history import ChangePointParams, analyse_history

ORDER = (
    "misplaced step",
    "beside a found step",
    "at a burst",
    "cycle profile",
    "phi read low",
    "heavy-tail shock",
    "drift",
    "other",
)
SHOCK_CLIP = 2.5  # innovations pulled in to this many sds in the heavy-tail counterfactual
_PHI_UPPER = history_noise.NoiseModel.phi_upper


@contextlib.contextmanager
def _phi_at_least(phi: float):
    """The test's phi (`NoiseModel.phi_upper`) held at or above `phi` while the block runs, as it was after."""

    def raised(model) -> float:
        return max(_PHI_UPPER.fget(model), phi)

    history_noise.NoiseModel.phi_upper = property(raised)  # type: ignore[method-assign]
    try:
        yield
    finally:
        history_noise.NoiseModel.phi_upper = _PHI_UPPER  # type: ignore[method-assign]


def _found(values, times) -> list[int]:
    return [cp.index for cp in analyse_history(values, ChangePointParams(), times).change_points]


def _gone(at: int, found: list[int]) -> bool:
    return all(abs(f - at) > sim.NEAR for f in found)


def _parts(h: sim.History, seed: int):  # -> (cycles, drift) relative to LEVEL, at each run
    turn = sim._widened(seed, h.times, None).turn
    drift = h.knobs["drift"] * sim._drift_shape(len(h.values), turn)
    return h.base / sim.LEVEL - 1.0 - drift, drift


def _tamed(h: sim.History) -> np.ndarray:
    """The same runs with the noise's innovations pulled in to SHOCK_CLIP sds (levels, cycles, outlier runs kept)."""
    levels = sim._levels(len(h.values), h.steps, h.sizes, h.ramps)
    clean = h.base * levels
    ratio = h.values / clean  # (1 + noise) x an outlier run's factor
    noise = ratio - 1.0
    planted = np.zeros(len(noise), dtype=bool)
    planted[list(h.outliers)] = True
    cov, phi = h.knobs["cov"], h.knobs["phi"]
    e = np.where(planted | np.isnan(noise), np.nan, noise / cov)
    e = np.where(np.isnan(e), 0.0, e)  # an outlier run's own noise is unknown: read as 0
    scale = math.sqrt(1.0 - phi * phi)
    shocks = np.r_[e[0], (e[1:] - phi * e[:-1]) / scale]
    shocks = np.clip(shocks, -SHOCK_CLIP, SHOCK_CLIP)
    out = np.empty(len(e))
    out[0] = shocks[0]
    for i in range(1, len(e)):
        out[i] = phi * out[i - 1] + scale * shocks[i]
    factor = np.where(planted, ratio / (1.0 + cov * e), 1.0)
    return clean * (1.0 + cov * out) * factor


def classify(seed: int, h: sim.History, at: int, found: list[int]) -> dict:
    near = [(s, r) for s, r in zip(h.steps, h.ramps, strict=True) if s - 10 <= at <= s + r + 10]
    credited = {s for s, r in near if any(s - sim.NEAR <= f <= s + r + sim.NEAR for f in found)}
    cycles, drift = _parts(h, seed)
    flags = {
        "misplaced step": any(s not in credited for s, _ in near),
        "beside a found step": bool(near) and all(s in credited for s, _ in near),
        "at a burst": any(-sim.NEAR <= at - b <= 2 + sim.NEAR for b in h.bursts),
        "cycle profile": _gone(at, _found(h.values / (1.0 + cycles), None)),
        "heavy-tail shock": h.knobs["noise"] == "t4" and _gone(at, _found(_tamed(h), h.times)),
        "drift": bool(h.knobs["drift"]) and _gone(at, _found(h.values * (1 + cycles) / (1 + cycles + drift), h.times)),
    }
    with _phi_at_least(h.knobs["phi"]):
        flags["phi read low"] = _gone(at, _found(h.values, h.times))
    flags["other"] = True
    kind = next(k for k in ORDER if flags[k])
    knobs = {k: h.knobs[k] for k in ("runs", "cov", "phi", "noise", "daily", "weekly", "semidaily", "drift", "days")}
    return {"seed": seed, "at": at, "class": kind, "flags": [k for k in ORDER[:-1] if flags[k]], **knobs}


def one_set(seeds: range, least: int, most: int) -> dict:
    points, runs, histories = [], 0, 0
    for seed in seeds:
        h = sim.draw(seed, most, least=least)
        if h.knobs["phi"] >= 0.7 or not sim._spanning([h.knobs]):
            continue
        histories += 1
        runs += h.knobs["runs"]
        found = _found(h.values, h.times)
        credited, _ = sim._credit(h, found)
        for at in found:
            hits = any(s - sim.NEAR <= at <= s + r + sim.NEAR for s, r in zip(h.steps, h.ramps, strict=True))
            if not hits:
                points.append(classify(seed, h, at, found))
    classes = Counter(p["class"] for p in points)
    flags = Counter(f for p in points for f in p["flags"])
    return {
        "seeds": [seeds[0], seeds[-1] + 1],
        "histories": histories,
        "runs": runs,
        "false": len(points),
        "classes": {k: classes.get(k, 0) for k in ORDER},
        "flags": {k: flags.get(k, 0) for k in ORDER[:-1]},
        "points": points,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", type=int, default=6000, help="histories of 30-199 runs")
    parser.add_argument("--mid", type=int, default=600, help="histories of 200-1,999 runs")
    parser.add_argument("--first", type=int, default=71_000_000, help="first seed (tuning seeds)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "history_false_classes.json")
    add_smoke_flag(parser)
    args = parser.parse_args()
    short, mid = (20, 2) if args.smoke else (args.short, args.mid)
    out = {
        "30-199": one_set(range(args.first, args.first + short), 30, 199),
        "200-1,999": one_set(range(args.first + 500_000, args.first + 500_000 + mid), 200, 1999),
    }
    for name, s in out.items():
        rate = 1000 * s["false"] / max(1, s["runs"])
        print(f"{name}: {s['histories']} histories, {s['runs']} runs, {s['false']} false ({rate:.3f} per 1,000)")
        print("  classes:", s["classes"])
        print("  flags:  ", s["flags"])
    write_result(args.out, "history_false_classes", out, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
