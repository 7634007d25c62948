"""The floor under the false change points that misplaced steps make (issue 40, eighteenth look): on the held-out
histories the README's false rate is read from (`bench/simulated_histories.py`'s main held-out draw, its short and
its 30-199-run sets, the same seeds), how many false points per 1,000 runs a method that reports every step must
make because no one can place those steps within NEAR runs.

A step reported more than NEAR runs off counts once as a miss and once as a false change point. For each instant
step, an oracle is told the noise (its law, phi and COV), that the step exists, and its segment: the runs between
the neighbouring changes with everything else the generator put there taken out (`simulated_histories.
_oracle_runs`). It reads the likelihood of each split within WINDOW runs of the true step under the true noise law
(Gaussian AR(1), or AR(1) with Student-t4 innovations for t4 noise, the two levels at their maximum), takes it as
a posterior over the step's place (a flat prior) and reports the place whose NEAR-run neighbourhood holds the most
of it: under that posterior, the rule that places a step within NEAR runs most often. A step it still places more than NEAR runs off is
one that no method reporting it places, and its false point is the floor. Telling the oracle the window makes it
stronger, so the floor can only be higher than what is printed; it is counted in the histories and by the same
rule (spanning three of each cycle, phi under 0.7) as iolab's false rate, which is printed beside from
`bench/results/simulated_histories.json`.

What the floor is not: a method may decline to report a step it cannot place (a miss, not a false point), so it is
a floor on false points only for a method that reports every step; it is printed for every instant step and for
those the known-place test finds at the target's rate (`simulated_histories.oracle_placed`), the steps a method
held to the must-show's recall would have to report. Ramps (a hit from 3 runs before their start to 3 after their
end) are left out: the floor counts nothing for them.

    python bench/history_placement_floor.py [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import simulated_histories as sim
from results_file import add_smoke_flag, host, write_result

from iolab.analysis import history_noise
from iolab.analysis.window_tail import poisson_at_least

WINDOW = 30  # runs either side of the true step the oracle's splits are read over
ITERATIONS = 20  # IRLS rounds for the t4 likelihood's two levels
RESULT = Path(__file__).parent / "results" / "simulated_histories.json"
# The README's held-out sets: (name in the result file, seeds, most runs).
MAIN_CASES, MAIN_FIRST = 600, 33  # simulated_histories' corpus_args: held out are its odd positions
SETS = {
    "held_out": (range(MAIN_FIRST + 1, MAIN_FIRST + MAIN_CASES, 2), 17_520),
    "short_held_out": (range(sim.SHORT_SEED, sim.SHORT_SEED + 1200), sim.SHORT_RUNS),
    "tiny_held_out": (range(sim.TINY_SEED, sim.TINY_SEED + 5000), sim.TINY_RUNS),
}


def t4_split_logliks(r: np.ndarray, taus: np.ndarray, phi: float, cov: float) -> np.ndarray:
    """For each count `taus` of runs before a shift in level, the log likelihood (up to a constant) of runs `r`
    under AR(1) noise of correlation `phi` whose innovations are Student-t4 of sd cov sqrt(1 - phi^2), the two
    levels at their maximum (iteratively reweighted least squares on the prewhitened runs, every split at once)."""
    n, head = len(r), math.sqrt(1.0 - phi * phi)
    scale = cov * head / math.sqrt(2.0)  # a t4 of this scale has the innovations' sd

    def whitened(v: np.ndarray) -> np.ndarray:
        return np.concatenate([v[..., :1] * head, v[..., 1:] - phi * v[..., :-1]], axis=-1)

    after = (np.arange(n)[None, :] >= taus[:, None]).astype(float)
    a, b, y = whitened(1.0 - after), whitened(after), whitened(r)[None, :]
    weight = np.ones_like(a)
    for _ in range(ITERATIONS):
        saa, sab, sbb = (weight * a * a).sum(1), (weight * a * b).sum(1), (weight * b * b).sum(1)
        say, sby = (weight * a * y).sum(1), (weight * b * y).sum(1)
        det = saa * sbb - sab * sab
        before_level, after_level = (sbb * say - sab * sby) / det, (saa * sby - sab * say) / det
        e = (y - a * before_level[:, None] - b * after_level[:, None]) / scale
        weight = 5.0 / (4.0 + e * e)
    return -2.5 * np.log1p(e * e / 4.0).sum(1)


def _logliks(h: sim.History, r: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """The log likelihood of each split under the history's own noise law."""
    phi, cov = h.knobs["phi"], h.knobs["cov"]
    if h.knobs["noise"] == "t4":
        return t4_split_logliks(r, taus, phi, cov)
    innovation = cov * math.sqrt(1.0 - phi * phi)
    return history_noise.gls_split_gains(r, taus, phi) / (2.0 * innovation * innovation)


