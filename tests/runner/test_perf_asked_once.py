"""Whether this host can count hardware events is asked of perf once per run, and what it cannot count is
said once (runner.side.SideFigures.problem): a run of 200 points probed perf (and printed its refusal) once
a point otherwise."""

from __future__ import annotations

from iolab.runner import side
from iolab.runner.side import SideFigures


def _figures(monkeypatch, answer: str | None) -> tuple[SideFigures, list[str], list[str]]:  # type: ignore[no-untyped-def]
    asked: list[str] = []

    def perf_problem(perf, events):  # type: ignore[no-untyped-def]
        asked.append(perf)
        return answer

    monkeypatch.setattr(side, "perf_problem", perf_problem)
    notes: list[str] = []
    return SideFigures(local=True, telemetry_off=False, note=notes.append, perf="/usr/bin/perf"), asked, notes


def test_a_host_that_cannot_count_is_asked_once_and_says_why_once(monkeypatch):
    figures, asked, notes = _figures(monkeypatch, "perf_event_paranoid is 4")
    assert [figures.problem() for _ in range(3)] == ["perf_event_paranoid is 4"] * 3
    assert asked == ["/usr/bin/perf"] and notes == ["hardware counters not available: perf_event_paranoid is 4"]


def test_a_host_that_can_count_is_asked_once_and_says_nothing(monkeypatch):
    figures, asked, notes = _figures(monkeypatch, None)
    assert [figures.problem() for _ in range(3)] == [None] * 3
    assert asked == ["/usr/bin/perf"] and notes == []
