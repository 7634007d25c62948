"""ARR-SCALING-LOW, the array finding a user reads when drives together give far less than alone (issue 41:
no fast test asserted it; tests/runner/test_arrays.py only leaves it out of its noise rules): named below 80%
of the drives' bandwidths alone, summed, with the set's size and efficiency, and not at 80%."""

from __future__ import annotations

from iolab.doctor.derived import ArrayView
from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context

MB = 1_000_000


def _low(together: float) -> list[str]:
    alone = {"a": 500 * MB, "b": 500 * MB, "c": 500 * MB}
    sets = [(("a", "b"), 1000 * MB), (("a", "b", "c"), together * MB)]
    view = ArrayView("seq-read", {}, alone, sets)
    return [f.title for f in evaluate(Context(arrays=[view]), [r for r in all_rules() if r.id == "ARR-SCALING-LOW"])]


def test_three_drives_at_60_percent_of_alone_are_named_and_at_80_percent_not():
    assert _low(900.0) == ["seq-read: 3 drives together reach 60% of what they gave alone"]
    assert _low(1200.0) == []
    assert _low(1199.0) == ["seq-read: 3 drives together reach 80% of what they gave alone"]


def test_a_single_drive_or_an_array_without_sets_is_no_scaling_finding():
    def low(sets: list) -> list[str]:
        view = ArrayView("seq-read", {}, {"a": 500 * MB, "b": 500 * MB}, sets)
        found = evaluate(Context(arrays=[view]), [r for r in all_rules() if r.id == "ARR-SCALING-LOW"])
        return [f.title for f in found]

    assert low([(("a",), 300 * MB), (("a", "b"), 1000 * MB)]) == []  # one drive slower in a set is not scaling
    assert low([]) == []
    assert low([(("a", "b"), 600 * MB)]) == ["seq-read: 2 drives together reach 60% of what they gave alone"]
