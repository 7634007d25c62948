"""A point's side figures: hardware counters while fio runs, then what explains its I/O rate.

While fio runs, `perf stat -a` counts cycles and last-level cache traffic from the end of fio's ramp
until fio exits (this host only: in a multi-host run fio's jobs run elsewhere). After it, the figures
are computed from what was sampled (`iolab.analysis.side`) and the plan's metric commands run; every
figure, or why it is missing, is stored with the point. Nothing here runs inside the measured window
but perf, which counts in the kernel and is read once, when it stops.
"""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from iolab.analysis.side import WIRE_THRESHOLD, host_cpu_metric, perf_figures, wire_metrics, wire_traffic
from iolab.fio.run import KEEPER
from iolab.models import Point, PointMetric, Result, Sample
from iolab.models.side import HOST_CPU_US_PER_IO, PERF, WIRE, command_name
from iolab.runner.phases import run_command
from iolab.store.db import Artifact
from iolab.telemetry.perf import DURATION, EVENTS, find_perf, parse_stat_csv, perf_problem, stat_command

PERF_STOP_S = 5.0  # perf writes its counts within milliseconds of SIGINT; past this it is killed
# A number as a metric command prints it: digits with an optional sign, fraction and exponent.
NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
TELEMETRY = ("cpu.", "net.")  # metric prefixes of the sampler's samples (fio's logs have none of them)


@dataclass
class _Counting:
    """`perf stat` running under fio's keeper for one point."""

    proc: subprocess.Popen
    output: Path
    held: int  # the lifeline's write end: closing it (or iolab dying) makes the keeper kill perf


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

    # -- while fio runs ----------------------------------------------------
    def start(self, point: Point, workdir: Path) -> None:
        """Start counting hardware events for `point`, from the end of its ramp, when this host can."""
        if not self.local or self.perf is None or self.problem() is not None:
            return
        output = workdir / "perf.csv"
        command = stat_command(self.perf, self.events, output, int(point.job.ramp_seconds * 1000))
        lifeline, held = os.pipe()
        try:
            proc = subprocess.Popen(
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
        self._counting = _Counting(proc, output, held)

    def stop(self) -> dict[str, float | None] | None:
        """Stop counting (SIGINT: perf writes its counts) and read them; None when nothing was counting."""
        counting, self._counting = self._counting, None
        if counting is None:
            return None
        counting.proc.send_signal(signal.SIGINT)
        try:
            counting.proc.wait(timeout=PERF_STOP_S)
        except subprocess.TimeoutExpired:
            counting.proc.send_signal(signal.SIGTERM)  # the keeper kills everything below it
            counting.proc.wait()
        finally:
            os.close(counting.held)
        try:
            return parse_stat_csv(counting.output.read_text(errors="replace"))
        except OSError:
            return {}

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
        self, point: Point, result: Result, samples: list[Sample], counts: dict[str, float | None] | None
    ) -> list[PointMetric]:
        """Wire bandwidth, the host's CPU per I/O and perf's figures for a measured point, or why not."""
        iops = sum(d.iops for d in result.directions.values())
        # The measured seconds start after fio's ramp or, with stopping on (no ramp), after the warm-up it found.
        warmup = result.stopping.discarded_s if result.stopping is not None else 0
        start_ms = int((point.job.ramp_seconds + warmup) * 1000)
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
        return found + self._perf_figures(counts, iops)

    def _quiet_wire(self) -> str:
        quiet = f"no network interface moved more than {WIRE_THRESHOLD / 1e6:g} MB/s"
        if self.local:
            return quiet
        return quiet + " on this host, which sends fio its jobs and gets its results; each host's I/O is its own"

    def _perf_figures(self, counts: dict[str, float | None] | None, iops: float) -> list[PointMetric]:
        if not self.local:
            return [PointMetric(PERF, None, "multi-host run: fio runs on the hosts, not on this one")]
        if counts is None:
            return [PointMetric(PERF, None, f"not available: {self.problem() or 'perf did not run'}")]
        duration = counts.get(DURATION)
        return perf_figures(counts, iops, duration / 1e9 if duration else 0.0)

    def commands(self, artifacts: list[Artifact]) -> list[PointMetric]:
        """Run the plan's metric commands; each printed number is a figure, anything else says what it was."""
        found = []
        for name, argv in self.metrics:
            outcome = run_command(argv, f"metric-{name}", artifacts)
            text = outcome.stdout.strip()
            if not outcome.ok:
                found.append(PointMetric(command_name(name), None, f"command failed ({outcome.problem})"))
            elif NUMBER.match(text) and math.isfinite(value := float(text)):
                found.append(PointMetric(command_name(name), value))
            else:
                shown = text if len(text) <= 30 else text[:29] + "…"
                found.append(PointMetric(command_name(name), None, f"not a number: {shown!r}" if text else "no output"))
        return found
