"""A point's side figures: hardware counters and the plan's metric commands while fio runs, then what
explains its I/O rate.

While fio runs, `perf stat -a` counts cycles and last-level cache traffic every quarter second from just
before fio starts until fio exits (this host only: in a multi-host run fio's jobs run elsewhere), and the
plan's metric commands are read every second (`iolab.runner.gauges`, on this host). After it, the figures
are computed from what was sampled (`iolab.analysis.side`), each over fio's measured seconds, perf's counts
too: every figure, or why it is missing, is stored with the point. perf counts in the kernel and prints its
counts four times a second; a metric command costs a process start a second.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from iolab import programs
from iolab.analysis.side import WIRE_THRESHOLD, gauge_metrics, host_cpu_metric, perf_figures, wire_metrics, wire_traffic
from iolab.fio.run import KEEPER
from iolab.models import Point, PointMetric, Result, Sample
from iolab.models.side import HOST_CPU_US_PER_IO, PERF, WIRE, GaugeReading, measured_from_ms, measured_until_ms
from iolab.runner.gauges import GaugeSampler
from iolab.store.db import Artifact
from iolab.telemetry.perf import (
    EVENTS,
    Counted,
    counting_zero_ms,
    find_perf,
    parse_interval_csv,
    perf_problem,
    stat_command,
)

PERF_STOP_S = 5.0  # perf writes its counts within milliseconds of SIGINT; past this it is killed
TELEMETRY = ("cpu.", "net.")  # metric prefixes of the sampler's samples (fio's logs have none of them)


@dataclass
class _Counting:
    """`perf stat` running under fio's keeper for one point."""

    proc: subprocess.Popen
    output: Path
    held: int  # the lifeline's write end: closing it (or iolab dying) makes the keeper kill perf
    launched_ms: float  # the wall clock just before perf was started (`telemetry.perf.counting_zero_ms`)


