"""Recall and false alarms of the array and series rules on simulated arrays with a known answer.

Each case is one array run as the doctor sees it (`iolab.doctor.rule.Context`:
the array's views and every point's per-second series), drawn from a seed:

- 4 to 32 drives whose true levels spread 0 to 40% on a log scale (each
  drive's level is exp(u) x base, u uniform in +/-ln(1 + spread)/2, so the
  fastest is at most 1 + spread times the slowest);
- per-second noise of 1 to 20% (lognormal), autocorrelated (AR(1), lag-1
  correlation 0 to 0.8), over 10 to 60 whole seconds a point;
- views: all drives together (one series per drive), each drive alone, and
  sets of the first 1, 2, 4 ... drives (each point's "all jobs" series).

Every seed gives a clean control and, in the same array (its twin), each
planted fault: one or two drives at 20 to 70% of their level in every view
("slow"), a dip of one drive to 10 to 40% for 2 to 10 s in the together point
("dip"), one drive stepping down to 30 to 60% for the rest of the together
point ("step"), and a shared path that saturates (sets larger than one of the
measured sizes 2 to n/2 capped at what that set gave, less 10 to 30%
contention: "saturating").

False alarm: a clean case with any warning or critical finding from the rule.
Recall: a fault case whose planted drive (or, for scaling, the array) the rule
names at warning or above. Every case checks the rules it counts were
evaluated (no "not evaluated" finding; series long enough to judge).

Recall of a slow drive is counted two ways: per case at or below 60% of
the drive's own level (the figure before issue 33's re-measure; every
planted drive of the case named), and per drive at or below 60% of its
peers' median (the healthy drives' true levels), what "60% of its peers"
says; both by the peers' spread.

The step rule's alarm share is chosen on the even positions of --seed .. --seed
+ --cases (`choose`); the outlier rule's parameters come from
bench/outlier_envelope.py, which draws the whole space of arrays (lognormal
peers, 3 to 32 drives, heavy-tailed noise), and are taken as shipped. The odd
positions were looked at while the method was worked on (issue 33), so they
are a second check ("validation"); the figures are reported on a fresh range,
--held-out-seed (200000) .. + --cases / 2, drawn once the method was fixed.

    python bench/simulated_arrays.py [--cases 2000] [--seed 33] [--held-out-seed 200000] [--out PATH]
    python bench/simulated_arrays.py --smoke   # the smoke size the suite runs
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from unittest import mock

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import held_out  # noqa: E402
from results_file import host, write_result  # noqa: E402

from iolab.analysis.outliers import OutlierParams, find_outliers, find_outliers_by_class  # noqa: E402
from iolab.doctor.derived import MIN_SERIES_SAMPLES, ArrayView, PointSeries  # noqa: E402
from iolab.doctor.engine import all_rules, evaluate  # noqa: E402
from iolab.doctor.rule import Context  # noqa: E402
from iolab.doctor.rules import telemetry  # noqa: E402
from iolab.models import Severity  # noqa: E402

WORKLOAD = "seq-read"
RULES = ("ARR-OUTLIER", "ARR-SHARED-PATH", "ARR-SCALING-DROP", "TEL-DIP", "TEL-STEP")
FAULTS = ("slow", "dip", "step", "saturating")
FOUND_BY = {
    "slow": ("ARR-OUTLIER",),
    "dip": ("TEL-DIP", "TEL-STEP"),
    "step": ("TEL-STEP",),
    "saturating": ("ARR-SCALING-DROP",),
}
SERIOUS = (Severity.WARNING, Severity.CRITICAL)
BASE = 500e6  # bytes/s of a drive
STEP_ALARMS = (0.01, 0.003, 0.001, 0.0003, 0.0001)  # the step rule's alarm share, most sensitive first
# The fresh held-out seeds start here, far from any --seed .. --seed + --cases used. Not 100,000: a run of
# `--cases 16` whose fresh set defaulted to 1,000 seeds scored 100,000 .. 100,999 once while the method was
# worked on (its z cut and leave-out alarm were chosen on 8 arrays); nothing was chosen on it, but it was seen.
FRESH_SEED = 200_000
SET_SIZES = (1, 2, 4, 8, 16, 32)  # the first 1, 2, 4 ... drives together, as `iolab run --devices` measures
TRAIN_ALARMS = 0.005


@dataclass
class Array:
    """One simulated array: its drives' true levels and how its seconds are drawn."""

    seed: int
    levels: np.ndarray
    spread: float
    noise: float
    phi: float
    seconds: int
    faults: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.levels)


