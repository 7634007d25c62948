"""A whole per-interval series as two arrays: how fio's logs and telemetry travel to and from the store.

A log of a minute at 1 ms holds 60,000 rows; one `Sample` object per row costs a microsecond and
a hundred bytes each, so logs are read, stored and judged as columns (times, values) and turned
into `Sample`s only where a page shows a handful of them. numpy is imported by whoever builds
the arrays: this module only names their types, so importing the models stays cheap.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from iolab.models.result import Sample

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True, eq=False)
class SampleSeries:
    """One series of one point: `metric` of `source` ("job1", "HOST:job2", a device) in direction `ddir`.

    `t_ms` (int64) are the ends of the intervals in ms from the start, in the order they came;
    `values` are in the units of `Sample` (bw in bytes/s, iops in I/O per second, latency in ns): float64,
    or int64 as fio's logs give them (read back from the store they are always float64).
    """

    metric: str
    ddir: str
    source: str
    t_ms: np.ndarray
    values: np.ndarray

    def __len__(self) -> int:
        return len(self.t_ms)

    def samples(self) -> list[Sample]:
        """The rows as `Sample`s (for the few readers that want them one by one)."""
        return [
            Sample(self.metric, self.ddir, self.source, t, float(v))
            for t, v in zip(self.t_ms.tolist(), self.values.tolist(), strict=True)
        ]


def series_of(samples: Iterable[Sample]) -> list[SampleSeries]:
    """`Sample`s grouped into series by (metric, direction, source), each in the order its rows came. No samples
    (an imported point has none) load no numpy: `iolab import` forks its parsing process before it loads."""
    rows: dict[tuple[str, str, str], tuple[list[int], list[float]]] = {}
    for s in samples:
        times, values = rows.setdefault((s.metric, s.ddir, s.source), ([], []))
        times.append(s.t_ms)
        values.append(s.value)
    if not rows:
        return []
    import numpy as np

    return [
        SampleSeries(metric, ddir, source, np.array(times, dtype=np.int64), np.array(values, dtype=np.float64))
        for (metric, ddir, source), (times, values) in rows.items()
    ]


def samples_of(series: Iterable[SampleSeries]) -> list[Sample]:
    """Every row of `series` as a `Sample`."""
    return [sample for one in series for sample in one.samples()]
