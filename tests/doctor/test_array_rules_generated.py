"""Every array rule on generated arrays, the degenerate ones users' throttles and identical drives make: peers
that read exactly alike (a spread of zero: a leave-out t of -inf was once printed), a drive that did nothing,
two of everything, one drive alone, sets of members. Whatever the input, each finding reads as a person would
(`iolab.models.finding.UNREADABLE`) and no rule fails on it."""

from __future__ import annotations

import random

from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context
from tests.doctor.test_run_rules import array, readable


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
    for _ in range(1_500):
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
