"""Recall and false change points of `analysis.history.change_points` on simulated run histories.

Each history is a metric over scheduled runs, drawn from a seed: 200 to
10,000 runs (log-uniform), run-to-run noise of 1 to 4% (Gaussian, relative),
a slow drift of up to +/-3% over the whole history, lone outlier runs (0.2 to
1% of the runs at 40 to 80% of the level), and one or two steps of +/-10%
(half the histories) or none. A found change point is a hit when it lies
within 3 runs of a true step (each step counted once); every other one is a
false change point. Outlier runs are scored the same way against the ones
planted (`analysis.history.outlier_runs`).

The outlier-run cut (robust sigmas of run-to-run noise) is chosen on the even
seeds: the smallest of a grid that keeps false change points at or under 1
per 1,000 runs and false outlier runs at or under 1 per 100,000; every figure
is reported on the odd seeds.

    python bench/simulated_histories.py [--cases 1000] [--seed 33] [--out PATH]
    python bench/simulated_histories.py --cases 20 --out /tmp/x.json   # the smoke size the suite runs
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from held_out import choose, corpus_args  # noqa: E402
from results_file import host, write_result  # noqa: E402

from iolab.analysis.history import ChangePointParams, change_points, outlier_runs  # noqa: E402

LEVEL = 10e9  # bytes/s
NEAR = 3  # runs between a found change point and the true step it is credited to
SIGMAS = (4.0, 5.0, 6.0, 7.0)
FALSE_PER_1000 = 1.0
FALSE_OUTLIERS_PER_10000 = 0.1


def draw(seed: int) -> tuple[np.ndarray, list[int], list[int]]:
    """One history, the first run of each true step, and the planted outlier runs."""
    rng = np.random.default_rng(seed)
    n = int(math.exp(rng.uniform(math.log(200), math.log(10_000))))
    x = LEVEL * (1.0 + rng.uniform(0.01, 0.04) * rng.standard_normal(n))
    x *= 1.0 + rng.uniform(-0.03, 0.03) * np.linspace(0.0, 1.0, n)
    steps: list[int] = []
    if seed % 4 < 2:  # half the histories: one or two steps of 10%, at least 30 runs from an end or each other
        for _ in range(int(rng.integers(1, 3))):
            at = int(rng.integers(30, n - 30))
            if all(abs(at - s) >= 30 for s in steps):
                steps.append(at)
                x[at:] *= 0.9 if rng.random() < 0.5 else 1.1
    steps.sort()
    count = max(1, int(n * rng.uniform(0.002, 0.01)))
    bad = sorted({int(i) for i in rng.choice(np.arange(3, n - 3), size=count, replace=False)})
    lone = [b for i, b in enumerate(bad) if (i == 0 or b - bad[i - 1] > 3) and all(abs(b - s) > 1 for s in steps)]
    for i in lone:
        x[i] *= rng.uniform(0.4, 0.8)
    return x, steps, lone


def score(seeds: list[int], params: ChangePointParams) -> dict:
    runs = hits = planted = false = 0
    outliers_found = outliers_planted = outliers_false = 0
    for seed in seeds:
        x, steps, lone = draw(seed)
        runs += len(x)
        planted += len(steps)
        credited: set[int] = set()
        for cp in change_points(x, params):
            near = [s for s in steps if abs(cp.index - s) <= NEAR and s not in credited]
            if near:
                credited.add(near[0])
            else:
                false += 1
        hits += len(credited)
        found = set(outlier_runs(x, params))
        outliers_planted += len(lone)
        outliers_found += len(found & set(lone))
        outliers_false += len(found - set(lone))
    return {
        "histories": len(seeds),
        "runs": runs,
        "steps": planted,
        "recall_10pct_steps": round(hits / planted, 4) if planted else None,
        "false_change_points": false,
        "false_per_1000_runs": round(1000 * false / runs, 3),
        "outlier_runs_planted": outliers_planted,
        "outlier_runs_recall": round(outliers_found / outliers_planted, 4) if outliers_planted else None,
        "outlier_runs_false": outliers_false,
        "false_outlier_runs_per_10000_runs": round(10_000 * outliers_false / runs, 3),
    }


def main() -> int:
    split = corpus_args(__doc__.splitlines()[0], 1000, "simulated_histories.json")
    args, seeds, train, held_out = split.args, split.seeds, split.train, split.held_out
    started = time.perf_counter()
    shipped = ChangePointParams()
    grid = {s: score(train, replace(shipped, outlier_sigmas=s)) for s in SIGMAS}
    chosen = choose(
        SIGMAS,
        lambda s: (
            grid[s]["false_per_1000_runs"] <= FALSE_PER_1000
            and grid[s]["false_outlier_runs_per_10000_runs"] <= FALSE_OUTLIERS_PER_10000
        ),
    )
    held = score(held_out, replace(shipped, outlier_sigmas=chosen))
    example = [216, 211, 215, 214, 127, 217, 217, 175, 174, 168, 172, 175, 172, 168, 169]
    figures = {
        "host": host(),
        "seeds": f"{seeds[0]}..{seeds[-1]}",
        "training_by_outlier_sigmas": {
            str(s): {
                k: g[k]
                for k in (
                    "recall_10pct_steps",
                    "false_per_1000_runs",
                    "outlier_runs_recall",
                    "false_outlier_runs_per_10000_runs",
                )
            }
            for s, g in grid.items()
        },
        "chosen_outlier_sigmas": chosen,
        "shipped_outlier_sigmas": shipped.outlier_sigmas,
        "held_out": held,
        "issue_example": {
            "change_points": [cp.index for cp in change_points(example)],
            "outlier_runs": outlier_runs(example),
        },
        "seconds": round(time.perf_counter() - started, 1),
    }
    write_result(args.out, "simulated_histories", figures, smoke=args.smoke)
    print(
        f"outlier-run cut chosen on {len(train)} training histories: {chosen} sigmas (shipped {shipped.outlier_sigmas})"
    )
    for s, g in figures["training_by_outlier_sigmas"].items():
        print(f"  training, {s} sigmas: {g}")
    print(
        f"held out: {held['histories']} histories, {held['runs']} runs, {held['steps']} steps of 10%: recall "
        f"{held['recall_10pct_steps']:.1%}, {held['false_change_points']} false change points "
        f"({held['false_per_1000_runs']} per 1,000 runs); outlier runs: {held['outlier_runs_recall']:.1%} of "
        f"{held['outlier_runs_planted']} found, {held['outlier_runs_false']} false"
    )
    print(
        f"issue 33's series: change points at {figures['issue_example']['change_points']}, outlier runs "
        f"{figures['issue_example']['outlier_runs']}; took {figures['seconds']} s"
    )
    return 0 if chosen == shipped.outlier_sigmas else 1


if __name__ == "__main__":
    sys.exit(main())
