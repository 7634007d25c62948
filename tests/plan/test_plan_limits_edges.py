"""Every bound a plan has, asked at the bound and one step past it (docs/plans.md): repeats 1..1,000, a COV
target strictly between 0 and 1, stopping times above 0, and at most 10,000 points however they are made (axes
crossed, workloads x repeats in a plan file, points x repeats in a run). The fast tests held these far inside
or far outside; a bound off by one, or `<` for `<=`, passed them all."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from iolab.errors import UserError
from iolab.plan.limits import MAX_POINTS, MAX_REPEATS
from iolab.plan.matrix import _dimensions, expand
from iolab.plan.schema import PlanSpec, RepeatSpec, StoppingSpec, error_lines
from iolab.runner.planning import _check_count


def test_the_limits_are_the_documented_ones():
    assert (MAX_POINTS, MAX_REPEATS) == (10_000, 1_000)


@pytest.mark.parametrize(
    ("field", "accepted", "refused"),
    [
        ("count", [1, 1_000], [0, 1_001]),
        ("max", [1, 1_000], [0, 1_001]),
        ("cov_target", [1e-9, 0.999], [0.0, 1.0, 1.5]),
    ],
)
def test_a_repeat_bound_holds_its_ends_and_refuses_one_step_past(field, accepted, refused):
    for value in accepted:
        assert getattr(RepeatSpec(**{field: value}), field) == value
    for value in refused:
        with pytest.raises(ValidationError):
            RepeatSpec(**{field: value})


@pytest.mark.parametrize("field", ["min_s", "max_s"])
def test_stopping_times_are_above_zero_and_finite(field):
    assert getattr(StoppingSpec(**{field: 0.001}), field) == 0.001
    for value in (0, -1, float("inf"), float("nan")):
        with pytest.raises(ValidationError):
            StoppingSpec(**{field: value})
    assert (StoppingSpec().target_ci, StoppingSpec().min_s, StoppingSpec().max_s) == ("2%", 3, None)


def test_a_wrong_value_is_shown_whole_up_to_40_characters_and_cut_after():
    for length, expected in [(36, repr(["x" * 36])), (37, repr(["x" * 37])[:40] + "...")]:
        with pytest.raises(ValidationError) as refused:
            PlanSpec.model_validate({"name": ["x" * length]})  # its repr: the text, two quotes, two brackets
        (line,) = error_lines(refused.value)
        assert line.endswith(f", got {expected}")


def _axes(first: int, second: int) -> dict[str, list[str]]:
    return {"iodepth": [str(i) for i in range(1, first + 1)], "numjobs": [str(i) for i in range(1, second + 1)]}


def test_axes_making_exactly_the_most_workloads_are_accepted_and_one_more_refused():
    # counted before anything is made or excluded: the product of the axes' lengths
    assert [len(d) for d in _dimensions(_axes(100, 100), [], "plan")] == [100, 100]
    assert len(expand("x", {}, _axes(10, 10), exclude=["iodepth > 1"])) == 10
    with pytest.raises(UserError, match="the axes make 10001 workloads; a plan may have at most 10000: split it"):
        expand("x", {}, _axes(73, 137))


@pytest.mark.parametrize(
    ("points", "repeats", "ok"), [(10_000, 1, True), (5_000, 2, True), (10_001, 1, False), (3_334, 3, False)]
)
def test_a_run_of_exactly_the_most_points_is_accepted(points, repeats, ok):
    if ok:
        _check_count(points, repeats, "points", "split")
        return
    with pytest.raises(UserError) as refused:
        _check_count(points, repeats, "points", "split the plan")
    assert str(refused.value) == f"{points} points x {repeats} repeats: a run may have at most 10000; split the plan"


def test_a_plan_files_workloads_times_its_repeats_may_reach_the_most_points():
    from types import SimpleNamespace

    from iolab.plan.planfile import _check_point_count

    workloads = [SimpleNamespace(name=f"w{i}", target=None) for i in range(2_500)]
    _check_point_count(workloads, 4, "p.toml")  # type: ignore[arg-type]
    with pytest.raises(UserError, match=r"^p.toml: 2500 workloads x 5 repeats; a plan may have at most 10000 points"):
        _check_point_count(workloads, 5, "p.toml")  # type: ignore[arg-type]
    _check_point_count([*workloads[:2], SimpleNamespace(name="w0", target="/other")], 1, "p.toml")  # type: ignore[list-item]
    with pytest.raises(UserError, match="the name 'w0' is used twice"):
        _check_point_count([*workloads[:2], SimpleNamespace(name="w0", target=None)], 1, "p.toml")  # type: ignore[list-item]
