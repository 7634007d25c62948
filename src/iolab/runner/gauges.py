"""A plan's metric commands read every second while fio runs (issue 42 item 4).

A metric is often a gauge: I/O in flight, a target's buffers in use, a queue's depth. Read once after the
point, a gauge reads what is left when the I/O has stopped, 0 for an in-flight counter. So each command
runs every `READ_EVERY_S` from just before fio starts until fio exits, as telemetry's ticks do, one
thread per command: a slow command delays its own next reading (a tick it runs past is skipped, never
caught up in a burst), not the others'. A reading that is still running when fio exits is waited for, up
to the phases' command limit, since it began while the point ran.

Each command runs as a child of iolab (`subprocess.run` from this process), so the per-process accounting
of `iolab.telemetry.processes`, which leaves out iolab and everything descended from it, never counts a
reading as "something else was busy".
"""

from __future__ import annotations

import math
import re
import shlex
import subprocess
import threading
import time
from collections.abc import Sequence

from iolab import programs
from iolab.models.side import GaugeReading
from iolab.runner import phases
from iolab.store.db import Artifact

READ_EVERY_S = 1.0
# A number as a metric command prints it: digits with an optional sign, fraction and exponent.
NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def number_of(text: str) -> tuple[float | None, str]:
    """The number a command printed (its whole standard output), or None and what it printed instead."""
    text = text.strip()
    if NUMBER.match(text) and math.isfinite(value := float(text)):
        return value, ""
    shown = text if len(text) <= 30 else text[:29] + "…"
    return None, f"not a number: {shown!r}" if text else "no output"


def read_once(argv: Sequence[str]) -> tuple[float | None, str, str]:
    """Run a metric command once, bounded by the phases' command limit: (number, why none, what to keep)."""
    try:
        proc = programs.run(argv, capture_output=True, text=True, timeout=phases.COMMAND_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        why = f"stopped after {phases.COMMAND_TIMEOUT_S:g} s"
        return None, f"command failed ({why})", why
    except OSError as exc:
        return None, f"command failed ({exc})", str(exc)
    kept = f"exit {proc.returncode}: {(proc.stdout + proc.stderr).strip()}"
    if proc.returncode:
        return None, f"command failed (exit {proc.returncode})", kept
    value, problem = number_of(proc.stdout)
    return value, problem, kept


class GaugeSampler:
    """Reads each of a plan's metric commands every `interval_s` between `start()` and `stop()`."""

    def __init__(self, metrics: Sequence[tuple[str, Sequence[str]]], interval_s: float = READ_EVERY_S) -> None:
        self.metrics = tuple((name, tuple(argv)) for name, argv in metrics)
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._readings: dict[str, list[GaugeReading]] = {}
        self._logs: dict[str, list[str]] = {}
        self._t0 = 0

    def start(self) -> None:
        """Zero the clock (the point's telemetry starts within milliseconds of it) and start reading."""
        self._t0 = time.monotonic_ns()
        for name, argv in self.metrics:
            self._readings[name], self._logs[name] = [], []
            thread = threading.Thread(target=self._read, args=(name, argv), name=f"iolab-metric-{name}", daemon=True)
            self._threads.append(thread)
            thread.start()

    def stop(self, artifacts: list[Artifact]) -> dict[str, list[GaugeReading]]:
        """Stop reading (a reading under way finishes) and return every command's readings; each command's
        outputs are kept as the point's `metric-<name>` artifact, one line per reading."""
        self._stop.set()
        for thread in self._threads:
            thread.join()
        self._threads = []
        for name, argv in self.metrics:
            lines = self._logs.get(name, [])
            artifacts.append(Artifact(f"metric-{name}", "\n".join([shlex.join(argv), *lines, ""]).encode()))
        return self._readings

    def _read(self, name: str, argv: tuple[str, ...]) -> None:
        period = int(self.interval_s * 1e9)
        due = self._t0 + period
        while not self._stop.wait(max(0.0, (due - time.monotonic_ns()) / 1e9)):
            t_ms = (time.monotonic_ns() - self._t0) // 1_000_000
            value, problem, kept = read_once(argv)
            self._readings[name].append(GaugeReading(t_ms, value, problem))
            self._logs[name].append(f"{t_ms / 1000:.3f} s {kept}")
            due += period
            now = time.monotonic_ns()
            if due <= now:  # the command ran past a tick: skip it rather than read twice at once
                due = now + period - (now - self._t0) % period
