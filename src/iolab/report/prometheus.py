"""Latest results as node_exporter textfile-collector metrics.

node_exporter's textfile collector reads every `*.prom` file in its
directory on each scrape, so iolab only has to keep one file current. The
format is Prometheus's text exposition format:

- metric names `iolab_...` in base units (bytes, seconds), one `# HELP` and
  one `# TYPE` line per family, all of a family's samples together;
- label values escaped: backslash as `\\\\`, double quote as `\\"`, newline
  as `\\n` (anything else is literal UTF-8);
- no timestamps: the textfile collector rejects them, so the time of the
  latest run is its own gauge, `iolab_last_run_timestamp_seconds`;
- a value that is unknown (no COV yet, no latency for this workload) is left
  out, not written as 0 or NaN, so alerts on it do not fire on absence.

`write_textfile` replaces the file atomically: node_exporter may read at any
moment, and must never see half a file.
"""

from __future__ import annotations

import math
from pathlib import Path

from iolab.private import write_private
from iolab.views.series_metrics import SeriesMetrics

# (metric name, attribute, help text); gauges all, since each is the latest value.
FAMILIES = (
    ("iolab_bandwidth_bytes_per_second", "bandwidth_bytes_per_second", "Bandwidth of the latest run."),
    ("iolab_io_operations_per_second", "iops", "I/O operations per second (IOPS) of the latest run."),
    ("iolab_latency_mean_seconds", "latency_mean_seconds", "Mean completion latency of the latest run."),
    ("iolab_latency_p99_seconds", "latency_p99_seconds", "99th percentile completion latency of the latest run."),
    ("iolab_rolling_cov_ratio", "rolling_cov", "Coefficient of variation (stddev/mean) over the health window."),
    ("iolab_healthy", "healthy", "1 when the rolling COV is within its target, 0 when not."),
    ("iolab_last_run_timestamp_seconds", "last_run_timestamp_seconds", "Time of the latest run, Unix epoch seconds."),
)


def escape_label_value(value: str) -> str:
    """Escape a label value for the text exposition format."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def format_value(value: float) -> str:
    """A sample value as Prometheus parses it: Go float syntax, with +Inf/-Inf/NaN spelled out."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value))


def render_textfile(series: list[SeriesMetrics]) -> str:
    """All series as one textfile-collector file; series sorted so the file is stable between runs.

    Two series with the same host, target and workload would be one time
    series twice, which node_exporter rejects for the whole file: that is a
    ValueError here instead.
    """
    ordered = sorted(series, key=lambda s: (s.host, s.target, s.workload))
    keys = [(s.host, s.target, s.workload) for s in ordered]
    duplicates = {k for k in keys if keys.count(k) > 1}
    if duplicates:
        raise ValueError(f"duplicate series (host, target, workload): {sorted(duplicates)}")
    lines: list[str] = []
    for name, attribute, help_text in FAMILIES:
        samples = []
        for s in ordered:
            value = getattr(s, attribute)
            if value is None:
                continue
            labels = (
                f'host="{escape_label_value(s.host)}",target="{escape_label_value(s.target)}",'
                f'workload="{escape_label_value(s.workload)}"'
            )
            samples.append(f"{name}{{{labels}}} {format_value(float(value))}")
        if samples:
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge", *samples]
    return "\n".join(lines) + "\n" if lines else ""


def write_textfile(path: Path, text: str) -> None:
    """Replace `path` with `text` atomically (a temporary `.tmp` name in the same directory, then renamed).

    The collector reads `*.prom` and ignores the temporary name. Mode 0644,
    unlike iolab's other files: node_exporter, usually another user, reads it,
    and it holds figures only, no host details or command lines.
    """
    write_private(path, text, mode=0o644)
