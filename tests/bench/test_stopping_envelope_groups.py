"""The stopping bench judges writers apart from mixed jobs, and finds a run's first fall (issue 40, fourth
round). Pooled, the held-out half's 143 mixed stops (99.3% inside) lifted 109 write stops at 92.7% to a
group at 96.4%; each test fails if a mixed job counts as a writer again, or a fall is missed or invented."""

from __future__ import annotations

import random
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import stopping_envelope as se  # noqa: E402
from stopping_replay import Trace  # noqa: E402

from iolab.analysis.stopping import PARAMS  # noqa: E402


def trace(rw: str, writes: bool, seconds: int = 60) -> Trace:
    return Trace(f"X/{rw}.json", "SSD", f"{rw} QD>4", writes, [1000.0] * seconds)


def test_mixed_jobs_are_a_group_of_their_own_not_writers() -> None:
    kinds = {rw: se.kind(trace(rw, writes)) for rw, writes in
             (("randread", False), ("read", False), ("randwrite", True), ("write", True), ("randrw", True),
              ("rw", True), ("readwrite", True), ("trim", True))}  # fmt: skip
    assert kinds == {"randread": "reads", "read": "reads", "randwrite": "writes", "write": "writes",
                     "randrw": "mixed", "rw": "mixed", "readwrite": "mixed", "trim": "writes"}  # fmt: skip
    stops = se.run_rule([trace("randrw", True), trace("randwrite", True, 300)], PARAMS)
    assert [s.group for s in stops] == ["mixed 60 s", "writes 300 s"]


def test_first_fall_finds_a_sustained_fall_at_its_second_and_none_in_scatter() -> None:
    rng = random.Random(40)
    for fall_at in (10, 15, 20, 35, 45):
        rates = [1000 * (0.88 if i >= fall_at else 1.0) * (1 + rng.gauss(0, 0.004)) for i in range(60)]
        assert se.first_fall(rates) == fall_at, fall_at
        flat = [1000 * (1 + rng.gauss(0, 0.004)) for _ in range(60)]
        assert se.first_fall(flat) is None
        rising = [1000 * (1.12 if i >= fall_at else 1.0) for i in range(60)]
        assert se.first_fall(rising) is None  # a rise is not a fall


def test_the_replay_runs_a_job_as_long_as_the_product_lets_it(monkeypatch) -> None:
    """The replay's maximum is the runner's (`product_rule`): a trace that never settles runs its whole 300 s
    under the product's defaults, and only 60 s if the product's rule said 60 (as it once did, unseen)."""
    from iolab.runner import stopping as runner_stopping

    rng = random.Random(41)
    wild = [1000 * (1 + rng.gauss(0, 0.5)) ** 2 for _ in range(300)]
    assert se.replay(wild, False, PARAMS).stop_s == 300
    capped = runner_stopping.StopRule(max_s=60.0)
    monkeypatch.setattr(runner_stopping.StopRule, "from_settings", classmethod(lambda cls, settings: capped))
    assert se.replay(wild, False, PARAMS).stop_s == 60
