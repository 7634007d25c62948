"""The mixture test's cuts (`analysis.outlier_mixture.CUTS`), simulated per array size on clean arrays as the benches
draw them (issue 40, twelfth round).

A drive's posterior log odds of being slow grow with the array's spread (a slow drive's prior is stated in ln units,
the healthy density thins as 1/tau): on clean arrays of 8-15 drives the 99.5% quantile of the largest odds rose by
about 1.3 from sigma 1-10% to 20-30%, so one cut per size would alarm mostly where the spread is wide. Less the ln of
the array's robust spread (`analysis.outliers._log_spread`: MAD, small-sample corrected) the quantiles stood within
noise of one another across sigma (calibration seeds below, 1,500 arrays a family and bin). The statistic is thus
S = the largest log odds (of the drives `rel_floor` or more below the median) - `outlier_mixture.spread_term`: ln of
max(spread, SPREAD_FLOOR) below `SCALED_FROM` drives; from it on nothing, as the slow density is stated per tau and
the odds do not move with the spread (round 59: with the flat density S still rose with sigma at 16-32 drives, as a
pair of slow drives gains tau^2 on the clean array where S takes out one power). The cut per size n is the least c
at which, in each family, at most `ALARM` of the clean arrays have the group search fire or S past c; the table
keeps the largest over the families (the worst family holds `ALARM`).

The families (bench/outlier_clean.py's draw: sigma uniform in 1-10, 10-20 and 20-30% alike, the seconds AR(1) with
t3 innovations, CV 1-20%, 10-60 s or 300 s): lognormal peers, a uniform log spread, and drives behind one HBA
sharing 30-90% of their seconds' noise. Calibration seeds from `SEED` (never a held-out set of any bench; not the
independent audit's). Nothing here looks at slow drives.

From `POOLED_FROM` drives on (16-32, issue 40, fourteenth round) every other size draws 1,000 arrays a family and
the cut of every size n is taken from the arrays of the sizes drawn from n - `WINDOW` to n + `WINDOW` pooled (2,000
or 3,000 a family): 1,000 arrays of one size leave only 5 past a 0.5% cut. Round 59, b drew every size 16-32 with
4,000 arrays a family in two processes (even and odd sizes, `--save-draws`, pooled as one run by `--from-draws`): a
size's cut alone moves by 0.10-0.34 (bootstrap SE), each family's per-size cuts lie on a line in ln n within noise,
and the pooled table (0.58-0.94, neighbours within 0.11) held clean arrays no better than the shipped one on fresh
seeds (docs/arrays.md, "Round 59, b"), so the table is still the step-2 run's.

    python bench/outlier_mixture_cuts.py [--arrays 3000] [--sizes 6-15] [--write]   # --write: the table into the module
    python bench/outlier_mixture_cuts.py --arrays 1000 --sizes 16-32 --step 2 --write   # the shipped 16-32
    python bench/outlier_mixture_cuts.py --arrays 4000 --sizes 16-32 --step 2 --save-draws /tmp/even.json  # and
    python bench/outlier_mixture_cuts.py --arrays 4000 --sizes 17-31 --step 2 --save-draws /tmp/odd.json   # beside it
    python bench/outlier_mixture_cuts.py --arrays 4000 --sizes 16-32 --from-draws /tmp/even.json /tmp/odd.json
    python bench/outlier_mixture_cuts.py --smoke
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import outlier_clean as clean  # noqa: E402
import outlier_envelope as env  # noqa: E402
from results_file import RESULTS, add_smoke_flag, host, write_result  # noqa: E402

from iolab.analysis import outlier_mixture as mixture  # noqa: E402
from iolab.analysis.noise import own_noise  # noqa: E402
from iolab.analysis.outliers import OutlierParams, _group, _log_spread, _own_noise  # noqa: E402

SEED = 31_000_000
ALARM = mixture.CUTS_ALARM  # the shipped `OutlierParams.array_alarm`: the verdict's whole budget in 8+ drives
FAMILIES = ("lognormal peers", "uniform log spread", "HBA groups")
# the sizes it judges (`OutlierParams.mixture_below`) and, below them, the drives left once it named one or two (its
# steps judge what is left at the cut of its size); 7 drives' floor reads 8's cut
SIZES = range(6, 33)
POOLED_FROM, WINDOW = 16, 2  # from this size on, a size's cut pools the arrays of sizes within WINDOW of it
MODULE = HERE.parent / "src" / "iolab" / "analysis" / "outlier_mixture.py"


def statistic(array: env.Array, params: OutlierParams) -> tuple[bool, float]:
    """Whether the group search names a group in the clean array, and S (module docstring); each drive's own noise
    measured and weighed as ARR-OUTLIER's call does (`analysis.noise.own_noise`)."""
    x = env.per_second(array, np.random.default_rng([array.seed, 7]))
    means = x.mean(axis=1)
    y = np.log(means)
    own = [_own_noise(own_noise(x[i].tolist())) for i in range(array.n)]
    grouped = _group(y, np.isfinite(y), own, -1.0, params) is not None
    odds = mixture.log_odds(y, mixture.excess(own))
    weighed = means <= (1 - params.rel_floor) * float(np.median(means))
    spread = _log_spread(y, params)[1]
    top = float(odds[weighed].max()) if weighed.any() else -math.inf
    return grouped, top - mixture.spread_term(array.n, spread)


