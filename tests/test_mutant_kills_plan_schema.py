"""What a plan's [repeat] table means when it says nothing (docs/plans.md, "Repeats"): one run per point, not
adaptive, a COV target of 5%, at most 10 runs, not interleaved, the metric chosen per workload. Found held by no
fast test by `bench/mutation.py --whole` (issue 41 item 8)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from iolab.plan.schema import RepeatSpec


def test_an_empty_repeat_table_means_the_documented_defaults():
    spec = RepeatSpec()
    assert (spec.count, spec.adaptive, spec.cov_target, spec.max, spec.interleave, spec.metric) == (
        1,
        False,
        0.05,
        10,
        False,
        "auto",
    )


def test_repeats_are_counted_from_one():
    assert RepeatSpec(count=1, max=1).max == 1
    with pytest.raises(ValidationError):
        RepeatSpec(max=0)
