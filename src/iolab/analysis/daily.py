"""The COV of each calendar day of a series, and how many days were over the target.

A rolling 48 h window says whether the series is healthy now; months of
hourly runs also need the days that were not, so that a bad day stays
visible after the window has moved past it. Days are local calendar days:
the hours a person and the host's cron share.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

# mktime's last three fields: the weekday and day of the year, which it ignores, and DST "not known" (any
# negative number), which it works out from the date: a midnight is found the same on either side of a change
_ANY_WEEKDAY_DST = (0, 0, -1)


@dataclass(frozen=True)
class DayCov:
    """One local calendar day of a series: its runs' mean and COV (sample stddev, n-1, over the mean)."""

    day: str  # YYYY-MM-DD, local time
    runs: int  # runs with a value that day (a latency run with none is left out)
    mean: float | None
    cov: float | None  # None: fewer than two runs, or a mean of 0 (every run failed)
    time: float  # the midpoint of the day's first and last run, epoch seconds: where a chart puts it
    over_target: bool


def daily_cov(times: Sequence[float], values: Sequence[float], cov_target: float) -> list[DayCov]:
    """Per local day, oldest first. NaN values (no latency measured) are left out, as in `rolling_health`;
    a failed throughput run is a 0 and counts, so a day with a failure is over its target.

    The runs are sorted once and cut at local midnights: one `localtime` and one `mktime` per day with
    runs, not a date string per run (10,000 hourly runs: 417 days). A day whose first and last runs are
    at different UTC offsets holds a clock change, where a run's date is not always the day it falls
    between midnights in (a change back at midnight repeats an hour of the day before): those days'
    runs are dated one by one. Sums are `math.fsum` of the same terms as a run-by-run loop: the mean is
    the same to the last bit, the stddev within one rounding (numpy squares by multiplying, Python's
    `** 2` calls `pow`).
    """
    import numpy as np

    t = np.asarray(times, dtype=float)
    v = np.asarray(values, dtype=float)
    if t.shape != v.shape or t.ndim != 1:
        raise ValueError("times and values must be one-dimensional and of equal length")
    kept = ~np.isnan(v)
    order = np.argsort(t[kept], kind="stable")
    t, v = t[kept][order], v[kept][order]
    days: dict[str, list[tuple[int, int]]] = {}  # day -> [start, end) slices of the sorted runs
    i = 0
    while i < len(t):
        first = time.localtime(t[i])
        midnight = time.mktime((first.tm_year, first.tm_mon, first.tm_mday + 1, 0, 0, 0) + _ANY_WEEKDAY_DST)
        end = max(int(np.searchsorted(t, midnight, side="left")), i + 1)
        if time.localtime(t[end - 1]).tm_gmtoff == first.tm_gmtoff:
            days.setdefault(time.strftime("%Y-%m-%d", first), []).append((i, end))
        else:
            for k in range(i, end):
                days.setdefault(time.strftime("%Y-%m-%d", time.localtime(t[k])), []).append((k, k + 1))
        i = end
    out = []
    for day in sorted(days):
        stamps = np.concatenate([t[a:b] for a, b in days[day]])
        figures = np.concatenate([v[a:b] for a, b in days[day]])
        n = len(figures)
        mean = math.fsum(figures.tolist()) / n
        cov = _stdev(figures, mean) / mean if n >= 2 and mean > 0 else None
        # A day whose runs all failed has no COV but was not a good day.
        over = (cov is not None and cov > cov_target) or (n >= 2 and mean == 0)
        out.append(DayCov(day, n, mean, cov, (float(stamps.min()) + float(stamps.max())) / 2, over))
    return out


def _stdev(figures, mean: float) -> float:  # figures: a numpy array
    """Sample standard deviation (n-1) about a known mean: the squares in numpy, summed by `math.fsum`; `statistics.stdev` computes in exact fractions, which took
    0.15 s for the days of 10,000 runs."""
    return math.sqrt(math.fsum(((figures - mean) ** 2).tolist()) / (len(figures) - 1))
