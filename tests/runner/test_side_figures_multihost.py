"""What a point's side figures say where they cannot be counted (runner.side.SideFigures): a multi-host run
counts no perf events (fio runs on the hosts) and its quiet-network line says the traffic it sees is this
host's, which sends jobs and gets results; a local run without perf's counts says why, once."""

from __future__ import annotations

from iolab.models import DirectionResult, Point, Result, Target
from iolab.runner import side
from iolab.runner.side import SideFigures
from iolab.telemetry.perf import Counted, Interval

POINT = Point("p", Target("/dev/x", "block", "/dev/x", 1 << 30), {"rw": "randread"})
RESULT = Result({"read": DirectionResult("read", 4e6, 1e3, 1000, 4 * 10**6, 1000)}, 1.0, 1.0, 1, "")


def _figures(local: bool, notes: list[str]) -> SideFigures:
    return SideFigures(local=local, telemetry_off=False, note=notes.append, perf="/usr/bin/perf")


def test_a_multi_host_run_says_its_counts_are_the_hosts_and_its_wire_this_host_s():
    notes: list[str] = []
    figures = _figures(False, notes)
    counted = Counted((Interval(0.0, 1.0, {"cycles": 1e9}),), 0.0, 0.0)
    (perf,) = figures._perf_figures(counted, POINT, RESULT, 0, None, 1e3)
    assert perf.value is None and perf.problem == "multi-host run: fio runs on the hosts, not on this one"
    assert figures._quiet_wire().endswith(
        " on this host, which sends fio its jobs and gets its results; each host's I/O is its own"
    )
    assert _figures(True, notes)._quiet_wire().startswith("no network interface moved more than ")
    assert not _figures(True, notes)._quiet_wire().endswith("its own")


def test_a_local_run_without_counts_says_why(monkeypatch):
    monkeypatch.setattr(side, "perf_problem", lambda perf, events: "perf_event_paranoid is 4")
    notes: list[str] = []
    (perf,) = _figures(True, notes)._perf_figures(None, POINT, RESULT, 0, None, 1e3)
    assert perf.value is None and perf.problem == "not available: perf_event_paranoid is 4"
    monkeypatch.setattr(side, "perf_problem", lambda perf, events: None)
    (perf,) = _figures(True, notes)._perf_figures(None, POINT, RESULT, 0, None, 1e3)
    assert perf.problem == "not available: perf did not run"
