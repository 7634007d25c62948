"""Split arrays (two drive models, judged by model) with and without the backstop's share (issue 40, fifteenth round).

`outliers._share_of` holds each class of a split array at its share of every test's alarm; the modified z-score's
backstop (`OutlierParams.threshold`) held none until `outlier_null.backstop_cut` raised its cut per class. Its
cut only rises, so the drives named with it are a subset of those named without: each array is judged both ways
(the cut left at `threshold`: the code before), paired. Two parts, on seeds given (nothing is chosen here):

- clean arrays of two drive models (bench/outlier_clean.py's draw), by sigma bin: arrays with any drive named;
- twins of two drive models with one or two slow drives (bench/outlier_envelope.py's `draw_models`, 8-32 drives
  only), by size and sigma bin: slow drives at or below 60% of their own model's median named, healthy drives named.

    python bench/outlier_split_backstop.py clean --seed 94000000 --arrays 2000 --sigma 0.20-0.30 --size 16-32
    python bench/outlier_split_backstop.py twins --seed 94500000 --arrays 10000
    python bench/outlier_split_backstop.py --smoke   # both parts, a few arrays

bench/results/outlier_split_backstop.json holds the fifteenth round's held-out runs (each run's figures and command).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from unittest import mock

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import outlier_clean as clean  # noqa: E402
import outlier_envelope as env  # noqa: E402
from results_file import RESULTS, add_smoke_flag, host, write_result  # noqa: E402

from iolab.analysis.outliers import OutlierParams  # noqa: E402

SHIPPED = OutlierParams()


def before():
    """The code before: each class's backstop at `threshold` (the cut left where it was)."""
    return mock.patch("iolab.analysis.outlier_null.backstop_cut", lambda n, whole, threshold, share: threshold)


def clean_part(seed: int, arrays: int, sigma: tuple[float, float], size: tuple[int, int]) -> dict:
    """Clean arrays of two drive models in the bin with any drive named, with the backstop's share and before."""
    shares = {"with": 0, "before": 0}
    for k in range(arrays):
        array = clean.draw(seed + k, "two drive models", sigma, size)
        with before():
            old = any(r.outliers for r in clean.judge(array))
        shares["before"] += old
        shares["with"] += old and any(r.outliers for r in clean.judge(array))  # a subset of `old`
    return {"arrays": arrays, **shares, "wilson_95": clean.wilson(shares["with"], arrays)}


def twins_part(seed: int, arrays: int) -> dict:
    """By size and sigma bin, the twins of 8-32 drives among `arrays` seeds: slow drives at or below 60% of their
    model's median and how many were named, healthy drives named; with the backstop's share and before."""
    rows: dict[str, dict[str, int]] = {}
    for k in range(arrays):
        _, twin = env.draw_models(seed + k)
        if twin.n > 32:
            continue
        seen = env.observe(twin)
        size = "8-15" if twin.n < 16 else "16-32"
        sigma = next(f"{lo:.0%}-{hi:.0%}" for lo, hi in env.SIGMA_BINS if twin.sigma <= hi)
        row = rows.setdefault(
            f"{size} drives, sigma {sigma}",
            dict.fromkeys(("slow", "with", "before", "healthy_with", "healthy_before", "arrays"), 0),
        )
        with before():
            old = seen.judge(SHIPPED).named
        seen.judged.clear()
        new = seen.judge(SHIPPED).named
        target = {d for d, r in twin.slow.items() if r <= 0.60}
        row["arrays"] += 1
        row["slow"] += len(target)
        row["before"] += len(old & target)
        row["with"] += len(new & target)
        row["healthy_before"] += len(old - set(twin.slow))
        row["healthy_with"] += len(new - set(twin.slow))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", nargs="?", choices=("clean", "twins"), default="clean")
    parser.add_argument("--seed", type=int, default=94_000_000)
    parser.add_argument("--arrays", type=int, default=2000)
    parser.add_argument("--sigma", default="0.10-0.20", help="clean: the sigma bin LOW-HIGH")
    parser.add_argument("--size", default="16-32", help="clean: the size bin LOW-HIGH")
    parser.add_argument("--out", type=Path, default=RESULTS / "outlier_split_backstop.json")
    add_smoke_flag(parser)
    args = parser.parse_args()
    figures: dict = {"host": host(), "command": sys.argv[1:]}
    if args.smoke or args.part == "clean":
        arrays = 2 if args.smoke else args.arrays
        sigma, size = clean.span(args.sigma, float), clean.span(args.size, int)
        figures["clean"] = clean_part(args.seed, arrays, sigma, size)
    if args.smoke or args.part == "twins":
        figures["twins"] = twins_part(args.seed, 15 if args.smoke else args.arrays)
    print(json.dumps({k: v for k, v in figures.items() if k != "host"}, indent=1))
    write_result(args.out, "outlier_split_backstop", figures, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