def draws(n: int, arrays: int, params: OutlierParams) -> dict[str, list[tuple[bool, float]]]:
    """Each family's clean arrays of n drives (`statistic` of each), drawn from `SEED`."""
    out = {}
    for family in (f for f in FAMILIES if clean.SMALLEST.get(f, 3) <= n):  # an HBA group needs 8 drives
        seeds = range(SEED + 100_000 * n, SEED + 100_000 * n + arrays)
        out[family] = [statistic(clean.draw(seed, family, (0.01, 0.30), (n, n)), params) for seed in seeds]
    return out


def size_cut(drawn: list[dict[str, list[tuple[bool, float]]]]) -> dict:
    """The cut of a size (module docstring) from the draws of the sizes it pools (`drawn`: one size's, or those
    within `WINDOW` of it)."""
    out: dict = {"families": {}}
    for family in drawn[0]:
        rows = [row for sizes in drawn for row in sizes.get(family, [])]
        grouped = np.array([g for g, _ in rows])
        s = np.sort(np.array([v for g, v in rows if not g]))
        room = int(math.floor(ALARM * len(rows))) - int(grouped.sum())  # arrays S may still pass
        c = float(s[-room - 1]) if 0 <= room < len(s) else math.inf
        out["families"][family] = {"cut": round(c, 4), "grouped": int(grouped.sum()), "arrays": len(rows)}
    out["cut"] = max(f["cut"] for f in out["families"].values())
    return out


def pooled(n: int, drawn: dict[int, dict]) -> list[dict]:
    """The draws a size's cut pools: its own below `POOLED_FROM`, else those of the sizes run within `WINDOW`."""
    if n < POOLED_FROM:
        return [drawn[n]]
    return [drawn[m] for m in range(n - WINDOW, n + WINDOW + 1) if m >= POOLED_FROM and m in drawn]


def write_table(cuts: dict[int, float]) -> None:
    """The sizes run into `outlier_mixture.CUTS`, between its markers (the other sizes' cuts kept: runs of some
    sizes each, side by side on a busy host, fill the table in turn)."""
    text = MODULE.read_text()
    body = "".join(f"    {n}: {c:.3f},\n" for n, c in sorted({**mixture.CUTS, **cuts}.items()))
    pattern = r"(CUTS: dict\[int, float\] = \{\n).*?(\}  # end of the table)"
    MODULE.write_text(re.sub(pattern, lambda m: m.group(1) + body + m.group(2), text, flags=re.S))


def load_draws(paths: list[Path]) -> dict[int, dict]:
    """The draws `--save-draws` wrote, merged (a size drawn twice keeps the later file's)."""
    drawn: dict[int, dict] = {}
    for path in paths:
        for n, families in json.loads(path.read_text()).items():
            drawn[int(n)] = {f: [(bool(g), float(s)) for g, s in rows] for f, rows in families.items()}
    return drawn


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arrays", type=int, default=3000, help="clean arrays a family and size")
    parser.add_argument("--write", action="store_true", help="write the table into the module")
    parser.add_argument("--sizes", default="6-15", help="the sizes to run, FIRST-LAST within 6-32")
    parser.add_argument("--step", type=int, default=1, help="draw every STEP-th size (the others' cuts pool them)")
    parser.add_argument("--out", type=Path, default=RESULTS / "outlier_mixture_cuts.json")
    parser.add_argument("--save-draws", type=Path, help="also write each drawn size's (grouped, S) rows here")
    parser.add_argument("--from-draws", type=Path, nargs="+", help="take the draws from these files (runs of some "
                        "sizes each, side by side), draw nothing, and pool them as one run")  # fmt: skip
    add_smoke_flag(parser)
    args = parser.parse_args()
    first, last = (int(v) for v in args.sizes.split("-"))
    sizes = [n for n in SIZES if first <= n <= last]
    if args.smoke:
        env.smoke_nulls()
        args.arrays, sizes, args.write = 40, [8], False
    drawn_sizes = sizes[:: args.step]
    started = time.perf_counter()
    params = OutlierParams()
    drawn = load_draws(args.from_draws) if args.from_draws else {}
    for n in [] if args.from_draws else drawn_sizes:
        drawn[n] = draws(n, args.arrays, params)
        print(f"{n} drives drawn ({time.perf_counter() - started:.0f} s)", flush=True)
    if args.save_draws:
        args.save_draws.write_text(json.dumps({str(n): d for n, d in drawn.items()}))
    table = {n: size_cut(pooled(n, drawn)) for n in sizes if n in drawn or n >= POOLED_FROM}
    for n, row in table.items():
        print(f"{n} drives: {row}")
    if args.write:
        write_table({n: row["cut"] for n, row in table.items()})
    figures = {"host": host(), "seed": SEED, "alarm": ALARM, "arrays": args.arrays, "sizes": table,
               "seconds": round(time.perf_counter() - started, 1)}  # fmt: skip
    write_result(args.out, "outlier_mixture_cuts", figures, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
