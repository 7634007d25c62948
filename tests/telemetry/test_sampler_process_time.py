"""The other processes' CPU samples are dated where their interval ends: at stop(), ms since the first reading,
as the last interval's device samples are (a chart and the interference rule place them on the run's own time
axis). tests/telemetry/test_sampler_fake_proc.py read their values, not their time (fresh seed 78612 found
`t1 - self._t0` turned `+` survived)."""

from __future__ import annotations

import time

from iolab.probe.root import Root
from iolab.telemetry import processes
from iolab.telemetry.sampler import PROC_CPU, Sampler
from tests.telemetry.test_sampler_fake_proc import _proc


def test_the_other_processes_samples_are_dated_at_the_end_of_the_run_on_its_own_axis(tmp_path):
    hz = processes._CLOCK_TICKS
    _proc(tmp_path, 100, 8000, 0, 100, 5000, {41: 0})
    sampler = Sampler(["sdb"], interval_s=60.0, interfaces=[], root=Root(tmp_path))
    started = time.monotonic()
    sampler.start()
    _proc(tmp_path, 300, 8000 + 4096, 200, 160, 5000, {41: hz})
    sampler.stop()
    elapsed_ms = (time.monotonic() - started) * 1000
    samples = sampler.samples()
    last = max(s.t_ms for s in samples if s.metric != PROC_CPU)
    (job,) = [s for s in samples if s.metric == PROC_CPU]
    assert job.source == "job 41"
    assert 0 <= job.t_ms <= elapsed_ms + 1
    assert abs(job.t_ms - last) <= 1000  # the same end as the last interval's, within a reading's time
