"""How uncertain one point's figure is, from its own per-second samples.

A point's throughput is the mean of its seconds, and those seconds are
autocorrelated (a slow second is often followed by another), so the plain
standard error s / sqrt(n) is too small. The standard error here is that of
batch means (`analysis.stopping.batch_interval`: the smallest batch whose
means show no lag-1 autocorrelation beyond 0.2), which the outlier and
scaling verdicts compare with the effect they would report.
"""

from __future__ import annotations

from collections.abc import Sequence

from iolab.analysis.stopping import CONFIDENCE, batch_interval
from iolab.analysis.student_t import t_quantile


def relative_error(values: Sequence[float]) -> float | None:
    """Standard error of the mean of `values` over the mean; None with too few seconds to tell (fewer than
    the batch-means interval needs) or a mean that is not positive."""
    interval = batch_interval(list(values))
    if interval is None or interval.mean <= 0 or interval.batches < 2:
        return None
    t = t_quantile(1 - (1 - CONFIDENCE) / 2, interval.batches - 1)
    return interval.half_width / t / interval.mean
