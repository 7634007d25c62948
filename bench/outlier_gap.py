"""One bin of outlier_envelope's space on many fresh seeds: the method's paired gap to the oracle bound, with its interval.

bench/outlier_envelope.py reports every sigma x size bin on one set of held-out seeds; a bin of 16-32 drives at
sigma 20-30% then holds about 400 drives at or below 60% of their peers, and the gap between the method and the
oracle bound on the same drives has a standard error near 1.2 points: one set cannot say whether a gap of 3.7
points misses the issue's target (within 3 points) or is a draw. Here only arrays of the bin are judged, on
several disjoint seed sets: outlier_envelope's `draw` on consecutive seeds from each set's first, keeping those
whose clean array falls in the bin (by size and sigma, drawn before any noise: nothing about the outcome
chooses them) until the set holds `--arrays` of them. Each is judged as outlier_envelope judges it (the shipped
parameters; the bound at the reference alarm its stored run matched on the tuning seeds).

The gap is per planted drive at or below 60% of the healthy median: method named minus bound named. The drives of
one array share its peers, so the interval treats arrays as the units (a ratio estimator over arrays:
sum of the differences over the drives' count, its variance from the arrays' residuals), per seed set and pooled
over the sets that were held out from every choice.

    python bench/outlier_gap.py --set 6000000 --set 1100000:1101999 --pool 6000000 --pool 1100000:1101999 \
        --arrays 1500 [--size 16-32] [--sigma 0.20-0.30]   # --pool: the sets held out from every choice
    python bench/outlier_gap.py --smoke
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import outlier_envelope as env  # noqa: E402
from results_file import RESULTS, add_smoke_flag, host, write_result  # noqa: E402

from iolab.analysis.outliers import OutlierParams  # noqa: E402

Z95 = 1.959964
AT_MOST = 0.6  # the issue's headline: a drive at or below 60% of its healthy peers' median


@dataclass
class Sums:
    """Per-array sums of one seed set, enough for the ratio estimator's gap and variance and for pooling sets."""

    arrays: int = 0
    drives: int = 0  # Σc: planted drives at or below AT_MOST
    method: int = 0
    bound: int = 0
    dd: float = 0.0  # Σ d², d an array's (method - bound) over its drives
    dc: float = 0.0  # Σ d·c
    cc: float = 0.0  # Σ c²
    clean_method: int = 0  # clean arrays of the bin with a drive named
    clean_bound: int = 0
    # twins with a healthy drive named (the slow drive's peers): what a looser later step costs beside its recall
    healthy_method: int = 0
    healthy_bound: int = 0
    ceiling: int = 0  # the known-sigma test's (outlier_envelope's ceiling) count of the drives, printed beside

    def add(self, method: int, bound: int, drives: int, ceiling: int = 0) -> None:
        d = method - bound
        self.ceiling += ceiling
        self.arrays += 1
        self.drives += drives
        self.method += method
        self.bound += bound
        self.dd += d * d
        self.dc += d * drives
        self.cc += drives * drives

    def merged(self, other: Sums) -> Sums:
        return Sums(*(getattr(self, f) + getattr(other, f) for f in self.__dataclass_fields__))

    def figures(self) -> dict:
        """Recall of each, the paired gap in points and its 95% interval (arrays as units)."""
        if not self.drives:
            return {"arrays": self.arrays, "drives": 0}
        gap = (self.method - self.bound) / self.drives
        residual = self.dd - 2 * gap * self.dc + gap * gap * self.cc
        k = self.arrays
        se = math.sqrt(max(0.0, residual) * k / max(1, k - 1)) / self.drives
        return {
            "arrays": k,
            "drives": self.drives,
            "method": round(self.method / self.drives, 4),
            "bound": round(self.bound / self.drives, 4),
            "known_sigma": round(self.ceiling / self.drives, 4),
            "gap_points": round(100 * gap, 2),
            "se_points": round(100 * se, 2),
            "gap_95": [round(100 * (gap - Z95 * se), 2), round(100 * (gap + Z95 * se), 2)],
            "clean_alarms": {"method": self.clean_method, "bound": self.clean_bound, "of": k},
            "healthy_named": {"method": self.healthy_method, "bound": self.healthy_bound, "of": k},
            "sums": {f: getattr(self, f) for f in self.__dataclass_fields__},
        }