def draw(seed: int) -> Array:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 33))
    spread = float(rng.uniform(0.0, 0.4))
    half = math.log1p(spread) / 2
    levels = BASE * np.exp(rng.uniform(-half, half, n))
    return Array(
        seed, levels, spread, float(rng.uniform(0.01, 0.20)), float(rng.uniform(0.0, 0.8)), int(rng.integers(10, 61))
    )


def plant(array: Array, fault: str) -> Array:
    """The same array (same seed, same draws) with one fault planted."""
    rng = np.random.default_rng([array.seed, FAULTS.index(fault)])
    n = array.n
    if fault == "slow":
        drives = rng.choice(n, size=int(rng.integers(1, 3)), replace=False)
        return replace(array, faults={"slow": {int(d): float(rng.uniform(0.2, 0.7)) for d in drives}})
    if fault == "dip":
        length = int(rng.integers(2, 11))
        onset = int(rng.integers(2, max(3, array.seconds - length - 2)))
        return replace(array, faults={"dip": (int(rng.integers(n)), onset, length, float(rng.uniform(0.1, 0.4)))})
    if fault == "step":
        onset = int(rng.integers(array.seconds // 4, 3 * array.seconds // 4))
        return replace(array, faults={"step": (int(rng.integers(n)), onset, float(rng.uniform(0.3, 0.6)))})
    sizes = [k for k in SET_SIZES if 2 <= k <= n // 2] or [2]
    return replace(array, faults={"saturating": (int(rng.choice(sizes)), float(rng.uniform(0.1, 0.3)))})


def seconds(rng: np.random.Generator, level: float, array: Array) -> np.ndarray:
    """`array.seconds` per-second figures around `level`: lognormal, AR(1)."""
    shocks = rng.standard_normal(array.seconds) * array.noise * math.sqrt(1 - array.phi**2)
    e = np.empty(array.seconds)
    e[0] = rng.standard_normal() * array.noise
    for t in range(1, array.seconds):
        e[t] = array.phi * e[t - 1] + shocks[t]
    return level * np.exp(e - array.noise**2 / 2)


def series(point: str, label: str, values: np.ndarray) -> PointSeries:
    """A point's series as fio logs it: a partial first and last second around the whole ones."""
    whole = values.tolist()
    full = [whole[0] * 0.4, *whole, whole[-1] * 0.3]
    return PointSeries(point, label, [float(t) for t in range(len(full))], full)


def context(array: Array) -> Context:
    """The doctor's material for one run of the array."""
    rng = np.random.default_rng([array.seed, 99])
    n, levels = array.n, array.levels.copy()
    for drive, factor in array.faults.get("slow", {}).items():
        levels[drive] *= factor
    sets = [k for k in SET_SIZES if k < n] + [n]
    cap = None
    if "saturating" in array.faults:
        k0, loss = array.faults["saturating"]
        cap = (float(levels[:k0].sum()), loss)

    def set_scale(k: int) -> float:
        """How much of the members' sum a set of the first k drives gives (1 unless the path saturates)."""
        if cap is None or k <= array.faults["saturating"][0]:
            return 1.0
        return cap[0] * (1 - cap[1]) / float(levels[:k].sum())

    view = ArrayView(WORKLOAD, {}, {}, [])
    out: list[PointSeries] = []
    together = f"{WORKLOAD}-together"
    names = [f"d{i}" for i in range(n)]
    total = np.zeros(array.seconds)
    for i, name in enumerate(names):
        x = seconds(rng, levels[i] * set_scale(n), array)
        if "dip" in array.faults and array.faults["dip"][0] == i:
            _, onset, length, depth = array.faults["dip"]
            x[onset : onset + length] *= depth
        if "step" in array.faults and array.faults["step"][0] == i:
            _, onset, depth = array.faults["step"]
            x[onset:] *= depth
        total += x
        out.append(series(together, f"{name} read", x))
        view.together[name] = float(x.mean())
    out.append(series(together, "all jobs", total))
    view.points[tuple(names)] = together
    for i, name in enumerate(names):
        point = f"{WORKLOAD}-alone-{name}"
        x = seconds(rng, levels[i], array)
        out.append(series(point, "all jobs", x))
        view.alone[name] = float(x.mean())
        view.points[(name,)] = point
    for k in sets:
        if k == n:
            members, point = tuple(names), together
            aggregate = float(total.mean())
        else:
            members, point = tuple(names[:k]), f"{WORKLOAD}-x{k}"
            x = sum(seconds(rng, levels[i] * set_scale(k), array) for i in range(k))
            out.append(series(point, "all jobs", x))
            aggregate = float(x.mean())
        view.sets.append((members, aggregate))
        view.points[members] = point
    return Context(series=out, arrays=[view])


@dataclass(frozen=True)
class Method:
    """The parameters the training half chooses: the outlier rule's, and the step rule's alarm share."""

    outlier: OutlierParams
    step_alarm: float

    @classmethod
    def shipped(cls) -> Method:
        return cls(OutlierParams(), telemetry.STEP_ALARM)


def judge(ctx: Context, rules, method: Method, seed: int = -1) -> dict:
    """The findings of the counted rules on one case (its doctor's material), and whether each was evaluated."""
    with (
        mock.patch(
            "iolab.doctor.rules.arrays.find_outliers_by_class",
            lambda v, classes, **kw: find_outliers_by_class(v, classes, method.outlier, **kw),
        ),
        mock.patch.object(telemetry, "STEP_ALARM", method.step_alarm),
    ):
        findings = evaluate(ctx, rules)
    unevaluated = sorted({f.rule_id for f in findings if f.severity is Severity.NOT_EVALUATED})
    short = [s.point for s in ctx.series if len(s.values) < MIN_SERIES_SAMPLES]
    if unevaluated or short or len(ctx.arrays[0].together) < 3:
        raise SystemExit(f"seed {seed}: rules not evaluated {unevaluated}, short series {short[:3]}")
    return {
        rule: [f.subject for f in findings if f.rule_id == rule and f.severity in SERIOUS]
        for rule in {r.id for r in rules}
    }


def named(array: Array, fault: str, found: dict) -> bool:
    """Whether the planted fault was named by the rule that should name it."""
    hits = [subject for rule in FOUND_BY[fault] for subject in found.get(rule, [])]
    if fault == "slow":
        return all(f"d{d}" in hits for d in array.faults["slow"])
    if fault in ("dip", "step"):
        return any(subject.endswith(f": d{array.faults[fault][0]} read") for subject in hits)
    return WORKLOAD in hits


def rate(hits: int, total: int) -> dict:
    return {"hits": hits, "of": total, "rate": round(hits / total, 4) if total else None}


def normal_spread_alarms(params: OutlierParams, cases: int = 2000) -> float:
    """Share of clean arrays (4 to 32 drives) whose drives' levels spread normally on a log scale, with the
    standard deviation of the corpus's widest uniform spread (40%), in which the outlier test names a drive
    (every test of `find_outliers`, no noise known). The corpus draws bounded (uniform) spreads, whose ends
    have no stragglers; a cut chosen on those alone could rely on that, so the choice is held to this too."""
    rng = np.random.default_rng(33)
    sd = math.log1p(0.4) / 2 / math.sqrt(3)
    alarms = 0
    for _ in range(cases):
        y = rng.normal(0.0, sd, int(rng.integers(4, 33)))
        values = {f"d{i}": BASE * math.exp(v) for i, v in enumerate(y)}
        alarms += bool(find_outliers(values, params).outliers)
    return alarms / cases


def spread_bin(array: Array) -> str:
    low = min(int(array.spread * 10), 3) * 10
    return f"spread {low}-{low + 10}%"


def slow_drives(clean: Array, twin: Array) -> dict[int, float]:
    """Each planted slow drive's level over the median of the healthy drives' true levels."""
    slow = twin.faults["slow"]
    median = float(np.median([clean.levels[i] for i in range(clean.n) if i not in slow]))
    return {d: float(clean.levels[d] * f / median) for d, f in slow.items()}


def drive_recall(cases: list[tuple[Array, dict]]) -> dict[str, list[int]]:
    """Per drive at or below 60% of its peers' median, by spread bin: [named, drives] (given each slow twin
    with its ARR-OUTLIER subjects)."""
    bins: dict[str, list[int]] = {}
    for twin, (clean, hits) in cases:
        for d, ratio in slow_drives(clean, twin).items():
            if ratio <= 0.6:
                b = bins.setdefault(spread_bin(clean), [0, 0])
                b[0] += f"d{d}" in hits
                b[1] += 1
    return dict(sorted(bins.items()))


def choose(train: list[int], rules) -> tuple[Method, dict]:
    """The step rule's alarm share on the training half: the largest whose false steps stay under TRAIN_ALARMS.
    The outlier rule's parameters are chosen over the whole space of arrays by bench/outlier_envelope.py, which
    draws the spreads, sizes and noise this corpus does not (lognormal peers, 3 drives, t3 noise), and are
    taken as shipped here. Each case's material is drawn once."""
    contexts = [(seed, context(draw(seed))) for seed in train]
    step_rules = [r for r in rules if r.id == "TEL-STEP"]
    shipped = Method.shipped()

    def alarms(method: Method) -> float:
        return sum(bool(judge(ctx, step_rules, method, seed)["TEL-STEP"]) for seed, ctx in contexts) / len(contexts)

    step_grid = {a: alarms(replace(shipped, step_alarm=a)) for a in STEP_ALARMS}
    step = held_out.choose(STEP_ALARMS, lambda a: step_grid[a] <= TRAIN_ALARMS)
    grids = {"step_false_alarms_by_alarm": {str(a): round(x, 4) for a, x in step_grid.items()}}
    return replace(shipped, step_alarm=step), grids


def score(seeds: list[int], rules, method: Method, normal_cases: int = 2000) -> dict:
    """False alarms per rule on the clean cases, and recall per fault on their twins."""
    alarms = {rule: 0 for rule in RULES}
    recall: dict[str, list[int]] = {fault: [0, 0] for fault in FAULTS}
    case_bins: dict[str, list[int]] = {}
    slow_found: list[tuple[Array, tuple[Array, list[str]]]] = []
    lone_found: list[tuple[Array, tuple[Array, list[str]]]] = []
    other_alarms = 0
    for seed in seeds:
        clean = draw(seed)
        found = judge(context(clean), rules, method, seed)
        for rule in RULES:
            alarms[rule] += bool(found[rule])
        for fault in FAULTS:
            twin = plant(clean, fault)
            found_twin = judge(context(twin), rules, method, seed)
            hit = named(twin, fault, found_twin)
            recall[fault][0] += hit
            recall[fault][1] += 1
            if fault != "slow":
                continue
            if max(twin.faults["slow"].values()) <= 0.6:
                b = case_bins.setdefault(spread_bin(clean), [0, 0])
                b[0] += hit
                b[1] += 1
            slow_found.append((twin, (clean, found_twin["ARR-OUTLIER"])))
            if len(twin.faults["slow"]) == 1:
                lone_found.append(slow_found[-1])
            slow = {f"d{d}" for d in twin.faults["slow"]}
            other_alarms += any(s not in slow for s in found_twin["ARR-OUTLIER"])
    drives = drive_recall(slow_found)
    big = drive_recall([c for c in slow_found if c[1][0].n >= 8])
    at_most_60 = [sum(b[0] for b in case_bins.values()), sum(b[1] for b in case_bins.values())]
    return {
        "cases": len(seeds),
        "false_alarms": {rule: rate(alarms[rule], len(seeds)) for rule in RULES},
        "normal_spread_false_alarms": round(normal_spread_alarms(method.outlier, normal_cases), 4),
        "recall": {fault: rate(*recall[fault]) for fault in FAULTS},
        "recall_drive_at_most_60pct_of_peers": rate(
            sum(h for h, _ in drives.values()), sum(n for _, n in drives.values())
        ),
        "recall_drive_at_most_60pct_of_peers_by_spread": {k: rate(*v) for k, v in drives.items()},
        "recall_lone_drive_at_most_60pct_of_peers_by_spread": {
            k: rate(*v) for k, v in drive_recall(lone_found).items()
        },
        "recall_drive_at_most_60pct_of_peers_8_drives_or_more_by_spread": {k: rate(*v) for k, v in big.items()},
        "recall_slow_case_at_most_60pct_of_own_level": rate(*at_most_60),
        "recall_slow_case_at_most_60pct_of_own_level_by_spread": {k: rate(*v) for k, v in sorted(case_bins.items())},
        "slow_twins_with_another_drive_named": rate(other_alarms, len(seeds)),
    }


def chosen_values(method: Method) -> dict:
    return {"step alarm": method.step_alarm}


def print_figures(name: str, figures: dict) -> None:
    print(f"{name} arrays: {figures['cases']} clean and {figures['cases']} of each fault")
    for rule, r in figures["false_alarms"].items():
        print(f"  false alarms {rule:18s} {r['hits']:5d} of {r['of']} ({r['rate']:.2%})")
    print(f"  outlier alarms on normally spread arrays: {figures['normal_spread_false_alarms']:.2%}")
    for fault, r in figures["recall"].items():
        print(f"  recall {fault:11s} {r['hits']:5d} of {r['of']} ({r['rate']:.2%})")
    for label, key in (
        ("drives at or below 60% of their peers' median", "recall_drive_at_most_60pct_of_peers_by_spread"),
        ("  of them the only slow drive of their array", "recall_lone_drive_at_most_60pct_of_peers_by_spread"),
        ("  of them in arrays of 8 drives or more", "recall_drive_at_most_60pct_of_peers_8_drives_or_more_by_spread"),
        (
            "cases, every drive at or below 60% of its own level",
            "recall_slow_case_at_most_60pct_of_own_level_by_spread",
        ),
    ):
        bins = "; ".join(f"{k[7:]} {r['hits']}/{r['of']} ({r['rate']:.1%})" for k, r in figures[key].items())
        print(f"  recall, {label}: {bins}")


def main() -> int:
    split = held_out.corpus_args(__doc__.splitlines()[0], 2000, "simulated_arrays.json", FRESH_SEED)
    args, train = split.args, split.train
    rules = [r for r in all_rules() if r.id in RULES]
    started = time.perf_counter()
    normal_cases = min(2000, args.cases)  # arrays whose peers spread normally: as many as the corpus, up to 2,000
    method, grids = choose(train, rules)
    shipped = Method.shipped()
    figures = {
        "host": host(),
        "seeds": f"{split.seeds[0]}..{split.seeds[-1]}",
        "held_out_seeds": f"{split.fresh[0]}..{split.fresh[-1]}",
        "training": grids,
        "chosen": chosen_values(method),
        "shipped": chosen_values(shipped),
        "outlier_params": {
            "z cut": shipped.outlier.threshold,
            "t alarm": shipped.outlier.loo_alarm,
            "envelope alarm": shipped.outlier.envelope_alarm,
            "envelope sigma": shipped.outlier.envelope_sigma,
        },
        "validation": score(split.held_out, rules, method, normal_cases),
        "held_out": score(split.fresh, rules, method, normal_cases),
        "seconds": round(time.perf_counter() - started, 1),
    }
    write_result(args.out, "simulated_arrays", figures, smoke=args.smoke)
    print(f"chosen on {len(train)} training arrays: {figures['chosen']} (shipped {figures['shipped']})")
    for name, grid in grids.items():
        print(f"  training {name}: {grid}")
    print_figures("validation (odd seeds, looked at while the method was worked on)", figures["validation"])
    print_figures("fresh held-out", figures["held_out"])
    print(f"  took {figures['seconds']} s")
    return 0 if method == shipped or args.smoke else 1  # a smoke run checks the bench runs, not the choice


if __name__ == "__main__":
    sys.exit(main())
