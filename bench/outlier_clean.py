"""Clean arrays' false alarms of ARR-OUTLIER by bin, with enough arrays a bin to tell 1%, whatever the peers' shape.

bench/outlier_envelope.py reports clean arrays beside each planted twin, a few hundred a bin; a bin of 100 arrays
cannot tell 0.5% from 2% (one alarm is a point). Here only clean arrays are drawn, the same number in every bin
(sigma of ln rate 1-10, 10-20, 20-30% x size), so each bin's share comes with a binomial (Wilson 95%) interval
narrow enough to say whether it is under 1%. The families (issue 40, fifth round: the group search's null was
simulated on normal peers, and flat spreads read as a group):

- lognormal peers: ln rates normal with sd sigma (outlier_envelope's space);
- uniform log spread: ln rates uniform with the same sd (bench/simulated_arrays.py's peers, out to sigma 30%);
- bimodal peers: an even mixture of two normal levels 2 sds of their own apart (the widest that is still one
  hump: a flat top), the mixture's sd sigma;
- HBA groups: lognormal peers with a group of 2 drives up to half behind one HBA whose seconds share 30-90% of
  their noise (outlier_envelope's HBA family, not slowed);
- two drive models: a quarter to three quarters of the drives a model at 60-80% of the other's speed, judged by
  model as ARR-OUTLIER does when the run knows the models (`find_outliers_by_class`).

Each array's seconds are outlier_envelope's (AR(1), t3 innovations, CV 1-20%, 10-60 s or 300 s) and it is judged
as ARR-OUTLIER judges it (each drive's mean, its own noise `analysis.noise.own_noise`). A false alarm is a clean
array with any drive named; the share named by the group search is beside it. Nothing is chosen here: the seeds
(--seed, default 950000) are held out from every choice.

    python bench/outlier_clean.py [--arrays 1000] [--seed 950000] [--smallest 8] [--largest 32] [--out PATH]
    python bench/outlier_clean.py --family "HBA groups" --out /tmp/hba.json   # one family (side by side)
    python bench/outlier_clean.py --merge /tmp/hba.json /tmp/...   # per-family runs into one result (--out)
    python bench/outlier_clean.py --size 200-200 --size 500-500 --sigma 0.20-0.30   # these bins only (200, 500 drives)
    python bench/outlier_clean.py --smoke
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import outlier_envelope as env  # noqa: E402
from results_file import RESULTS, add_smoke_flag, host, write_result  # noqa: E402

from iolab.analysis.noise import own_noise  # noqa: E402
from iolab.analysis.outliers import OutlierParams, OutlierReport, find_outliers, find_outliers_by_class  # noqa: E402

FAMILIES = ("lognormal peers", "uniform log spread", "bimodal peers", "HBA groups", "two drive models")
SIZE_BINS = ((3, 7), (8, 15), (16, 32), (33, 64), (65, 128))
SMALLEST = {"HBA groups": 8, "two drive models": 8}  # an HBA group or two models of 3+ drives need 8 drives
Z95 = 1.959964


def levels(family: str, n: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """The drives' true levels: ln rates of sd `sigma` in the family's shape."""
    if family == "uniform log spread":
        z = rng.uniform(-math.sqrt(3.0), math.sqrt(3.0), n)
    elif family == "bimodal peers":  # modes at +-1 own sd: total sd sqrt(2) own sds
        z = (rng.standard_normal(n) + np.where(rng.random(n) < 0.5, -1.0, 1.0)) / math.sqrt(2.0)
    else:
        z = rng.standard_normal(n)
    return env.BASE * np.exp(sigma * z)


def draw(seed: int, family: str, sigma_bin: tuple[float, float], size: tuple[int, int]) -> env.Array:
    """A clean array of the family in the bin (sigma and size uniform within it)."""
    rng = np.random.default_rng([seed, FAMILIES.index(family)])
    n = int(rng.integers(max(size[0], SMALLEST.get(family, 3)), size[1] + 1))
    sigma = float(rng.uniform(*sigma_bin))
    seconds = int(rng.integers(10, 61)) if rng.random() < 0.75 else 300
    cv, phi = float(rng.uniform(0.01, 0.20)), float(rng.uniform(0.0, 0.8))
    base = env.Array(seed, sigma, cv, phi, seconds, levels(family, n, sigma, rng), {})
    if family == "HBA groups":
        count = min(max(2, round(float(rng.uniform(0.02, 0.50)) * n)), n // 2)
        group = tuple(sorted(int(d) for d in rng.choice(n, size=count, replace=False)))
        return replace(base, group=group, shared=float(rng.uniform(0.3, 0.9)))
    if family == "two drive models":
        count = min(max(3, round(float(rng.uniform(0.25, 0.75)) * n)), n - 3)
        slower = {int(d) for d in rng.choice(n, size=count, replace=False)}
        base.levels[list(slower)] *= float(rng.uniform(0.6, 0.8))
        return replace(base, model=tuple(int(i in slower) for i in range(n)))
    return base


def judge(array: env.Array, params: OutlierParams | None = None) -> list[OutlierReport]:
    """ARR-OUTLIER's reports of the array (by model where it has two), at `params` (the shipped ones: None)."""
    x = env.per_second(array, np.random.default_rng([array.seed, 7]))
    values = {f"d{i}": float(x[i].mean()) for i in range(array.n)}
    noise = {f"d{i}": e for i in range(array.n) if (e := own_noise(x[i].tolist())) is not None}
    if array.model:
        classes = {f"d{i}": f"model {m}" for i, m in enumerate(array.model)}
        return list(find_outliers_by_class(values, classes, params, noise=noise).values())
    return [find_outliers(values, params, noise=noise)]