@dataclass
class SideFigures:
    """Works out each point's side figures for one run; says once per run what it cannot count, and why."""

    local: bool  # fio runs on this host (`Executor.local`): its CPUs and counters are the ones fio used
    telemetry_off: bool  # the user turned telemetry off (`--no-telemetry`)
    note: Callable[[str], None]  # what the run should say, once (`Measurer.note`)
    metrics: tuple[tuple[str, tuple[str, ...]], ...] = ()  # the plan's (name, argv) metric commands
    perf: str | None = field(default_factory=find_perf)
    events: tuple[str, ...] = EVENTS  # what perf counts (`iolab.analysis.side.perf_figures` reads these)
    _perf_problem: str | None = field(default=None, init=False)
    _perf_probed: bool = field(default=False, init=False)
    _counting: _Counting | None = field(default=None, init=False)
    _gauges: GaugeSampler | None = field(default=None, init=False)
    _readings: dict[str, list[GaugeReading]] = field(default_factory=dict, init=False)  # the last point's
    _gauge_log: list[Artifact] = field(default_factory=list, init=False)  # what each reading printed

    # -- while fio runs ----------------------------------------------------
    def start(self, point: Point, workdir: Path) -> None:
        """Start counting hardware events for `point` when this host can (the measured seconds are cut from
        its counts afterwards: `figures`); then start reading the plan's metric commands (last: their clock
        starts just before telemetry's)."""
        self._start_perf(point, workdir)
        self._readings, self._gauge_log = {}, []
        if self.metrics:
            self._gauges = GaugeSampler(self.metrics)
            self._gauges.start()

    def _start_perf(self, point: Point, workdir: Path) -> None:
        if not self.local or self.perf is None or self.problem() is not None:
            return
        output = workdir / "perf.csv"
        command = stat_command(self.perf, self.events, output)
        lifeline, held = os.pipe()
        launched_ms = time.time_ns() / 1e6
        try:
            proc = programs.start(
                [sys.executable, "-I", KEEPER, str(lifeline), "--", *command],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,  # perf's "Events enabled" lines; its counts go to `output`
                process_group=0,
                pass_fds=(lifeline,),
            )
        except OSError as exc:
            os.close(held)
            self._perf_problem = f"perf could not start: {exc}"
            self.note(f"hardware counters not available: {self._perf_problem}")
            return
        finally:
            os.close(lifeline)
        self._counting = _Counting(proc, output, held, launched_ms)

    def stop(self) -> Counted | None:
        """Stop reading the metric commands and counting (SIGINT: perf writes its last interval); perf's counts,
        None when nothing was counting. The commands' readings are kept for `commands`."""
        gauges, self._gauges = self._gauges, None
        if gauges is not None:
            self._readings = gauges.stop(self._gauge_log)
        counting, self._counting = self._counting, None
        if counting is None:
            return None
        interrupted_ms = time.time_ns() / 1e6
        counting.proc.send_signal(signal.SIGINT)
        try:
            status = counting.proc.wait(timeout=PERF_STOP_S)
        except subprocess.TimeoutExpired:
            counting.proc.send_signal(signal.SIGTERM)  # the keeper kills everything below it
            status = counting.proc.wait()
        finally:
            os.close(counting.held)
        try:
            intervals = parse_interval_csv(counting.output.read_text(errors="replace"))
        except OSError:
            intervals = []
        # perf 6.1 re-raises the SIGINT it answered (the keeper says 130); a perf that ends with 0 answered it too
        by_signal = status in (0, 128 + signal.SIGINT)
        zero_ms = counting_zero_ms(counting.launched_ms, intervals, interrupted_ms if by_signal else None)
        return Counted(tuple(intervals), zero_ms, counting.launched_ms)

    def problem(self) -> str | None:
        """Why this host cannot count hardware events (asked of perf once per run), or None."""
        if not self._perf_probed:
            self._perf_probed = True
            self._perf_problem = perf_problem(self.perf, self.events)
            if self._perf_problem is not None:
                self.note(f"hardware counters not available: {self._perf_problem}")
        return self._perf_problem

    # -- after fio -----------------------------------------------------------
    def figures(
        self,
        point: Point,
        result: Result,
        samples: list[Sample],
        counted: Counted | None,
        startup_ms: int = 0,
        clock_ms: float | None = None,
    ) -> list[PointMetric]:
        """Wire bandwidth, the host's CPU per I/O and perf's figures for a measured point, or why not; over the
        measured seconds, which start `startup_ms` (fio's start-up, `models.side.fio_startup_ms`) later on the
        samplers' clock than the ramp alone says. `clock_ms` is the samplers' zero on the wall clock
        (`Sampler.started_ms`; None without samplers), where perf's counts are cut."""
        iops = sum(d.iops for d in result.directions.values())
        start_ms = measured_from_ms(point, result, startup_ms)
        telemetry = [s for s in samples if s.metric.startswith(TELEMETRY)]
        if not telemetry:
            why = "telemetry was off (--no-telemetry)" if self.telemetry_off else "telemetry did not run"
            found = [PointMetric(WIRE, None, why), PointMetric(HOST_CPU_US_PER_IO, None, why)]
        else:
            found = wire_metrics(wire_traffic(telemetry, start_ms), self._quiet_wire())
            found.append(
                host_cpu_metric(telemetry, start_ms, iops)
                if self.local
                else PointMetric(HOST_CPU_US_PER_IO, None, "multi-host run: the hosts' CPUs are not sampled")
            )
        return found + self._perf_figures(counted, point, result, startup_ms, clock_ms, iops)

    def _quiet_wire(self) -> str:
        quiet = f"no network interface moved more than {WIRE_THRESHOLD / 1e6:g} MB/s"
        if self.local:
            return quiet
        return quiet + " on this host, which sends fio its jobs and gets its results; each host's I/O is its own"

    def _perf_figures(
        self,
        counted: Counted | None,
        point: Point,
        result: Result,
        startup_ms: int,
        clock_ms: float | None,
        iops: float,
    ) -> list[PointMetric]:
        if not self.local:
            return [PointMetric(PERF, None, "multi-host run: fio runs on the hosts, not on this one")]
        if counted is None:
            return [PointMetric(PERF, None, f"not available: {self.problem() or 'perf did not run'}")]
        counts, counted_s = measured_counts(counted, point, result, startup_ms, clock_ms)
        if counted_s <= 0:
            return [PointMetric(PERF, None, "perf's intervals do not reach fio's measured seconds")]
        return perf_figures(counts, iops, counted_s)

    def commands(
        self, point: Point, result: Result, artifacts: list[Artifact], startup_ms: int = 0
    ) -> list[PointMetric]:
        """The plan's metric commands over the measured seconds (from fio's start-up and ramp on their clock,
        which starts just before the samplers'): each one's mean and largest reading, or why there is none; what
        every reading printed is kept in `artifacts`."""
        artifacts.extend(self._gauge_log)
        start_ms = measured_from_ms(point, result, startup_ms)
        return [
            metric for name, _ in self.metrics for metric in gauge_metrics(name, self._readings.get(name, []), start_ms)
        ]


def measured_counts(
    counted: Counted, point: Point, result: Result, startup_ms: int, clock_ms: float | None
) -> tuple[dict[str, float | None], float]:
    """perf's counts over fio's measured seconds, the same ones every other side figure is read over
    (`measured_from_ms` to `measured_until_ms` on the samplers' clock, whose zero is `clock_ms` on the wall
    clock; perf's launch, just before fio, stands in without samplers), and how many of those seconds perf
    counted: the seconds its rates are over."""
    zero = counted.launched_ms if clock_ms is None else clock_ms
    return counted.over(
        zero + measured_from_ms(point, result, startup_ms), zero + measured_until_ms(point, result, startup_ms)
    )
