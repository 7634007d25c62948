"""fio per-interval logs (write_bw_log / write_iops_log / write_lat_log) → `Sample`s.

Row format: `time_ms, value, ddir, bs, offset[, prio]`; bw in KiB/s,
latency in ns, iops in I/O per second. With log_avg_msec each row is a
window average. Rows of different directions share timestamps, and the
final window can be partial and written twice (fio HOWTO, "Log File
Formats"), so in averaged logs (block size 0) a repeated (time,
direction) keeps its first row. Per-I/O logs (no log_avg_msec) carry
the block size and legitimately share millisecond timestamps.
"""

from __future__ import annotations

import re
from pathlib import Path

from iolab.models import Sample

DDIR_NAMES = {0: "read", 1: "write", 2: "trim"}
# <prefix>_<metric>.<job index>.log, optionally .<host> in client/server mode.
LOG_NAME = re.compile(r"_(bw|iops|lat|clat|slat)\.(\d+)\.log(?:\.(.+))?$")
SCALE = {"bw": 1024.0}  # KiB/s → bytes/s; the others are already in base units


def parse_log(text: str, metric: str, source: str) -> list[Sample]:
    """Samples of one log file; malformed lines are skipped (a killed fio leaves one)."""
    scale = SCALE.get(metric, 1.0)
    seen: set[tuple[int, int]] = set()
    samples: list[Sample] = []
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) < 3:
            continue
        try:
            t_ms, value, ddir = int(fields[0]), float(fields[1]), int(fields[2])
        except ValueError:
            continue
        if ddir not in DDIR_NAMES:
            continue
        averaged = len(fields) < 4 or fields[3].strip() == "0"
        if averaged:
            if (t_ms, ddir) in seen:
                continue
            seen.add((t_ms, ddir))
        samples.append(Sample(metric=metric, ddir=DDIR_NAMES[ddir], source=source, t_ms=t_ms, value=value * scale))
    return samples


def read_logs(directory: Path, prefix: str, host: str = "") -> tuple[list[Sample], dict[str, str]]:
    """All samples of the logs fio wrote under `prefix`, and their raw texts by file name.

    `host` names the host of logs kept in a folder of their own without fio's `.<host>` suffix
    (pbench moves each client's logs to `clients/<host>/`).
    """
    samples: list[Sample] = []
    raw: dict[str, str] = {}
    for path in sorted(directory.glob(f"{prefix}_*.log*")):
        match = LOG_NAME.search(path.name)
        if not match:
            continue
        metric, job, suffix = match.groups()
        text = path.read_text(errors="replace")
        raw[path.name] = text
        owner = suffix or host
        source = f"{owner}:job{job}" if owner else f"job{job}"
        samples.extend(parse_log(text, metric, source))
    return samples, raw
