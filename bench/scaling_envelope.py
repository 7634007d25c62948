"""Does RES-NONMONOTONIC-SCALING name a real drop along a QD or thread sweep, and only a real one? (issue 40)

Generated sweeps of one parameter (iodepth or numjobs) over 1, 2, 4, ... 256 (nine points), the mean
bandwidth of each point over its repeats judged by `iolab.analysis.scaling.sweep_drop` exactly as the rule
calls it (each value against the best of the smaller ones; the noise from the repeats, else from the
per-second series of a point measured once, else a fixed 10%). The envelope, by bin:

- shape of the curve before any drop: "hard knee" (linear up to a knee at 2-64, flat after), "soft"
  (v / (v + K), K 1-64: a long slow approach), "flat" (saturated from QD 1: eight chances for a noisy
  plateau point to stand out) and "rising" (still climbing at 256, as v^0.3);
- noise: the run-to-run coefficient of variation of one repeat's mean, 1-2%, 2-5%, 5-10%;
- repeats: 1 with a per-second series (30 s, AR(1) phi 0.5; half the run-to-run variance lies between
  runs, where one run's seconds cannot see it), 1 without seconds (an imported result), 2, 3 and 5;
- drop: none, or from a random point on (the second to the last value) the bandwidth sits d below the
  best of the smaller values (adding parallelism made it slower), d in 5-10%, 10-20% and 20-40%.

A drop is found when the first finding names the dropped point or a later one; a finding on a sweep
without a drop, or before the drop, is a false alarm. Beside each bin, an oracle bound: a test that knows
the noise (the true standard error of each mean) with the rule's structure and its 5% floor, its threshold
set on the choose seeds so that it alarms on as many clean sweeps of the noise and repeats bin as iolab
does (at least 1%): the same false-alarm rate. Seeds: the choose half (even) sets
the oracle's thresholds and anything tuned in the rule; figures are reported on the odd seeds.

    .venv/bin/python bench/scaling_envelope.py [--sweeps 200] [--seed 40]

Writes bench/results/scaling_envelope.json.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from results_file import add_smoke_flag, host, write_result

from iolab.analysis.noise import relative_error
from iolab.analysis.scaling import MIN_DROP, SWEEP_ALARM, SweepLevel, sweep_drop

RESULT = Path(__file__).parent / "results" / "scaling_envelope.json"
VALUES = tuple(2**i for i in range(9))  # 1 .. 256
SHAPES = ("hard knee", "soft", "flat", "rising")
NOISE = ((0.01, 0.02), (0.02, 0.05), (0.05, 0.10))
REPEATS = ("1, seconds", "1, no seconds", "2", "3", "5")
DROPS = ((0.0, 0.0), (0.05, 0.10), (0.10, 0.20), (0.20, 0.40))
SECONDS = 30
PHI = 0.5
ORACLE_ALARM = 0.01  # the oracle's false alarms a clean sweep, at least (else iolab's own, when higher)
SCALE = 100_000.0  # the peak, in I/Os a second: per-second counts far above their rounding


@dataclass(frozen=True)
class Case:
    """One generated sweep: its truth and what the rule sees."""

    shape: str
    cv: float  # run-to-run noise of one repeat's mean
    repeats: str
    drop: float  # 0: none
    at: int  # index of the first dropped value (len(VALUES) when none)
    levels: tuple[SweepLevel, ...]  # as the rule sees them
    means: tuple[float, ...]  # the same means, for the oracle
    error: float  # the true relative standard error of each mean


def curve(shape: str, rng: random.Random) -> list[float]:
    """The true rate at each value, peak `SCALE`."""
    if shape == "hard knee":
        knee = 2 ** rng.randint(1, 6)
        raw = [min(v / knee, 1.0) for v in VALUES]
    elif shape == "soft":
        k = 2 ** rng.uniform(0, 6)
        raw = [v / (v + k) for v in VALUES]
    elif shape == "flat":
        raw = [1.0] * len(VALUES)
    else:
        raw = [v**0.3 for v in VALUES]
    top = max(raw)
    return [SCALE * x / top for x in raw]


def per_second(mean: float, sd: float, rng: random.Random) -> list[float]:
    """`SECONDS` seconds around `mean`, AR(1) noise of `sd` a second."""
    level, out = 0.0, []
    for _ in range(SECONDS + 2):  # the rule drops the first and last second
        level = PHI * level + rng.gauss(0, sd * math.sqrt(1 - PHI * PHI))
        out.append(mean * (1 + level))
    return out[1:-1]


def measure(truth: float, cv: float, repeats: str, rng: random.Random) -> tuple[SweepLevel, float]:
    """One point as the rule sees it (its mean and relative standard error) and the true error of that
    mean. One run with seconds: half the variance between runs, half within (the seconds see only that)."""
    if repeats.startswith("1"):
        between = cv / math.sqrt(2)
        run = truth * (1 + rng.gauss(0, between))
        if repeats == "1, no seconds":
            run = truth * (1 + rng.gauss(0, cv))
            return SweepLevel(0, run, None), cv
        # within-run: the mean of SECONDS AR(1) seconds has sd cv/sqrt(2) when a second's is this
        sd = between / math.sqrt((1 + PHI) / (1 - PHI) / SECONDS)
        seconds = per_second(run, sd, rng)
        error = relative_error(seconds)
        return SweepLevel(0, statistics.fmean(seconds), math.inf if error is None else error), cv
    n = int(repeats)
    runs = [truth * (1 + rng.gauss(0, cv)) for _ in range(n)]
    m = statistics.fmean(runs)
    return SweepLevel(0, m, statistics.stdev(runs) / math.sqrt(n) / m, n - 1), cv / math.sqrt(n)


def generate(seed: int, shape: str, noise: tuple[float, float], repeats: str, drop: tuple[float, float]) -> Case:
    rng = random.Random(seed)
    truth = curve(shape, rng)
    cv = rng.uniform(*noise)
    d = rng.uniform(*drop) if drop[1] else 0.0
    at = rng.randint(1, len(VALUES) - 1) if d else len(VALUES)
    if d:  # from `at` on, the level sits d below the best of the smaller values: the drop the rule should see
        truth = truth[:at] + [max(truth[:at]) * (1 - d)] * (len(VALUES) - at)
    levels, error = [], cv
    for value, t in zip(VALUES, truth, strict=True):
        level, error = measure(t, cv, repeats, rng)
        levels.append(replace(level, value=value))
    return Case(shape, cv, repeats, d, at, tuple(levels), tuple(x.mean for x in levels), error)


def rule_index(case: Case) -> int | None:
    """The index of the value the rule names (None: no finding; not-evaluated answers count as none)."""
    found = sweep_drop(case.levels)
    if found is None or not found.measured:
        return None
    return VALUES.index(found.value)


def oracle_index(case: Case, z: float) -> int | None:
    """The rule's structure with the true error: each value against the best smaller one, a drop beyond
    `MIN_DROP` and `z` true standard errors of the difference."""
    best = case.means[0]
    for i, m in enumerate(case.means[1:], start=1):
        drop = 1 - m / best
        if drop > MIN_DROP and drop > z * case.error * math.sqrt(2):
            return i
        best = max(best, m)
    return None


def calibrate(clean: list[Case]) -> float:
    """The smallest z at which the oracle alarms on no more of `clean` sweeps than iolab does, nor than
    `ORACLE_ALARM` of them if iolab alarms less (a grid of 0.05): the same false-alarm rate."""
    allowed = max(ORACLE_ALARM * len(clean), sum(rule_index(c) is not None for c in clean))
    z = 0.0
    while sum(oracle_index(c, z) is not None for c in clean) > allowed and z < 10:
        z += 0.05
    return round(z, 2)


def outcome(case: Case, index: int | None) -> str:
    """What a finding at `index` (None: no finding) means for `case`."""
    if not case.drop:
        return "quiet" if index is None else "alarm"
    if index is None:
        return "missed"
    return "found" if index >= case.at else "early"


def score(cases: list[Case], name: Callable[[Case], int | None]) -> dict:
    """Recall (a finding at or after the drop) on drop sweeps, false alarms on clean ones (any finding) and
    on drop sweeps before the drop."""
    counts = Counter(outcome(c, name(c)) for c in cases)
    dropped = counts["found"] + counts["early"] + counts["missed"]
    clean = counts["quiet"] + counts["alarm"]
    return {
        "sweeps": len(cases),
        "recall": _rate(counts["found"], dropped),
        "named_before_the_drop": _rate(counts["early"], dropped),
        "false_alarms": _rate(counts["alarm"], clean),
    }


def _rate(count: int, of: int) -> float | None:
    return count / of if of else None


def draw_bins(sweeps: int, seed: int) -> list[dict]:
    """Every bin's sweeps, dealt alternately to the choose and held-out halves (each half every shape)."""
    bins = []
    for k, (noise, repeats, drop) in enumerate(itertools.product(NOISE, REPEATS, DROPS)):
        cases: dict[str, list[Case]] = {"choose": [], "held-out": []}
        for j in range(2 * sweeps):
            shape = SHAPES[(j // 2) % len(SHAPES)]
            s = seed * 1_000_003 + k * 100_000 + j
            cases["choose" if j % 2 == 0 else "held-out"].append(generate(s, shape, noise, repeats, drop))
        bins.append({"noise": noise, "repeats": repeats, "drop": drop, "cases": cases})
    return bins


def oracle_thresholds(bins: list[dict]) -> dict:
    """The oracle's z for each noise x repeats, set on the clean sweeps of the choose half."""
    clean: dict[tuple, list[Case]] = {}
    for b in bins:
        if not b["drop"][1]:
            clean.setdefault((b["noise"], b["repeats"]), []).extend(b["cases"]["choose"])
    return {key: calibrate(cases) for key, cases in clean.items()}


def run(sweeps: int, seed: int) -> dict:
    bins = draw_bins(sweeps, seed)
    zs = oracle_thresholds(bins)
    rows = []
    for b in bins:
        held = b["cases"]["held-out"]
        z = zs[(b["noise"], b["repeats"])]
        row = {"noise": _band(b["noise"]), "repeats": b["repeats"], "drop": _band(b["drop"]) if b["drop"][1] else "none",
               "iolab": score(held, rule_index), "oracle": score(held, lambda c, z=z: oracle_index(c, z)),
               "oracle_z": z}  # fmt: skip
        row["by_shape"] = {s: score([c for c in held if c.shape == s], rule_index) for s in SHAPES}
        rows.append(row)
    return {"bins": rows, "by_axis": axes(rows)}


def axes(rows: list[dict]) -> dict:
    """Recall on drop bins and false alarms on clean ones, pooled along each axis."""
    out: dict = {}
    for axis in ("noise", "repeats", "drop"):
        out[axis] = {}
        for value in dict.fromkeys(r[axis] for r in rows):
            sel = [r for r in rows if r[axis] == value]
            out[axis][value] = {who: _pool([r[who] for r in sel]) for who in ("iolab", "oracle")}
    return out


def _pool(parts: list[dict]) -> dict:
    rec = [p for p in parts if p["recall"] is not None]
    fa = [p for p in parts if p["false_alarms"] is not None]
    return {
        "recall": statistics.fmean(p["recall"] for p in rec) if rec else None,
        "false_alarms": statistics.fmean(p["false_alarms"] for p in fa) if fa else None,
    }


def _band(band: tuple[float, float]) -> str:
    return f"{band[0]:.0%}-{band[1]:.0%}"


def _pct(x: float | None) -> str:
    return "   –  " if x is None else f"{x:6.1%}"


def table(rows: list[dict]) -> None:
    print(f"{'noise':>7} {'repeats':>14} {'drop':>8} | {'iolab':>6} {'oracle':>6} | {'alarms':>6} {'oracle':>6} "
          f"{'early':>6}")  # fmt: skip
    for r in rows:
        i, o = r["iolab"], r["oracle"]
        print(f"{r['noise']:>7} {r['repeats']:>14} {r['drop']:>8} | {_pct(i['recall'])} {_pct(o['recall'])} | "
              f"{_pct(i['false_alarms'])} {_pct(o['false_alarms'])} {_pct(i['named_before_the_drop'])}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweeps", type=int, default=200, help="held-out sweeps a bin (as many to choose on)")
    parser.add_argument("--seed", type=int, default=40)
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.sweeps = 4
    started = time.monotonic()
    out = run(args.sweeps, args.seed)
    table(out["bins"])
    for axis, values in out["by_axis"].items():
        for value, f in values.items():
            print(f"{axis} {value}: recall {_pct(f['iolab']['recall'])} (oracle {_pct(f['oracle']['recall'])}), "
                  f"false alarms {_pct(f['iolab']['false_alarms'])} (oracle {_pct(f['oracle']['false_alarms'])})")  # fmt: skip
    figures = {"host": host(), "sweeps_per_bin": args.sweeps, "seed": args.seed, "values": VALUES,
               "sweep_alarm": SWEEP_ALARM, "min_drop": MIN_DROP, **out,
               "seconds": round(time.monotonic() - started, 1)}  # fmt: skip
    write_result(RESULT, "scaling_envelope", figures, smoke=args.smoke)


if __name__ == "__main__":
    main()
