"""A run's side figures outside fio: the plan's metric commands, and perf stat counting a point's window.

The commands are real programs; perf counts software events here (cpu-clock), which every kernel has,
to check what the hardware events go through on a host that has them: started with the ramp as its
delay, stopped by SIGINT through fio's keeper, its counts read back.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

from iolab.models import DirectionResult, Point, Result, Target
from iolab.models.side import PERF
from iolab.runner import phases
from iolab.runner.side import SideFigures
from iolab.store.db import Artifact

PERF_BIN = shutil.which("perf")


def side(metrics=(), notes: list[str] | None = None, **kwargs) -> SideFigures:
    said = notes if notes is not None else []
    return SideFigures(local=True, telemetry_off=False, note=said.append, metrics=metrics, **kwargs)


def test_a_metric_command_s_number_is_its_figure_and_anything_else_says_what_it_was():
    metrics = (
        ("answer", ("echo", "42")),
        ("exp", ("echo", "-1.5e3")),
        ("words", ("sh", "-c", "echo hello world")),
        ("long", ("sh", "-c", "echo " + "x" * 50)),
        ("nan", ("echo", "nan")),
        ("silent", ("true",)),
        ("failing", ("sh", "-c", "echo 7; exit 3")),
        ("missing", ("/nonexistent/command",)),
    )
    artifacts: list[Artifact] = []
    found = {m.name: (m.value, m.problem) for m in side(metrics).commands(artifacts)}
    assert found == {
        "cmd.answer": (42.0, ""),
        "cmd.exp": (-1500.0, ""),
        "cmd.words": (None, "not a number: 'hello world'"),
        "cmd.long": (None, "not a number: '" + "x" * 29 + "…'"),
        "cmd.nan": (None, "not a number: 'nan'"),
        "cmd.silent": (None, "no output"),
        "cmd.failing": (None, "command failed (exit 3)"),
        "cmd.missing": (None, "command failed ([Errno 2] No such file or directory: '/nonexistent/command')"),
    }
    assert [a.name for a in artifacts] == [f"metric-{name}-command" for name, _ in metrics]
    assert artifacts[0].data == b"echo 42\nexit 0\n42\n"


def test_a_metric_command_past_the_time_limit_is_stopped_and_the_run_goes_on(monkeypatch):
    monkeypatch.setattr(phases, "COMMAND_TIMEOUT_S", 0.3)
    started = time.monotonic()
    [figure] = side((("slow", ("sleep", "5")),)).commands([])
    assert time.monotonic() - started < 3
    assert (figure.value, figure.problem) == (None, "command failed (stopped after 0.3 s)")


def _point(ramp_s: int) -> Point:
    target = Target(path="/x", kind="file", filename="/x/f", size_bytes=1 << 20)
    return Point("p", target, {"rw": "randread", "ramp_time": str(ramp_s)})


@pytest.mark.skipif(PERF_BIN is None, reason="perf is not installed (apt-get install linux-perf)")
def test_perf_counts_from_the_end_of_the_ramp_until_it_is_stopped(tmp_path):
    figures = side(events=("cpu-clock",))
    if figures.problem() is not None:
        pytest.skip(f"perf cannot count here: {figures.problem()}")
    started = time.monotonic()
    figures.start(_point(ramp_s=1), tmp_path)
    time.sleep(2.0)
    counts = figures.stop()
    elapsed = time.monotonic() - started
    assert counts is not None
    window_s = (counts["duration_time"] or 0) / 1e9
    # perf counts from the end of the 1 s ramp until stopped: never the ramp, whatever the host's load
    assert 0 < window_s <= elapsed - 1.0 + 0.1, (window_s, elapsed)
    assert 0 < (counts["cpu-clock"] or 0) <= window_s * 1e3 * len(os.sched_getaffinity(0)) * 1.1
    assert figures.stop() is None  # nothing left counting


def test_without_perf_every_point_says_why_and_the_run_says_it_once(tmp_path):
    notes: list[str] = []
    figures = side(notes=notes, perf=None)
    result = Result({"read": DirectionResult("read", 4e8, 1e5, 100000, 4 * 10**8, 1000)}, 10.0, 20.0, 1, "")
    for _ in range(2):
        figures.start(_point(ramp_s=0), tmp_path)
        found = {m.name: m for m in figures.figures(_point(ramp_s=0), result, [], figures.stop())}
        assert found[PERF].problem.startswith("not available: perf is not installed")
        assert found["wire"].problem == found["host_cpu_us_per_io"].problem == "telemetry did not run"
    assert notes == [f"hardware counters not available: {figures.problem()}"]
