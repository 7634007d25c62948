"""An outlier run is measured against the median of the five runs either side of it, those that were
measured (not failed: 0, not unmeasured: NaN), at any place in the series (its first run, its last, the
middle), over generated series: `relative` is the run's value over that median, less one."""

from __future__ import annotations

import math
import random

from iolab.models.workload import Series
from iolab.views.history import series_outlier_runs


def _reference(values: list[float], i: int) -> float:
    """The reader's definition: up to five runs before and five after, the measured ones, their median (the
    upper of the two middle values of an even count)."""
    near = [v for j, v in enumerate(values) if j != i and abs(j - i) <= 5 and math.isfinite(v) and v != 0.0]
    return sorted(near)[len(near) // 2] if near else math.nan


def test_every_run_is_measured_against_the_median_of_five_measured_runs_either_side():
    rng = random.Random("outlier-reference")
    for _ in range(40):
        n = rng.randint(1, 25)
        values = [rng.choice([0.0, math.nan]) if rng.random() < 0.2 else rng.uniform(50, 150) for _ in range(n)]
        series = Series(
            "h", "/dev/sdb", "w", "randread", "iops", list(range(1, n + 1)), [float(i) for i in range(n)], values
        )
        for i, outlier in enumerate(series_outlier_runs(series, range(n))):
            assert (outlier.run_id, outlier.time, outlier.value) == (i + 1, float(i), values[i])
            expected = values[i] / _reference(values, i) - 1.0
            assert outlier.relative == expected or (math.isnan(outlier.relative) and math.isnan(expected)), (values, i)
