"""What a run says at its start about the points it chooses while running (runner.execute._open_ended_note):
a metadata plan alone names its thread counts and each phase's length; once a QD search, latency curve or
steady rounds join it, the points are not known ahead and it says only the budget."""

from __future__ import annotations

import pytest

from iolab.models import Plan, Workload
from iolab.models.plan import LatencyCurve, MetadataScaling, QdSearch, SteadyRounds
from iolab.runner.execute import _open_ended_note

BASE = Workload("r", {"rw": "randread", "bs": "4k"})


def test_a_metadata_plan_alone_names_its_thread_counts_and_phase_length():
    plan = Plan("m", [], metadata=MetadataScaling(threads=(1, 4), runtime=10))
    assert (
        _open_ended_note(plan, 95.4)
        == "file create, stat and remove at 2 thread counts, each phase about 10 s: about 95 s"
    )
    one = Plan("m", [], metadata=MetadataScaling(threads=(8,), runtime=2.5))
    assert (
        _open_ended_note(one, 12)
        == "file create, stat and remove at 1 thread count, each phase about 2.5 s: about 12 s"
    )


@pytest.mark.parametrize(
    "part",
    [
        {"qd_searches": [QdSearch(BASE)]},
        {"latency_curve": LatencyCurve(BASE)},
        {"steady_rounds": SteadyRounds((BASE,))},
    ],
)
def test_metadata_with_another_open_ended_part_says_only_the_budget(part):
    plan = Plan("m", [], metadata=MetadataScaling(threads=(1, 4), runtime=10), **part)
    assert _open_ended_note(plan, 300) == "more points are chosen as the results come in: up to about 300 s"
    assert (
        _open_ended_note(Plan("q", [], **part), 300)
        == "more points are chosen as the results come in: up to about 300 s"
    )
