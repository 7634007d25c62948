"""A plan's metric commands read on the second while fio runs: on a fake clock, each reading is at its tick, a
command that runs past a tick skips it (never two readings at once), and what each reading printed is kept;
through real commands, what a command says instead of a number is said."""

from __future__ import annotations

import sys
import time

import pytest

from iolab.models.side import GaugeReading
from iolab.runner import gauges, phases
from iolab.runner.gauges import GaugeSampler, number_of, read_once

S = 1_000_000_000  # ns


class FakeClock:
    """monotonic_ns, and a stop event whose wait() lets the time pass and ends after `waits` waits."""

    def __init__(self, start_ns: int, waits: int) -> None:
        self.now = start_ns
        self.waits = waits
        self.waited: list[float] = []

    def monotonic_ns(self) -> int:
        return self.now

    def set(self) -> None:
        self.waits = 0

    def wait(self, timeout: float) -> bool:
        self.waited.append(timeout)
        if len(self.waited) > self.waits:
            return True
        self.now += round(timeout * S)
        return False


def test_readings_fall_on_their_ticks_and_a_tick_a_slow_command_ran_past_is_skipped(monkeypatch):
    clock = FakeClock(start_ns=7 * S, waits=4)
    durations = iter([0.1, 1.5, 0.1, 0.2])  # the second reading runs past the third tick

    def read(argv):
        clock.now += round(next(durations) * S)
        n = len(sampler._readings["inflight"]) + 1
        return float(n), "", f"exit 0: {n}"

    monkeypatch.setattr(gauges.time, "monotonic_ns", clock.monotonic_ns)
    monkeypatch.setattr(gauges, "read_once", read)
    sampler = GaugeSampler([("inflight", ["cat", "/sys/x"])])
    sampler._stop = clock  # type: ignore[assignment]
    sampler._t0 = clock.now
    sampler._readings["inflight"], sampler._logs["inflight"] = [], []
    sampler._read("inflight", ("cat", "/sys/x"))
    assert sampler._readings["inflight"] == [
        GaugeReading(1000, 1.0),
        GaugeReading(2000, 2.0),
        GaugeReading(4000, 3.0),  # 3 s was skipped, not read late
        GaugeReading(5000, 4.0),
    ]
    assert clock.waited == pytest.approx([1.0, 0.9, 0.5, 0.9, 0.8])
    artifacts: list = []
    assert sampler.stop(artifacts)["inflight"][0] == GaugeReading(1000, 1.0)
    assert artifacts[0].name == "metric-inflight"
    assert artifacts[0].data.decode() == (
        "cat /sys/x\n1.000 s exit 0: 1\n2.000 s exit 0: 2\n4.000 s exit 0: 3\n5.000 s exit 0: 4\n"
    )


def test_a_sampler_reads_each_command_in_its_own_thread_until_stopped():
    sampler = GaugeSampler([("seven", ["echo", "7"]), ("words", ["echo", "busy"])], interval_s=0.02)
    sampler.start()
    time.sleep(0.3)
    artifacts: list = []
    readings = sampler.stop(artifacts)
    assert readings["seven"] and all(r.value == 7.0 and r.problem == "" for r in readings["seven"])
    assert readings["words"] and all(r.value is None and r.problem == "not a number: 'busy'" for r in readings["words"])
    times = [r.t_ms for r in readings["seven"]]
    assert times == sorted(times) and times[0] >= 20
    assert [a.name for a in artifacts] == ["metric-seven", "metric-words"]
    assert artifacts[0].data.decode().startswith("echo 7\n") and " s exit 0: 7\n" in artifacts[0].data.decode()


@pytest.mark.parametrize(
    ("printed", "value", "problem"),
    [
        ("12.5\n", 12.5, ""),
        ("-3e2", -300.0, ""),
        (".5", 0.5, ""),
        ("inf", None, "not a number: 'inf'"),
        ("1e999", None, "not a number: '1e999'"),
        ("", None, "no output"),
        ("  \n", None, "no output"),
        ("x" * 30, None, f"not a number: {'x' * 30!r}"),
        ("x" * 31, None, f"not a number: {'x' * 29 + '…'!r}"),
    ],
)
def test_a_command_s_output_is_its_number_or_what_it_printed_instead(printed, value, problem):
    assert number_of(printed) == (value, problem)


def test_a_reading_says_why_it_has_no_number(tmp_path, monkeypatch):
    assert read_once(["echo", "42"]) == (42.0, "", "exit 0: 42")
    script = "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"
    assert read_once([sys.executable, "-S", "-c", script]) == (None, "command failed (exit 3)", "exit 3: out\nerr")
    missing = tmp_path / "no-such-command"
    value, problem, kept = read_once([str(missing)])
    assert value is None and problem.startswith("command failed ([Errno 2] No such file or directory")
    assert kept.startswith("[Errno 2]")
    monkeypatch.setattr(phases, "COMMAND_TIMEOUT_S", 0.2)
    assert read_once(["sleep", "5"]) == (None, "command failed (stopped after 0.2 s)", "stopped after 0.2 s")
