"""A run's side figures outside fio: the plan's metric commands read while the point runs, and perf stat
counting a point's window.

The commands are real programs; perf counts software events here (cpu-clock), which every kernel has,
to check what the hardware events go through on a host that has them: started before fio, stopped by
SIGINT through fio's keeper, its intervals read back and cut to fio's measured seconds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

from iolab.fio.parse import aggregate, parse_output
from iolab.models import DirectionResult, Point, Result, Target
from iolab.models.side import PERF
from iolab.runner import gauges, phases
from iolab.runner.measure import _fio_startup
from iolab.runner.side import SideFigures, measured_counts
from iolab.store.db import Artifact
from iolab.telemetry import Sampler

PERF_BIN = shutil.which("perf")
FIO_BIN = shutil.which("fio")


def side(metrics=(), notes: list[str] | None = None, **kwargs) -> SideFigures:
    said = notes if notes is not None else []
    return SideFigures(local=True, telemetry_off=False, note=said.append, metrics=metrics, **kwargs)


def test_a_metric_command_s_number_is_its_reading_and_anything_else_says_what_it_was():
    commands = {
        ("echo", "42"): (42.0, ""),
        ("echo", "-1.5e3"): (-1500.0, ""),
        ("sh", "-c", "echo hello world"): (None, "not a number: 'hello world'"),
        ("sh", "-c", "echo " + "x" * 50): (None, "not a number: '" + "x" * 29 + "…'"),
        ("echo", "nan"): (None, "not a number: 'nan'"),
        ("true",): (None, "no output"),
        ("sh", "-c", "echo 7; exit 3"): (None, "command failed (exit 3)"),
        ("/nonexistent/command",): (
            None,
            "command failed ([Errno 2] No such file or directory: '/nonexistent/command')",
        ),
    }
    for argv, expected in commands.items():
        assert gauges.read_once(argv)[:2] == expected, argv


def test_a_metric_command_past_the_time_limit_is_stopped_and_the_run_goes_on(monkeypatch):
    monkeypatch.setattr(phases, "COMMAND_TIMEOUT_S", 0.3)
    started = time.monotonic()
    value, problem, _ = gauges.read_once(("sleep", "5"))
    assert time.monotonic() - started < 3
    assert (value, problem) == (None, "command failed (stopped after 0.3 s)")


def test_metric_commands_are_read_every_interval_while_the_point_runs_and_kept_as_one_artifact(tmp_path):
    """A gauge that is 5 while the 'point' runs and 0 after it: read during the point, it is 5 (before
    issue 42 it was read once afterwards, and an in-flight counter always read 0)."""
    flag = tmp_path / "running"
    flag.write_text("5")
    metrics = (("gauge", ("cat", str(flag))), ("words", ("echo", "busy")))
    sampler = gauges.GaugeSampler(metrics, interval_s=0.1)
    sampler.start()
    time.sleep(0.65)
    artifacts: list[Artifact] = []
    readings = sampler.stop(artifacts)
    flag.write_text("0")  # the point is over
    gauge = readings["gauge"]
    assert 3 <= len(gauge) <= 7, gauge  # ticks at 0.1 s .. 0.6 s, a loaded host may skip some
    assert [r.value for r in gauge] == [5.0] * len(gauge)
    assert all(b.t_ms - a.t_ms >= 50 for a, b in zip(gauge, gauge[1:], strict=False))  # never a burst
    assert gauge[0].t_ms >= 100  # the first reading a tick after the start, as telemetry's
    assert {r.problem for r in readings["words"]} == {"not a number: 'busy'"}
    assert [a.name for a in artifacts] == ["metric-gauge", "metric-words"]
    log = artifacts[0].data.decode().splitlines()
    assert log[0] == f"cat {flag}" and len(log) == len(gauge) + 1 and log[1].endswith("s exit 0: 5")


def test_side_figures_turn_a_point_s_readings_into_mean_and_max_over_its_measured_seconds(tmp_path):
    figures = side((("gauge", ("sh", "-c", "echo 7")),))
    figures.start(_point(ramp_s=0), tmp_path)
    time.sleep(1.3)
    figures.stop()
    result = Result({"read": DirectionResult("read", 4e8, 1e5, 100000, 4 * 10**8, 1000)}, 10.0, 20.0, 1, "")
    artifacts: list[Artifact] = []
    found = {m.name: (m.value, m.problem) for m in figures.commands(_point(ramp_s=0), result, artifacts)}
    assert found == {"cmd.gauge": (7.0, ""), "cmd.gauge.max": (7.0, "")}
    assert [a.name for a in artifacts] == ["metric-gauge"]
    # a ramp longer than the point leaves no reading inside the measured seconds: said, never a 0
    found = {m.name: (m.value, m.problem) for m in figures.commands(_point(ramp_s=5), result, [])}
    assert found == {"cmd.gauge": (None, "no reading inside the measured seconds (fio ended before the first)")}


def _point(ramp_s: int) -> Point:
    target = Target(path="/x", kind="file", filename="/x/f", size_bytes=1 << 20)
    return Point("p", target, {"rw": "randread", "ramp_time": str(ramp_s)})


@pytest.mark.skipif(PERF_BIN is None or FIO_BIN is None, reason="needs perf and fio (apt-get install linux-perf fio)")
def test_perf_counts_a_real_fio_s_measured_seconds_and_not_its_own_run(tmp_path):
    """The real perf counting a software event (cpu-clock: every CPU's clock, busy or idle) beside a real fio that
    lays out a scratch file, ramps 1 s and measures 0.5 s, perf and the samplers started and stopped as the runner
    does. The seconds counted are fio's measured ones, all inside what perf counted, not perf's whole run (the
    layout, the ramp and fio's exit too: counted whole before), and cpu-clock over them is every CPU's time."""
    figures = side(events=("cpu-clock",))
    if figures.problem() is not None:
        pytest.skip(f"perf cannot count here: {figures.problem()}")
    scratch = tmp_path / "scratch"
    options = {"rw": "randread", "bs": "4k", "size": "8m", "ramp_time": "1", "runtime": "500ms", "time_based": "1"}
    point = Point("p", Target(path=str(tmp_path), kind="file", filename=str(scratch), size_bytes=8 << 20), options)
    argv = [
        FIO_BIN,
        "--name=p",
        f"--filename={scratch}",
        "--output-format=json",
        *(f"--{k}={v}" for k, v in options.items()),
    ]
    figures.start(point, tmp_path)
    sampler = Sampler(interval_s=0.25, cpu=True)
    sampler.start()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    counted = figures.stop()
    sampler.stop()
    assert done.returncode == 0, done.stderr
    assert counted is not None
    parsed = parse_output(done.stdout)
    result = aggregate([e for group in parsed.groups for e in group.entries])
    startup = _fio_startup(sampler.samples(), sampler.started_ms, parsed, point)
    counts, seconds = measured_counts(counted, point, result, startup or 0, sampler.started_ms)
    runtime_s = max(d.runtime_ms for d in result.directions.values()) / 1000
    assert 0 <= counted.zero_ms - counted.launched_ms < 2000  # perf's zero: after its launch, on the same clock
    # the window inside perf's intervals: it ends at fio's stamp, written before fio exits and perf is stopped
    # (50 ms for the stamp's own error: some 15 ms, `fio_startup_ms`)
    assert runtime_s - 0.05 <= seconds <= runtime_s + 1e-6
    assert counted.intervals[-1].end_s >= seconds + 1.0  # perf counted the ramp and more, which stay out
    cpus = os.sysconf("SC_NPROCESSORS_ONLN")  # what -a counts: every online CPU, whatever this process may use
    assert counts["cpu-clock"] == pytest.approx(cpus * 1000 * seconds, rel=0.1)
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
