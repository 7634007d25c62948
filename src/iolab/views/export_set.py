"""What `iolab export` writes, loaded only as far as the format asked for needs."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from iolab.store.db import Store
from iolab.views.export import ExportedRun, load_export
from iolab.views.series_metrics import SeriesMetrics


@dataclass
class ExportSet:
    """Every run's points with their environment (CSV, JSON), or each series' latest figures, rolling COV
    and health (Prometheus): each loaded when a format asks for it."""

    store: Store
    window_s: float
    cov_target: float
    min_runs: int

    @cached_property
    def exported(self) -> list[ExportedRun]:
        from iolab.store.queries import list_runs

        return load_export(self.store, [run.id for run in reversed(list_runs(self.store))])

    @cached_property
    def metrics(self) -> list[SeriesMetrics]:
        from iolab.store.series import load_series
        from iolab.views.series_metrics import series_metrics

        return series_metrics(self.store, load_series(self.store), self.window_s, self.cov_target, self.min_runs)
