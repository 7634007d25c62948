"""What a stopped point records (`Watch.record`) over fio's real status blocks (12 s of 2,000 IOPS,
tests/data/fio/stopping): the reason is the maximum's when the series reached `max_s - 1` seconds (fio's
last second is in its final document, not in a status block), fio's own runtime otherwise; the rate is the
kept window's bytes and I/Os over its seconds, from fio's counters at the cut and at the end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iolab.fio.parse import aggregate, parse_output
from iolab.fio.status import counters
from iolab.runner.stopping import StopRule, Watch

STATUS = Path(__file__).parents[1] / "data" / "fio" / "stopping" / "status-interval-12s.json"
BLOCKS = 12  # status blocks with a later runtime than the one before, before the final document


def _recorded(max_s: float):
    watch = Watch(STATUS, StopRule(target=0.02, min_s=1, max_s=max_s))
    watch.reader.poll()
    final = watch.reader.documents[-1]
    output = parse_output(json.dumps(final))
    result = aggregate(output.groups[0].entries, output.version)
    cut = watch.record(result)
    return result, cut, final


@pytest.mark.parametrize(("max_s", "reason"), [(BLOCKS + 1, "target met"), (BLOCKS + 2, "fio's runtime")])
def test_a_point_that_ran_to_its_maximum_says_why_the_series_ended_there(max_s, reason):
    result, _, _ = _recorded(max_s)
    assert result.stopping is not None
    assert result.stopping.reason == reason
    assert (result.stopping.discarded_s, result.stopping.kept_s, result.stopping.target) == (5, 7, 0.02)


def test_the_kept_windows_rate_is_its_bytes_and_ios_over_its_seconds_from_fios_counters():
    result, cut, final = _recorded(BLOCKS + 1)
    start, end = counters(json.loads(cut)), counters(final)
    assert start is not None and end is not None
    seconds = (end.runtime_ms - start.runtime_ms) / 1000
    read = result.directions["read"]
    assert read.bw_bytes == pytest.approx((end.io_bytes["read"] - start.io_bytes["read"]) / seconds, rel=1e-12)
    assert read.iops == pytest.approx(1999.58, abs=0.01)
    assert 7.0 <= seconds < 7.5  # fio's whole run was 12 s and more: the window is not the run


def test_a_rule_from_no_settings_is_the_documented_default_and_its_bounds_are_checked():
    from iolab.errors import UserError

    assert StopRule.from_settings({}) == StopRule(0.02, 3.0, None, None)  # no maximum: the job's own length
    assert StopRule() == StopRule.from_settings({})
    assert StopRule.from_settings({"target_ci": "5%", "min_s": 2, "max_s": 2}) == StopRule(0.05, 2.0, 2.0)
    assert StopRule.from_settings({"target_ci": 0.1}).target == 0.1
    for settings in ({"min_s": 0}, {"min_s": -1}, {"min_s": 5, "max_s": 4}):
        with pytest.raises(UserError, match=r"^stopping: min_s \(.*\) must be above 0 and at most max_s"):
            StopRule.from_settings(settings)


def test_a_rules_horizon_is_its_own_else_its_maximum():
    from iolab.models import Point, Target
    from iolab.runner.stopping import point_rule

    rule = StopRule(0.02, 3.0, 60.0)
    assert rule.horizon == 60.0 and StopRule(horizon_s=300.0).horizon == 300.0
    target = Target(path="/x", kind="file", filename="/x", size_bytes=1 << 20)
    shorter = point_rule(Point("p", target, {"rw": "read", "runtime": "10", "ramp_time": "2"}), rule)
    assert shorter == StopRule(0.02, 3.0, 12.0, 12.0)  # the job's own length, ramp included
    tiny = point_rule(Point("p", target, {"rw": "read", "runtime": "2"}), rule)
    assert (tiny.min_s, tiny.max_s) == (2.0, 2.0)  # no minimum past the job's end
    longer = point_rule(Point("p", target, {"rw": "read", "runtime": "300"}), rule)
    assert longer == StopRule(0.02, 3.0, 60.0, 300.0)  # a maximum given holds
    own_length = point_rule(Point("p", target, {"rw": "read", "runtime": "300"}), StopRule())
    assert own_length == StopRule(0.02, 3.0, 300.0, 300.0)  # none given: the job's own 300 s, not 60
    exact = point_rule(Point("p", target, {"rw": "read", "runtime": "60"}), rule)
    assert exact == StopRule(0.02, 3.0, 60.0, 60.0)
    unbounded = point_rule(Point("p", target, {"rw": "read"}), rule)
    assert unbounded == StopRule(0.02, 3.0, 60.0, 60.0)


def test_a_watch_over_no_status_block_yet_does_not_stop_nor_decide(tmp_path):
    output = tmp_path / "fio.json"
    output.write_text("")
    watch = Watch(output, StopRule(target=0.5, min_s=1, max_s=60))
    assert watch() is False and watch.decision is None and not watch.stopped
    assert watch.final_text() == ""
    result, _, _ = _recorded(BLOCKS + 2)
    before = (result.stopping, result.directions["read"].bw_bytes)
    assert Watch(output, StopRule()).record(result) == ""  # fewer than two blocks: nothing to record
    assert (result.stopping, result.directions["read"].bw_bytes) == before
