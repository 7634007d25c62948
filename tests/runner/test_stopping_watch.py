"""`Watch` over fio's real status blocks: it never asks fio to stop at the maximum (a met target stopping fio is
tested with the real fio in test_stopping_loopdev.py)."""

from __future__ import annotations

from pathlib import Path

from iolab.runner.stopping import StopRule, Watch

STATUS = Path(__file__).parents[1] / "data" / "fio" / "stopping" / "status-interval.json"


def test_a_target_never_met_is_left_to_fios_own_runtime_at_the_maximum() -> None:
    # fio's runtime is the maximum: a stop sent as it ends by itself can arrive while it exits.
    watch = Watch(STATUS, StopRule(target=1e-9, min_s=1, max_s=2))
    assert not watch()
    assert not watch.stopped and watch.decision is not None and not watch.decision.stop
