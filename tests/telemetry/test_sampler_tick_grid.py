"""The sampling thread's clock (issue 41: `bench/mutation.py --whole` found its tick arithmetic covered by no
test, since coverage.py gives the thread's lines to none): readings fall on whole intervals from the first one;
a thread descheduled past some ticks skips them, with no burst of readings to catch up, and takes the next on
the same grid. Run here in the test's own thread, on a clock the test moves."""

from __future__ import annotations

from iolab.telemetry import sampler as sampler_module
from iolab.telemetry.sampler import Sampler

SECOND = 1_000_000_000
START = 7_345_678_901  # the first reading: monotonic time does not start at 0


class _Clock:
    """monotonic_ns, and a stop event whose wait moves it on: time passes only when the thread sleeps or
    is held up."""

    def __init__(self, readings: int, stalls: dict[int, int]) -> None:
        self.now, self.readings, self.stalls, self.taken = START, readings, stalls, []

    def monotonic_ns(self) -> int:
        return self.now

    def wait(self, timeout: float) -> bool:
        self.now += round(timeout * SECOND)
        return len(self.taken) >= self.readings

    def take(self) -> None:
        self.taken.append(self.now)
        self.now += self.stalls.get(len(self.taken), 0)


def _ticks(monkeypatch, interval_s: float, readings: int, stalls: dict[int, int]) -> list[float]:
    clock = _Clock(readings, stalls)
    monkeypatch.setattr(sampler_module.time, "monotonic_ns", clock.monotonic_ns)
    sampler = Sampler(cpu=False, interfaces=[], interval_s=interval_s)
    monkeypatch.setattr(sampler, "_stop", clock)
    monkeypatch.setattr(sampler, "_take", clock.take)
    sampler._t0 = START
    sampler._run()
    return [(t - START) / SECOND for t in clock.taken]


def test_readings_fall_on_whole_intervals_from_the_first(monkeypatch):
    assert _ticks(monkeypatch, 1.0, 4, {}) == [1.0, 2.0, 3.0, 4.0]


def test_a_stall_past_ticks_skips_them_and_keeps_the_grid(monkeypatch):
    # held up 2.5 s after the reading at 2 s: the ticks at 3 and 4 s are skipped, not taken at once
    assert _ticks(monkeypatch, 1.0, 5, {2: 5 * SECOND // 2}) == [1.0, 2.0, 5.0, 6.0, 7.0]
    assert _ticks(monkeypatch, 0.5, 4, {1: 7 * SECOND // 10}) == [0.5, 1.5, 2.0, 2.5]
