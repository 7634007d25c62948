"""A metric command's readings over a point's measured seconds: mean and largest, never a missing reading
counted as 0, and readings before the measured seconds (fio's ramp) left out."""

from __future__ import annotations

import random

from iolab.analysis.side import gauge_metrics
from iolab.models.side import GaugeReading


def test_mean_and_max_of_the_readings_inside_the_measured_seconds():
    readings = [GaugeReading(1000, 0.0), GaugeReading(2000, 30.0), GaugeReading(3000, 32.0), GaugeReading(4000, 28.0)]
    found = {m.name: (m.value, m.problem) for m in gauge_metrics("inflight", readings, start_ms=2000)}
    assert found == {"cmd.inflight": (30.0, ""), "cmd.inflight.max": (32.0, "")}


def test_readings_without_a_number_are_counted_and_named_not_averaged_in():
    readings = [GaugeReading(1000, 10.0), GaugeReading(2000, None, "command failed (exit 1)"), GaugeReading(3000, 20.0)]
    found = {m.name: (m.value, m.problem) for m in gauge_metrics("q", readings, start_ms=0)}
    why = "1 of 3 readings without a number (command failed (exit 1))"
    assert found == {"cmd.q": (15.0, why), "cmd.q.max": (20.0, why)}
    [none] = gauge_metrics("q", [GaugeReading(1000, None, "not a number: 'busy'")], start_ms=0)
    assert (none.name, none.value, none.problem) == ("cmd.q", None, "not a number: 'busy'")
    [empty] = gauge_metrics("q", [], start_ms=0)
    assert empty.value is None and "no reading inside the measured seconds" in empty.problem


def test_generated_readings_mean_lies_within_their_range_and_max_is_the_largest():
    rng = random.Random(42)
    for _ in range(2000):
        n = rng.randint(1, 20)
        values = [rng.choice([0.0, rng.uniform(-1e6, 1e6), rng.uniform(0, 64)]) for _ in range(n)]
        readings = [GaugeReading(1000 * (i + 1), v) for i, v in enumerate(values)]
        start = rng.randint(0, 1000 * n)
        kept = [v for i, v in enumerate(values) if 1000 * (i + 1) >= start]
        found = {m.name: m.value for m in gauge_metrics("g", readings, start)}
        if not kept:
            assert found == {"cmd.g": None}
            continue
        mean, top = found["cmd.g"], found["cmd.g.max"]
        assert mean is not None and top == max(kept)
        assert min(kept) - 1e-6 <= mean <= top + 1e-6