# What a seed draws: outlier_envelope's space (one or two slow drives) or its HBA groups family (a group of 2 drives
# up to half the array at one level, sharing their seconds' noise), to read what a change to the group search costs
# the groups it is for (issue 40, fourteenth round, twins).
FAMILIES = {"planted": env.draw, "HBA groups": env.draw_group}


def in_bin(seed: int, size: tuple[int, int], sigma: tuple[float, float], family: str = "planted") -> bool:
    """Whether the array of `seed` is of the bin (its size and sigma, drawn before any noise)."""
    clean, _ = FAMILIES[family](seed)
    return size[0] <= clean.n <= size[1] and sigma[0] < clean.sigma <= sigma[1]


def seeds_of(
    spec: str, arrays: int, size: tuple[int, int], sigma: tuple[float, float], family: str = "planted"
) -> list[int]:
    """The seeds of one set whose array is of the bin: `FIRST`, the first `arrays` from FIRST on; `FIRST:LAST`,
    every one in that range (a set another run reported, judged again on its bin alone)."""
    first, _, last = spec.partition(":")
    if last:
        return [seed for seed in range(int(first), int(last) + 1) if in_bin(seed, size, sigma, family)]
    picked, seed = [], int(first)
    while len(picked) < arrays:
        if in_bin(seed, size, sigma, family):
            picked.append(seed)
        seed += 1
    return picked


def judge_set(
    seeds: list[int], variants: dict[str, OutlierParams], alarms: tuple[float, float], workers: int, family: str
) -> dict[str, dict[str, Sums]]:
    """Each seed's clean array and twin judged by the method (each variant of its parameters, on the same cases) and
    the bound and the known-sigma test (at `alarms`), summed per array: in all, and apart for twins with one slow drive and with two
    (where the second, milder one sits among the method's peers and the bound knows it is not healthy)."""
    sums = {v: {"all": Sums(), "one slow drive": Sums(), "two slow drives": Sums()} for v in variants}
    cases = env.corpus(seeds, workers) if family == "planted" else env.family_corpus(family, seeds)
    for case in cases:
        bound_alarm, ceiling_alarm = alarms
        bound = env.named_at(case.seen_twin.bound, bound_alarm)
        ceiling = env.named_at(case.seen_twin.ceiling, ceiling_alarm)
        clean_bound = bool(env.named_at(case.seen_clean.bound, bound_alarm))
        healthy_bound = bool(bound - set(case.twin.slow))
        slow = [d for d, ratio in case.twin.slow.items() if ratio <= AT_MOST]
        kind = "one slow drive" if len(case.twin.slow) == 1 else "two slow drives"
        for variant, params in variants.items():
            named = case.seen_twin.judge(params).named
            for part in (sums[variant]["all"], sums[variant][kind]):
                part.clean_method += bool(case.seen_clean.judge(params).named)
                part.clean_bound += clean_bound
                part.healthy_method += bool(set(named) - set(case.twin.slow))
                part.healthy_bound += healthy_bound
                part.add(
                    sum(d in named for d in slow),
                    sum(d in bound for d in slow),
                    len(slow),
                    sum(d in ceiling for d in slow),
                )
    return sums


def variants_of(specs: list[str]) -> dict[str, OutlierParams]:
    """The shipped parameters and each `--variant` (NAME=VALUE,NAME=VALUE over `OutlierParams`' fields)."""
    out = {"shipped": OutlierParams()}
    for spec in specs:
        fields = dict(item.split("=") for item in spec.split(","))
        out[spec] = replace(OutlierParams(), **{k: type(getattr(out["shipped"], k))(v) for k, v in fields.items()})
    return out


def report(name: str, row: dict) -> None:
    print(f"{name}: {row.get('method', 0):.1%} vs {row.get('bound', 0):.1%} (known sigma {row.get('known_sigma', 0):.1%}) "
          f"of {row['drives']} drives, gap "
          f"{row.get('gap_points')} points, 95% {row.get('gap_95')}, healthy named {row.get('healthy_named')}",
          flush=True)  # fmt: skip


def span(text: str, kind: type) -> tuple:
    """A bin given as LOW-HIGH."""
    low, high = text.split("-")
    return kind(low), kind(high)


