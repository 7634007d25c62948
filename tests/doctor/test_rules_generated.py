"""The run-level rules on generated figures, the degenerate ones users' throttles, stalls and identical drives
make: arrays whose peers read exactly alike (a spread of zero: a leave-out t of -inf was once printed), a drive
that did nothing, one drive alone; constant per-second rates; identical repeats; flat queue-depth sweeps. Whatever
the input, each finding reads as a person would (`iolab.models.finding.UNREADABLE`) and no rule fails on it."""

from __future__ import annotations

import random

from iolab.doctor.derived import PointSeries, RepeatSet
from iolab.doctor.engine import all_rules, diagnose_run, evaluate
from iolab.doctor.rule import Context
from iolab.models.material import RunMaterial
from tests.doctor.test_qd_curve_rules import sweep
from tests.doctor.test_run_rules import MB, array, readable

# Draws of each generator. Its inputs are discrete choices (6 array shapes x 1-12 drives, 5 figure shapes x 1-40
# seconds, 3-4 bases): 400 draws meet each (shape, array size) pair about 5 times, which 1,500 and 300 (9.7 CPU-s
# a run) only repeated. Switched off, the guards of unreadable figures fail the tests at these sizes too: a zero
# spread's score (`arrays._score` printing inf) and a non-finite rate (`telemetry._mb` printing nan).
ARRAYS, SERIES, SWEEPS = 400, 400, 100


def _values(rng: random.Random, devices: list[str]) -> dict[str, float]:
    shape = rng.choice(["identical", "one-slow", "one-zero", "two-levels", "spread", "tiny"])
    base = rng.choice([50.0, 219.0, 1_433.0])
    values = {d: base for d in devices}
    if shape == "one-slow":
        values[rng.choice(devices)] = base * rng.choice([0.05, 0.2, 0.5, 0.94])
    elif shape == "one-zero":
        values[rng.choice(devices)] = 0.0
    elif shape == "two-levels":
        values.update({d: base / 3 for d in devices[: len(devices) // 2]})
    elif shape == "spread":
        values = {d: base * rng.uniform(0.6, 1.4) for d in devices}
    elif shape == "tiny":
        values = {d: rng.choice([1e-6, 1e-3]) for d in devices}
    return values


def test_array_rules_read_well_and_never_fail_on_degenerate_arrays() -> None:
    rng = random.Random(33)
    array_rules = [r for r in all_rules() if r.needs == "arrays"]
    assert len(array_rules) >= 4, [r.id for r in array_rules]
    named = set()
    for _ in range(ARRAYS):
        devices = [f"loop{i}" for i in range(rng.randint(1, 12))]
        together, alone = _values(rng, devices), _values(rng, devices)
        sets = []
        for size in range(2, len(devices) + 1):
            members = tuple(devices[:size])
            sets.append((members, sum(alone[d] for d in members) * rng.choice([0.5, 0.9, 1.0, 1.0])))
        findings = evaluate(Context(arrays=[array(together, alone, sets)]), array_rules)
        readable(findings)
        named |= {f.rule_id for f in findings if f.severity.rank < 3}
    assert "ARR-OUTLIER" in named, named  # the generator made the arrays the rules are for


def _degenerate(rng: random.Random, n: int) -> list[float]:
    """n figures the way throttles, stalls and identical repeats make them."""
    base = rng.choice([1e-3, 50.0, 219.0, 2_000.0])
    shape = rng.choice(["constant", "one-zero", "step", "one-spike", "spread"])
    values = [base] * n
    if shape == "one-zero":
        values[rng.randrange(n)] = 0.0
    elif shape == "step":
        cut = rng.randrange(n)
        values = [base if i < cut else base * rng.choice([0.2, 0.5, 1.5]) for i in range(n)]
    elif shape == "one-spike":
        values[rng.randrange(n)] = base * rng.choice([0.01, 0.3, 3.0])
    elif shape == "spread":
        values = [base * rng.uniform(0.5, 1.5) for _ in range(n)]
    return values


def test_series_curve_and_repeat_rules_read_well_and_never_fail_on_degenerate_figures() -> None:
    """The same for the rules of per-second series (a constant rate: zero noise), repeats (identical, a zero)
    and, through the whole diagnosis of stored records, queue-depth sweeps (flat, identical levels)."""
    rng = random.Random(31)
    rules = [r for r in all_rules() if r.needs in ("series", "repeats")]
    assert len(rules) >= 4, [r.id for r in rules]
    fired: set[str] = set()
    for _ in range(SERIES):
        values = _degenerate(rng, rng.randint(1, 40))
        one = PointSeries("p", "all jobs", [float(t) for t in range(1, len(values) + 1)], [v * MB for v in values])
        repeats = _degenerate(rng, rng.randint(2, 10))
        metric = rng.choice(["bw", "iops", "lat_mean"])
        context = Context(series=[one], repeats=[RepeatSet("w", metric, list(range(len(repeats))), repeats)])
        findings = evaluate(context, rules)
        readable(findings)
        fired |= {f.rule_id for f in findings if f.severity.rank < 3}
    by_need = {need: {r.id for r in rules if r.needs == need} for need in ("series", "repeats")}
    assert all(ids & fired for ids in by_need.values()), (by_need, fired)  # the generator reached both kinds
    answered = set()
    for _ in range(SWEEPS):
        levels = [max(v, 1e-3) * 1000 for v in _degenerate(rng, rng.randint(1, 8))]
        findings = diagnose_run(RunMaterial(records=sweep({2**i: iops for i, iops in enumerate(levels)})))
        readable(findings)
        answered |= {f.rule_id for f in findings}
    assert {"RES-QD-KNEE", "RES-QD-PEAK"} <= answered, answered  # the sweeps were curves the rules answered
