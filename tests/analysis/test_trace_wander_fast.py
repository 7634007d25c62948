"""`trace_wander` runs at every stop decision, once a second: it takes the variogram of the kept seconds' block
means from prefix sums of squares and an FFT autocovariance, O(blocks log blocks), not lag by lag (O(blocks²):
46 ms a decision at 7,200 s). Its figure is the definition's (`by_definition`, the variogram taken lag by lag,
as it was computed before) within 1e-9 of the larger of the figure and the prior `LEVEL` (rounding only: the
two differ by ~1e-12 of the variogram's scale), on generated traces of every shape and length and on fio's
real per-second logs under tests/data; and the stops decided with it are those decided with the definition.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from iolab.analysis import stopping
from iolab.analysis.stopping import LEVEL, LEVEL_BLOCK_S, batch_means, decide, mean, trace_wander

DATA = Path(__file__).parent.parent / "data" / "fio" / "stopping"
TOLERANCE = 1e-9


def by_definition(values: list[float]) -> float:
    """The variogram's slope as defined (`trace_wander`'s docstring), each lag's mean squared difference summed
    term by term."""
    centre = mean(values) if values else 0.0
    n = len(values) // LEVEL_BLOCK_S
    if n < 6 or centre == 0:
        return 0.0
    blocks = [b / centre for b in batch_means(values[len(values) - n * LEVEL_BLOCK_S :], LEVEL_BLOCK_S)]
    lags = range(1, n // 3 + 1)
    gamma = [mean([(blocks[i + k] - blocks[i]) ** 2 for i in range(n - k)]) for k in lags]
    xs = [float(k * LEVEL_BLOCK_S) for k in lags]
    xm, ym = mean(xs), mean(gamma)
    sxx = sum((x - xm) ** 2 for x in xs)
    return max(sum((x - xm) * (g - ym) for x, g in zip(xs, gamma, strict=True)) / sxx, 0.0)


def trace(kind: str, seconds: int, seed: int) -> list[float]:
    """A per-second rate of one shape: a random walk (of `LEVEL` or 30 times it), white noise, a step, a ramp, a
    wave, stalls to 0, whole I/O counts; its level anywhere from 1 to 1e9."""
    rng = random.Random(f"{kind}-{seconds}-{seed}")
    scale = 10 ** rng.uniform(0, 9)
    cv = rng.choice((0.001, 0.02, 0.3))
    level, out = 1.0, []
    for second in range(seconds):
        if kind == "walk":
            level += rng.gauss(0, math.sqrt(LEVEL))
        elif kind == "wild walk":
            level = abs(level + rng.gauss(0, math.sqrt(30 * LEVEL)))
        elif kind == "step":
            level = 1.0 if second < seconds * rng.uniform(0.2, 0.8) else 0.7
        elif kind == "ramp":
            level = 1.0 + second / seconds
        elif kind == "wave":
            level = 1.0 + 0.1 * math.sin(second / 40)
        value = scale * level * (1 + rng.gauss(0, cv))
        if kind == "stalls" and rng.random() < 0.05:
            value = 0.0
        out.append(float(round(value)) if kind == "counts" else value)
    return out


KINDS = ("walk", "wild walk", "white", "step", "ramp", "wave", "stalls", "counts")
SECONDS = (0, 29, 30, 31, 34, 61, 299, 300, 1_801, 7_200)


def close(fast: float, defined: float) -> bool:
    return abs(fast - defined) <= TOLERANCE * max(defined, LEVEL)


@pytest.mark.parametrize("kind", KINDS)
def test_the_figure_is_the_definitions_on_generated_traces(kind: str) -> None:
    for seconds in SECONDS:
        for seed in range(1 if seconds > 1_000 else 4):
            values = trace(kind, seconds, seed)
            fast, defined = trace_wander(values), by_definition(values)
            assert close(fast, defined), (kind, seconds, seed, fast, defined)
    assert trace_wander([0.0] * 300) == 0.0 and trace_wander([5.0] * 29) == 0.0  # no mean, or under six blocks


def real_traces() -> list[list[float]]:
    """fio's per-second logs here (time, value, direction, ...), and the throttled fall's rates (one a line)."""
    traces = []
    for path in sorted(DATA.glob("*_iops.1.log")):
        traces.append([float(line.split(",")[1]) for line in path.read_text().splitlines() if line.strip()])
    fall = DATA / "loop-throttle-fall_iops.txt"
    traces.append([float(line.split()[-1]) for line in fall.read_text().splitlines() if line.strip()])
    return traces


def test_the_figure_is_the_definitions_on_real_logs() -> None:
    traces = real_traces()
    assert len(traces) == 3 and all(len(t) >= 15 for t in traces)
    for values in traces:
        # every prefix, as the decisions of a run see them, and the trace repeated to a long run
        for end in range(len(values) + 1):
            assert close(trace_wander(values[:end]), by_definition(values[:end]))
        long = values * (3_600 // len(values))
        assert close(trace_wander(long), by_definition(long))


def test_the_stops_are_those_the_definition_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every sixth second of generated 300 s traces decided both ways (at ±2%: walks and white noise that stop,
    a wild walk and a step that do not): the same stop, reason and warm-up cut, the interval within rounding."""
    stops = 0
    for kind, seed in (("walk", 1), ("walk", 2), ("white", 1), ("wild walk", 0), ("step", 0)):
        values = trace(kind, 300, seed)
        decisions = []
        for wander in (trace_wander, by_definition):
            monkeypatch.setattr(stopping, "trace_wander", wander)
            decisions.append([decide(values[:n], 0.02, 10, 300, horizon_s=300) for n in range(1, 301, 6)])
        for fast, defined in zip(*decisions, strict=True):
            assert (fast.stop, fast.reason, fast.discarded, fast.steady) == (
                defined.stop,
                defined.reason,
                defined.discarded,
                defined.steady,
            )
            if defined.interval is not None:
                assert fast.interval is not None
                assert math.isclose(fast.interval.half_width, defined.interval.half_width, rel_tol=1e-9)
            stops += defined.stop
    assert stops >= 20  # decisions that stop are among those compared
