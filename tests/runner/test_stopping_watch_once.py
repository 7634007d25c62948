"""`Watch` says stop once (runner.stopping, over fio's real status blocks): run_fio sends fio a SIGINT for each
True, and a second one while fio is still ending the point would kill it instead of letting it finish; the
decision that stopped it is kept, not replaced by a later look at the blocks."""

from __future__ import annotations

from pathlib import Path

from iolab.runner.stopping import StopRule, Watch

STATUS = Path(__file__).parents[1] / "data" / "fio" / "stopping" / "status-interval.json"


def test_a_met_target_says_stop_once_and_keeps_the_decision_that_stopped() -> None:
    watch = Watch(STATUS, StopRule(target=0.2, min_s=1, max_s=60))  # ±20%: these blocks meet it
    assert watch() is True
    decision = watch.decision
    assert decision is not None and decision.stop and decision.reason == "target met"
    assert watch() is False and watch() is False  # fio is ending: no second SIGINT
    assert watch.stopped and watch.decision is decision