def placed(h: sim.History, i: int) -> tuple[bool, bool] | None:
    """(placed within NEAR runs by the posterior's best NEAR-run neighbourhood, by the likelihood's peak) for
    instant step i, the splits read within WINDOW runs of it; None for a ramp."""
    if h.ramps[i] or h.base is None:
        return None
    at, r = sim._oracle_runs(h, h.base, i)
    step = h.steps[i]
    taus = np.flatnonzero(np.abs(at - step) <= WINDOW)
    taus = taus[(taus >= 1) & (taus < len(r))]
    if not len(taus):
        return False, False
    loglik = _logliks(h, r, taus)
    posterior = np.exp(loglik - loglik.max())
    where = at[taus]
    mass = np.array([posterior[np.abs(where - w) <= sim.NEAR].sum() for w in where])
    best, peak = int(where[np.argmax(mass)]), int(where[np.argmax(loglik)])
    return abs(best - step) <= sim.NEAR, abs(peak - step) <= sim.NEAR


def judge(h: sim.History) -> dict:
    """One history's knobs (as `simulated_histories.judge` gives them) and its instant steps' oracle outcomes."""
    steps = []
    for i in range(len(h.steps)):
        where = placed(h, i)
        if where is not None:
            found = bool((sim.oracle_placed(h, i) or (False, False))[0])
            steps.append({"found": found, "placed": where[0], "peak_placed": where[1]})
    return {**h.knobs, "instant_steps": steps}


def poisson_interval(count: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Garwood) two-sided interval of a Poisson mean from one count, by bisection."""
    tail = (1.0 - level) / 2.0

    def solve(holds, lo: float, hi: float) -> float:
        for _ in range(60):
            mid = (lo + hi) / 2.0
            lo, hi = (mid, hi) if holds(mid) else (lo, mid)
        return (lo + hi) / 2.0

    top = 10.0 + 4.0 * count
    low = 0.0 if count == 0 else solve(lambda m: poisson_at_least(count, m) < tail, 0.0, top)
    high = solve(lambda m: 1.0 - poisson_at_least(count + 1, m) > tail, 0.0, top)
    return low, high


def _per_1000(count: int, runs: int) -> dict:
    low, high = poisson_interval(count)
    return {
        "count": count,
        "per_1000_runs": round(1000 * count / runs, 4) if runs else None,
        "per_1000_runs_95": [round(1000 * low / runs, 4), round(1000 * high / runs, 4)] if runs else None,
    }


def floor_of(rows: list[dict]) -> dict:
    """The floor in one set of histories: instant steps the oracle places more than NEAR runs off, per 1,000 runs."""
    runs = sum(r["runs"] for r in rows)
    steps = [s for r in rows for s in r["instant_steps"]]
    found = [s for s in steps if s["found"]]
    return {
        "histories": len(rows),
        "runs": runs,
        "instant_steps": len(steps),
        "found_by_the_known_place_test": len(found),
        "every_step": _per_1000(sum(not s["placed"] for s in steps), runs),
        "steps_the_oracle_finds": _per_1000(sum(not s["placed"] for s in found), runs),
        # The likelihood's peak (the previous oracle, over the same window): more misplaced than the rule above.
        "steps_the_oracle_finds_peak": _per_1000(sum(not s["peak_placed"] for s in found), runs),
    }


def _counted(rows: Iterable[dict]) -> list[dict]:
    """The histories a false change point counts in for the must-show: spanning three of each cycle, phi under 0.7."""
    return [r for r in sim._spanning(list(rows)) if r["phi"] < 0.7]


def iolab_rate(result: dict, label: str) -> dict:
    """iolab's false change points in one length bin, pooled over the README's held-out sets (the result file)."""
    cells = [result[name]["false_change_points"]["runs_phi_at_most_0.7"][label] for name in SETS]
    runs, false = sum(c["runs"] for c in cells), sum(c["false"] for c in cells)
    return {
        "histories": sum(c["histories"] for c in cells),
        "runs": runs,
        **_per_1000(false, runs),
        "of_them_4_to_10_runs_from_a_true_step": sum(c["of_them_4_to_10_runs_from_a_true_step"] for c in cells),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "history_placement_floor.json")
    add_smoke_flag(parser)
    args = parser.parse_args()
    started = time.process_time()
    rows = []
    for seeds, most in SETS.values():
        rows += [judge(sim.draw(s, most)) for s in (seeds[:6] if args.smoke else seeds)]
    counted = _counted(rows)
    result = json.loads(RESULT.read_text())
    figures: dict = {"host": host(), "window": WINDOW, "sets": {k: [v[0][0], v[0][-1], v[1]] for k, v in SETS.items()}}
    for lo, hi, label in sim.RUNS_BINS:
        within = [r for r in counted if lo <= r["runs"] < hi]
        figures[label] = {"floor": floor_of(within), "iolab": iolab_rate(result, label)}
        print(label, json.dumps(figures[label]), flush=True)
    figures["cpu_seconds"] = round(time.process_time() - started, 1)
    write_result(args.out, "history_placement_floor", figures, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
