"""Latest results as node_exporter textfile-collector metrics, written by `prometheus_client`.

node_exporter's textfile collector reads every `*.prom` file in its
directory on each scrape, so iolab only has to keep one file current. The
client library writes the text exposition format (HELP/TYPE once per family,
label values escaped, Go float syntax), so iolab only decides what to say:

- metric names `iolab_...` in base units (bytes, seconds, ratios);
- labels that stay the same run after run (host, target, workload name and
  identity), so each series is one Prometheus time series for months;
- label values shown as every other page shows them (`iolab.printable`: ESC as the four characters `\\x1b`),
  escaped before the client library writes them, so the backslash of `\\x1b` is escaped as the format
  requires and a scraper reads the value back as `\\x1b`;
- no timestamps: the textfile collector rejects them, so the time of the
  latest run is its own gauge, `iolab_last_run_timestamp_seconds`;
- a value that is unknown (no COV yet, no latency for this workload, no
  change point) is left out, not written as 0 or NaN, so alerts on it do not
  fire on absence; a family with no sample at all is left out whole.

`prometheus_client` is imported only when a file is written: `iolab --help`
and every other command do not pay for it.

`write_textfile` replaces the file atomically: node_exporter may read at any
moment, and must never see half a file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from iolab.printable import printable
from iolab.private import write_private
from iolab.views.series_metrics import SeriesMetrics

if TYPE_CHECKING:
    from prometheus_client.metrics_core import Metric

    from iolab.views.export_set import ExportSet

LABELS = ("host", "target", "workload", "workload_id")

# (metric name, attribute, help text); gauges all, since each is the latest value.
FAMILIES = (
    ("iolab_bandwidth_bytes_per_second", "bandwidth_bytes_per_second", "Bandwidth of the latest run."),
    ("iolab_io_operations_per_second", "iops", "I/O operations per second (IOPS) of the latest run."),
    ("iolab_latency_mean_seconds", "latency_mean_seconds", "Mean completion latency of the latest run."),
    ("iolab_latency_p99_seconds", "latency_p99_seconds", "99th percentile completion latency of the latest run."),
    ("iolab_rolling_cov_ratio", "rolling_cov", "Coefficient of variation (stddev/mean) over the health window."),
    ("iolab_healthy", "healthy", "1 when the rolling COV is within its target, 0 when not."),
    ("iolab_last_run_timestamp_seconds", "last_run_timestamp_seconds", "Time of the latest run, Unix epoch seconds."),
    (
        "iolab_filesystem_used_ratio",
        "filesystem_used_ratio",
        "Fullness (used/size) of the target's file system before the latest run.",
    ),
    (
        "iolab_last_change_point_run",
        "last_change_run",
        "Run id of the first run of the latest change of level (one whose place is not known: its likeliest run).",
    ),
    (
        "iolab_last_change_point_timestamp_seconds",
        "last_change_timestamp_seconds",
        "Start of the first run of the latest change of level (its likeliest run), Unix epoch seconds.",
    ),
)


def label_values(s: SeriesMetrics) -> tuple[str, str, str, str]:
    """The values of `LABELS` for `s`, as written: each with its control characters escaped (`printable`).

    The text exposition format lets a label value hold any UTF-8 but requires exactly three escapes in it,
    backslash, double quote and line feed, as `\\\\`, `\\"` and `\\n`
    (https://prometheus.io/docs/instrumenting/exposition_formats/#text-format-details: "label_value can be any
    sequence of UTF-8 characters, but the backslash, double-quote, and line feed characters have to be escaped").
    prometheus_client writes those three; a `\\x1b` made after it (the page's own escaping) would be an escape
    the format does not have, and a scraper may refuse the whole file for it. Escaped here, before, the page
    holds no control character left for the page's escaping to change.
    """
    return (printable(s.host), printable(s.target), printable(s.workload), printable(s.workload_id))


class _SeriesCollector:
    """The series as a prometheus_client collector: one gauge family per figure, series in a stable order."""

    def __init__(self, series: list[SeriesMetrics]) -> None:
        self.series = sorted(series, key=label_values)

    def collect(self) -> Iterator[Metric]:
        from prometheus_client.core import GaugeMetricFamily

        for name, attribute, help_text in FAMILIES:
            family = GaugeMetricFamily(name, help_text, labels=LABELS)
            for s in self.series:
                value = getattr(s, attribute)
                if value is not None:
                    family.add_metric(label_values(s), float(value))
            if family.samples:
                yield family


def render_textfile(series: list[SeriesMetrics]) -> str:
    """All series as one textfile-collector file; the same series give the same file, byte for byte.

    Two series with the same labels as written would be one time series twice, which
    node_exporter rejects for the whole file: that is a ValueError here instead.
    """
    from prometheus_client import CollectorRegistry, generate_latest

    keys = [label_values(s) for s in series]
    duplicates = {k for k in keys if keys.count(k) > 1}
    if duplicates:
        raise ValueError(f"duplicate series (host, target, workload, workload_id): {sorted(duplicates)}")
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_SeriesCollector(series))
    return generate_latest(registry).decode()


def write_textfile(path: Path, text: str) -> None:
    """Replace `path` with `text` atomically (a temporary `.tmp` name in the same directory, then renamed).

    The collector reads `*.prom` and ignores the temporary name. Mode 0644,
    unlike iolab's other files: node_exporter, usually another user, reads it,
    and it holds figures only, no host details or command lines.
    """
    write_private(path, text, mode=0o644)


def render_export(export: ExportSet, terminal: bool = False, verbose: bool = False) -> str:
    return render_textfile(export.metrics)


RENDERS = {"export": render_export}
