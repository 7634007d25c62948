"""A step's mean drop is 1 - (the mean after it) / (the level before it), as a transient dip's is: the share
of the level lost on average from the step on (the JSON of a dip report carries it). The fast tests read a
step's depth, levels and lost MiB, not its mean drop (fresh seed 84263 found `1.0 -` turned `1.0 +`
survived)."""

from __future__ import annotations

import numpy as np
import pytest

from iolab.analysis.dips import _step


def test_a_steps_mean_drop_is_the_share_of_the_level_before_lost_on_average_after_it():
    x = np.array([100.0, 100.0, 100.0, 100.0, 60.0, 40.0, 50.0, 50.0])
    t = np.arange(1.0, 9.0)
    step = _step(x, t, 4, 1.0)
    assert step.level_before == 100.0 and step.level_after == 50.0
    assert step.mean_drop == pytest.approx(0.5)  # after: mean 50 of 100
    assert step.depth == pytest.approx(0.5) and step.kind == "step"
