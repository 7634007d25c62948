"""How uncertain one point's figure is, from its own per-second samples.

A point's throughput is the mean of its seconds, and those seconds are
autocorrelated (a slow second is often followed by another), so the plain
standard error s / sqrt(n) is too small. The standard error here is that of
batch means (`analysis.stopping.batch_interval`: the smallest batch whose
means show no lag-1 autocorrelation beyond 0.2), which the outlier and
scaling verdicts compare with the effect they would report.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from iolab.analysis.stopping import CONFIDENCE, batch_interval
from iolab.analysis.student_t import t_quantile


def relative_error(values: Sequence[float]) -> float | None:
    """Standard error of the mean of `values` over the mean; None with too few seconds to tell (fewer than
    the batch-means interval needs) or a mean that is not positive."""
    interval = batch_interval(list(values))
    if interval is None or interval.mean <= 0 or interval.batches < 2:
        return None
    return interval.half_width / _t(interval.batches - 1) / interval.mean


@functools.lru_cache(maxsize=512)
def _t(df: int) -> float:
    """The two-sided `CONFIDENCE` quantile of Student's t at `df`: the doctor asks it of every point's series
    (a tenth of an import's doctor on fio-plot's collection), for a few dozen distinct `df`."""
    return t_quantile(1 - (1 - CONFIDENCE) / 2, df)
