"""The timeline draws the findings' dips and steps where the findings put them: from the event's onset in its
point, moved by that point's start on the run's clock, for its duration and never narrower than one second
(an event of no duration would be drawn as nothing), on the series the finding names; a finding without an
event, of another rule, or of a point not on the timeline draws nothing. Findings made here; samples like
tests/views/test_timeline.py's."""

from __future__ import annotations

import pytest

from iolab.models import Finding, Severity
from iolab.views.timeline import FIO_SUM, Span, run_timeline
from tests.views.test_timeline import _disk, _fio, _flat, _record, _run


def _event(rule: str, subject: str, onset: str, duration: str, depth: str = "40%") -> Finding:
    evidence = {"onset": onset, "duration": duration, "depth": depth}
    return Finding(rule, "telemetry", Severity.WARNING, f"{subject}: dip", subject, evidence)


def _dips(findings: list[Finding]) -> dict[str, list[Span]]:
    records = [_record(1, 1, 0.0, "seq-read"), _record(2, 2, 30.0, "seq-write")]
    samples = {pid: _fio(_flat(20)) + _disk("sda", _flat(20)) for pid in (1, 2)}
    return run_timeline(_run(), records, samples, findings).dips


@pytest.mark.parametrize(("duration", "width"), [("0 s", 1.0), ("0.4 s", 1.0), ("1 s", 1.0), ("3 s", 3.0)])
def test_an_event_is_drawn_from_its_onset_for_its_duration_and_at_least_a_second(duration, width):
    dips = _dips([_event("TEL-DIP", "seq-write: all jobs", "5 s", duration)])
    assert dips == {FIO_SUM: [Span(35.0, 35.0 + width, "dip, -40%")]}


def test_each_event_is_drawn_on_the_series_its_finding_names_in_time_order():
    findings = [
        _event("TEL-STEP", "seq-write: sda read", "2 s", "4 s", "30%"),
        _event("TEL-DIP", "seq-read: sda read", "7 s", "2 s"),
        _event("TEL-DIP", "seq-read: all jobs", "1 s", "2 s", "25%"),
    ]
    assert _dips(findings) == {
        "sda": [Span(7.0, 9.0, "dip, -40%"), Span(32.0, 36.0, "step, -30%")],
        FIO_SUM: [Span(1.0, 3.0, "dip, -25%")],
    }


def test_findings_without_an_event_of_other_rules_or_points_draw_nothing():
    findings = [
        _event("TEL-DIP", "seq-read: all jobs", "", "2 s"),  # no onset: what the noise hid
        _event("TEL-NOISE", "seq-read: all jobs", "3 s", "2 s"),
        _event("TEL-DIP", "rand-read: all jobs", "3 s", "2 s"),  # not a point of this timeline
        _event("TEL-DIP", "seq-read: sdz read", "3 s", "2 s"),  # a device the timeline does not draw
    ]
    assert _dips(findings) == {}
