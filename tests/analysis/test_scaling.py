"""Scaling tables on synthetic arrays with known efficiencies."""

import math

import pytest

from iolab.analysis.scaling import ScalingParams, scaling_table


def test_linear_scaling_is_efficiency_one():
    sets = [(("a",), 100.0), (("a", "b"), 200.0), (("a", "b", "c", "d"), 400.0)]
    report = scaling_table(sets, single={"a": 100.0, "b": 100.0, "c": 100.0, "d": 100.0})
    assert [(r.n, r.efficiency) for r in report.rows] == [(1, 1.0), (2, 1.0), (4, 1.0)]
    assert report.drops == []


def test_the_30_ssd_case_is_non_monotonic():
    single = {f"s{i}": 6.9 for i in range(30)}
    sets = [(tuple(f"s{i}" for i in range(n)), agg) for n, agg in [(24, 132.0), (28, 131.0), (30, 127.0)]]
    report = scaling_table(sets, single)
    (drop,) = report.drops  # 28 vs 24 is within the 2% noise; 30 vs 24 is not
    assert len(drop.larger) == 30 and len(drop.smaller) == 24
    assert drop.drop == pytest.approx(1 - 127 / 132)
    assert report.rows[-1].efficiency == pytest.approx(127 / (30 * 6.9))


def test_a_set_is_compared_only_with_sets_of_its_own_members():
    """{b, c} without the fast drive a is no drop against a alone; against b alone it is."""
    single = {"a": 300.0, "b": 100.0, "c": 100.0}
    sets = [(("b", "c"), 180.0), (("a", "b", "c"), 290.0)]
    report = scaling_table(sets + [((d,), v) for d, v in single.items()], single)
    assert [(d.larger, d.smaller) for d in report.drops] == [(("a", "b", "c"), ("a",))]


def test_best_reference_and_singles_taken_from_sets():
    sets = [(("a",), 100.0), (("b",), 80.0), (("a", "b"), 150.0)]
    mean = scaling_table(sets)
    best = scaling_table(sets, params=ScalingParams(reference="best"))
    assert mean.reference == 90.0 and best.reference == 100.0
    assert best.rows[-1].efficiency == pytest.approx(0.75)


def test_edge_cases():
    assert not scaling_table([]).evaluated
    assert not scaling_table([(("a", "b"), 10.0)]).evaluated  # nobody measured alone
    report = scaling_table([(("a",), 5.0), (("a", "b"), math.nan)])
    assert [r.n for r in report.rows] == [1]
    with pytest.raises(ValueError):
        scaling_table([(("a",), 1.0)], params=ScalingParams(reference="median"))


def test_a_set_is_measured_against_its_own_members_alone():
    """A slow drive alone is 100% of itself, not 229% of the array's average drive."""
    single = {"a": 577.0, "b": 577.0, "slow": 126.0}
    report = scaling_table([(("slow",), 126.0), (("a", "slow"), 600.0)], single)
    rows = {r.devices: r for r in report.rows}
    assert rows[("slow",)].efficiency == pytest.approx(1.0)
    assert rows[("a", "slow")].ideal == pytest.approx(703.0)
