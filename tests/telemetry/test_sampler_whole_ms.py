"""The sampler's readings as the store keeps them: each sample's time is a whole millisecond (the store's
column and every series are integer ms) at the end of its interval, counted from the sampler's start, the same
for every metric of one reading, and rising from one reading to the next."""

from __future__ import annotations

import time

from iolab.telemetry import Sampler


def test_every_sample_is_at_a_whole_millisecond_from_the_start_rising_per_reading():
    started = time.monotonic()
    with Sampler([], interval_s=0.1) as sampler:
        time.sleep(0.25)
    took_ms = (time.monotonic() - started) * 1000
    samples = sampler.samples()
    readings = sorted({s.t_ms for s in samples if s.metric.startswith("cpu.")})
    assert len(readings) >= 2 and all(type(s.t_ms) is int for s in samples)
    assert 0 < readings[0] and readings[-1] <= took_ms + 1
    assert readings == sorted(set(readings))
