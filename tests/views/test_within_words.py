"""A once-run point's interval is its relative 95% half-width in percent, as the headline and the `stopped`
column both write it: 0.017 of the mean is "±1.7%"."""

from __future__ import annotations

import pytest

from iolab.views.headline import within_words


@pytest.mark.parametrize(("relative", "said"), [(0.017, "±1.7%"), (0.004, "±0.4%"), (0.12, "±12%"), (0.5, "±50%")])
def test_a_relative_half_width_is_said_in_percent(relative, said):
    assert within_words(relative) == said
