"""Plan limits and defaults that `bench/mutation.py --whole` found no fast test holding (issue 41 item 8): a
plan one point over the limit is refused and one at it is not; what a plan that says nothing gets."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.plan.planfile import load_plan


def _plan(tmp_path, workloads: int, repeats: int, extra: str = ""):  # type: ignore[no-untyped-def]
    sizes = ", ".join(f'"{4 * (i + 1)}k"' for i in range(workloads))
    path = tmp_path / "big.toml"
    path.write_text(
        f'name = "big"\ntargets = ["/scratch"]\n[options]\nrw = "randread"\n[axes]\nbs = [{sizes}]\n'
        f"[repeat]\ncount = {repeats}\n{extra}"
    )
    return load_plan(path)


def test_a_plan_of_ten_thousand_points_is_accepted_and_one_more_is_refused(tmp_path):
    assert len(_plan(tmp_path, 10, 1000).workloads) == 10
    with pytest.raises(UserError, match="at most 10000 points"):
        _plan(tmp_path, 73, 137)  # 10,001 points


def test_repeats_that_say_nothing_run_in_turn_and_adapt_up_to_ten(tmp_path):
    plan = _plan(tmp_path, 1, 3, "adaptive = true\n")
    assert plan.repeats.count == 3 and plan.repeats.adaptive
    assert plan.repeats.interleave is False and plan.repeats.max_count == 10