def measure(args: argparse.Namespace, alarms: tuple[float, float]) -> tuple[dict, dict]:
    """Each seed set's figures (in all, one slow drive, two) and each pooling's."""
    size, sigma = span(args.size, int), span(args.sigma, float)
    variants = variants_of(args.variant)
    sets: dict[str, dict] = {}
    pools: dict[str, dict[str, dict[str, Sums]]] = {pool: {v: {} for v in variants} for pool in args.pool}
    for spec in args.set or ["6000000"]:
        seeds = seeds_of(spec, args.arrays, size, sigma, args.family)
        sums = judge_set(seeds, variants, alarms, args.workers, args.family)
        _pool(pools, spec, sums)
        name = f"{seeds[0]}..{seeds[-1]}"
        sets[name] = {"given_as": spec, **_figures(sums)}
        for v in variants:
            report(f"{name} {v}", sets[name]["all"] if v == "shipped" else sets[name]["variants"][v]["all"])
    return sets, {pool: _figures(parts) for pool, parts in pools.items()}


def _pool(pools: dict[str, dict[str, dict[str, Sums]]], spec: str, sums: dict[str, dict[str, Sums]]) -> None:
    """One seed set's sums added to each pooling that holds it (`--pool`, sets joined by +)."""
    for pool, pooled in pools.items():
        if spec in pool.split("+"):
            for v, parts in sums.items():
                pooled[v] = {part: pooled[v].get(part, Sums()).merged(s) for part, s in parts.items()}


def _figures(sums: dict[str, dict[str, Sums]]) -> dict:
    """The shipped parameters' figures by part, and each variant's under "variants" (where any was judged)."""
    out: dict = {part: s.figures() for part, s in sums["shipped"].items()}
    others = {v: {part: s.figures() for part, s in parts.items()} for v, parts in sums.items() if v != "shipped"}
    return {**out, "variants": others} if others else out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", help="a seed set: FIRST, or FIRST:LAST (repeatable)")
    parser.add_argument(
        "--pool",
        action="append",
        default=[],
        help="sets (as given to --set) pooled into one figure, joined by + (repeatable: several poolings)",
    )
    parser.add_argument("--arrays", type=int, default=1500, help="arrays of the bin in each seed set")
    parser.add_argument("--size", default="16-32", help="drives, e.g. 16-32")
    parser.add_argument("--sigma", default="0.20-0.30", help="sigma of ln rate, e.g. 0.20-0.30")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--family", choices=FAMILIES, default="planted", help="what each seed draws (FAMILIES)")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="parameters judged beside the shipped: NAME=VALUE,... (repeatable)",
    )
    parser.add_argument("--bound-alarm", type=float, help="the bound's alarm (default: outlier_envelope.json's)")
    parser.add_argument("--out", type=Path, default=RESULTS / "outlier_gap.json")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        env.smoke_nulls()
        args.arrays, args.set, args.pool, args.size = 4, ["6000000", "6100000"], ["6000000+6100000"], "8-8"
        args.variant = args.variant or ["step_boost=3"]
    stored = json.loads((RESULTS / "outlier_envelope.json").read_text())
    bound_alarm = args.bound_alarm or stored["reference_alarms"]["bound"]
    started = time.perf_counter()
    sets, pooled = measure(args, (bound_alarm, stored["reference_alarms"]["ceiling"]))
    run = {
        "host": host(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": " ".join(["bench/outlier_gap.py", *sys.argv[1:]]),
        "bound_alarm": bound_alarm,
        "bound_alarm_from": f"outlier_envelope.json's run of {stored['when']} (tuning seeds {stored['tuning_seeds']})",
        "sets": sets,
        "pooled": pooled,
        "seconds": round(time.perf_counter() - started, 1),
    }
    # one entry a bin: a run of another bin keeps the others' (a smoke run starts afresh)
    kept = {} if args.smoke or not args.out.exists() else json.loads(args.out.read_text()).get("bins", {})
    figures = {"bins": {**kept, f"{args.size} drives, sigma {args.sigma}": run}}
    write_result(args.out, "outlier_gap", figures, smoke=args.smoke)
    for pool, figures_ in pooled.items():
        for v, parts in {"shipped": figures_, **figures_.get("variants", {})}.items():
            for part in ("all", "one slow drive", "two slow drives"):
                report(f"pooled {pool}, {v}, {part}", parts[part])
    print(f"took {run['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