def wilson(hits: int, of: int) -> tuple[float, float]:
    """The Wilson score interval (95%) of a binomial share."""
    if not of:
        return (0.0, 1.0)
    p, z2 = hits / of, Z95**2
    centre = (p + z2 / (2 * of)) / (1 + z2 / of)
    half = Z95 * math.sqrt(p * (1 - p) / of + z2 / (4 * of**2)) / (1 + z2 / of)
    return (round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4))


def span(text: str, kind: type) -> tuple:
    """A bin given as LOW-HIGH."""
    low, high = text.split("-")
    return kind(low), kind(high)


def run(
    arrays: int, seed: int, bins: tuple[tuple, tuple], families: tuple[str, ...], save, params: OutlierParams | None
) -> dict:
    """Each family's bins (`bins`: the size bins and the sigma bins); `save` is called with the figures so far after
    every bin (a long run on a busy host keeps what it measured)."""
    sizes, sigmas = bins
    out: dict[str, dict] = {}
    for family in families:
        rows: dict[str, dict] = {}
        index = 0
        out[family] = {"seeds": "", "bins": rows}
        for size in sizes:
            if size[1] < SMALLEST.get(family, 3):
                continue
            for sigma_bin in sigmas:
                named = group = 0
                started = time.perf_counter()
                for _ in range(arrays):
                    reports = judge(draw(seed + index, family, sigma_bin, size), params)
                    index += 1
                    named += any(r.outliers for r in reports)
                    group += any(r.group for r in reports)
                key = f"sigma {sigma_bin[0]:.0%}-{sigma_bin[1]:.0%}, {size[0]}-{size[1]} drives"
                rows[key] = {"alarms": named, "of": arrays, "share": round(named / arrays, 4),
                             "wilson_95": wilson(named, arrays), "by_the_group_search": group,
                             "ms_per_array": round(1000 * (time.perf_counter() - started) / arrays, 1)}  # fmt: skip
                row = rows[key]
                print(f"{family:20s} {key:32s} {row['share']:6.2%} [{row['wilson_95'][0]:.2%}, "
                      f"{row['wilson_95'][1]:.2%}] of {arrays} (group {group}) {row['ms_per_array']} ms", flush=True)  # fmt: skip
                out[family]["seeds"] = f"{seed}..{seed + index - 1}"
                save(out)
    return out


def merge(paths: list[Path], out: Path) -> int:
    """Per-family runs (`--family`, side by side on a busy host) into one result, each run's families as it wrote
    them, with when each ran, for how long and whether it ran to the end."""
    records = [json.loads(path.read_text()) for path in paths]
    figures = {
        "host": host(),
        "arrays_per_bin": sorted({r["arrays_per_bin"] for r in records}),
        "complete": all(r["complete"] for r in records),
        "families": {family: part for r in records for family, part in r["families"].items()},
        "runs": [
            {"families": list(r["families"]), "when": r["when"], "seconds": r["seconds"], "complete": r["complete"]}
            for r in records
        ],
    }
    write_result(out, "outlier_clean", figures)
    return 0


def _params(spec: str | None) -> OutlierParams | None:
    """`--params` (NAME=VALUE,... over `OutlierParams`' fields, each cast to the field's type); None: shipped."""
    if not spec:
        return None
    shipped = OutlierParams()
    fields = dict(item.split("=") for item in spec.split(","))
    return replace(shipped, **{k: type(getattr(shipped, k))(v) for k, v in fields.items()})


def bins_of(args: argparse.Namespace) -> tuple[tuple, tuple]:
    """The size bins (the standard ones from --smallest to --largest, or each --size) and the sigma bins (each
    --sigma, else all three) a run measures."""
    sizes = tuple(b for b in SIZE_BINS if b[0] >= args.smallest and b[1] <= args.largest)
    if args.size:
        sizes = tuple(span(text, int) for text in args.size)
    return sizes, tuple(span(text, float) for text in args.sigma) if args.sigma else env.SIGMA_BINS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arrays", type=int, default=1000, help="clean arrays a bin")
    parser.add_argument("--seed", type=int, default=950_000)
    parser.add_argument("--largest", type=int, default=128, help="the largest size bin's top (32, 64 or 128)")
    parser.add_argument("--smallest", type=int, default=3, help="the smallest size bin's bottom (3 or 8)")
    parser.add_argument("--family", action="append", choices=FAMILIES, help="only this family (repeatable)")
    parser.add_argument(
        "--size",
        action="append",
        help="a size bin LOW-HIGH instead of the standard ones (repeatable; 200-200: 200 drives)",
    )
    parser.add_argument("--sigma", action="append", help="only this sigma bin, e.g. 0.20-0.30 (repeatable)")
    parser.add_argument("--out", type=Path, default=RESULTS / "outlier_clean.json")
    parser.add_argument("--params", help="parameters other than the shipped: NAME=VALUE,... over OutlierParams' fields")
    parser.add_argument("--merge", nargs="+", type=Path, help="merge these per-family results into --out")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.merge and not args.smoke:
        return merge(args.merge, args.out)
    if args.smoke:
        args.arrays, args.largest = 2, 15
        env.smoke_nulls()
    started = time.perf_counter()
    figures: dict = {"host": host(), "arrays_per_bin": args.arrays, "complete": False}

    def save(families: dict) -> None:
        figures.update(families=families, seconds=round(time.perf_counter() - started, 1))
        write_result(args.out, "outlier_clean", figures, smoke=args.smoke)

    params = _params(args.params)
    if params is not None:
        figures["params"] = args.params
    families = run(args.arrays, args.seed, bins_of(args), tuple(args.family or FAMILIES), save, params)
    figures["complete"] = True
    save(families)
    print(f"took {figures['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
