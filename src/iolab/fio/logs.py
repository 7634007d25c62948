"""fio per-interval logs (write_bw_log / write_iops_log / write_lat_log) → `SampleSeries`, one per direction.

Row format: `time_ms, value, ddir, bs[, offset[, prio]]`; bw in KiB/s,
latency in ns, iops in I/O per second. With log_avg_msec each row is a
window average. Rows of different directions share timestamps, and the
final window can be partial and written twice (fio HOWTO, "Log File
Formats"), so in averaged logs (block size 0) a repeated (time,
direction) keeps its first row. Per-I/O logs (no log_avg_msec) carry
the block size and legitimately share millisecond timestamps.

A log is read whole and parsed by numpy in one call (39 MB of text a second on a busy 2-core VM,
against 11 MB/s line by line into the same arrays): fio-plot's collection is 106,685 logs, 30.8M rows. A log numpy cannot
take in one piece (a line cut short by a killed fio, a stray word) is read line by line, and
the malformed lines skipped. Block size and offset are not kept: no page or rule reads them.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from iolab.models.sample_series import SampleSeries
from iolab.textfile import Refused, read_regular

if TYPE_CHECKING:
    import numpy as np

DDIR_NAMES = {0: "read", 1: "write", 2: "trim"}
# <prefix>_<metric>.<job index>.log, optionally .<host> in client/server mode.
LOG_NAME = re.compile(r"_(bw|iops|lat|clat|slat)\.(\d+)\.log(?:\.(.+))?$")
SCALE = {"bw": 1024}  # KiB/s → bytes/s; the others are already in base units


def parse_log(data: bytes, metric: str, source: str) -> list[SampleSeries]:
    """The series of one log file, one per direction it holds; malformed lines are skipped."""
    table = _table(data)
    if table is None or not len(table):
        return []
    return _series(table, metric, source)


def _table(data: bytes) -> np.ndarray | None:
    """The log's rows as a 2-D array (columns as fio wrote them), or None when it holds no row."""
    import numpy as np

    body = data.strip()
    if not body:
        return None
    first = body.split(b"\n", 1)[0]
    columns = first.count(b",") + 1
    rows = body.count(b"\n") + 1
    flat = body.replace(b"\r\n", b"\n").replace(b"\n", b",")
    for dtype in (np.int64, np.float64):  # integers first: fio writes them, and they parse 4x faster
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                numbers = np.fromstring(flat, dtype=dtype, sep=",")
            except (DeprecationWarning, ValueError):
                continue
        if columns >= 3 and numbers.size == rows * columns:
            return numbers.reshape(rows, columns)
    return _table_by_lines(body)


def _table_by_lines(body: bytes) -> np.ndarray | None:
    """The rows of a log numpy could not read whole: lines of at least 3 numbers, padded to 4 columns (a
    missing block size reads as 0, an averaged row, as before fio wrote one)."""
    import numpy as np

    rows = []
    for line in body.decode(errors="replace").splitlines():
        fields = line.split(",")
        if len(fields) < 3:
            continue
        try:
            rows.append((int(fields[0]), float(fields[1]), int(fields[2]), int(fields[3]) if len(fields) > 3 else 0))
        except ValueError:
            continue
    return np.array(rows, dtype=np.float64) if rows else None


def _series(table: np.ndarray, metric: str, source: str) -> list[SampleSeries]:
    """A log's rows split by direction; in averaged rows a repeated (time, direction) keeps its first row."""
    import numpy as np

    times, ddirs = table[:, 0].astype(np.int64), table[:, 2].astype(np.int64)
    if (one := _one_direction(table, times, ddirs)) is not None:
        name, first = one
        values = table[:, 1] if first is None else table[first, 1]
        return [
            SampleSeries(metric, name, source, times if first is None else times[first], values * SCALE.get(metric, 1))
        ]
    keep = (ddirs >= 0) & (ddirs <= 2)
    averaged = table[:, 3] == 0 if table.shape[1] > 3 else np.ones(len(table), dtype=bool)
    repeat = averaged & keep
    if repeat.any():
        rows = np.flatnonzero(repeat)
        pairs = times[rows] * 4 + ddirs[rows]
        if not np.all(pairs[1:] > pairs[:-1]):  # rising (time, direction) pairs repeat none: no sort needed
            _, first = np.unique(pairs, return_index=True)
            later = np.ones(len(rows), dtype=bool)
            later[first] = False
            keep[rows[later]] = False
    scale = SCALE.get(metric, 1)
    out = []
    for code, name in DDIR_NAMES.items():
        chosen = keep & (ddirs == code)
        if chosen.any():
            out.append(SampleSeries(metric, name, source, times[chosen], table[chosen, 1] * scale))
    return out


def _one_direction(table: np.ndarray, times: np.ndarray, ddirs: np.ndarray) -> tuple[str, np.ndarray | None] | None:
    """(direction, the rows kept: None for all) of a log whose rows are all of one direction in time order
    (nearly every log: a job that reads or writes), which `_series` needs not split nor sort. At rising times
    no row repeats a (time, direction) pair and every row is kept; at times that only never fall (a latency
    log's windows written twice) the first row of each time is, when every row is averaged. None for any
    other log, which `_series` splits and sifts as the rule says. A dozen numpy calls where the split takes
    twenty-five (37 µs of a log of fio-plot's ~220 rows, 15 µs this way)."""
    import numpy as np

    low, high = int(ddirs.min()), int(ddirs.max())
    if low != high or low not in DDIR_NAMES:
        return None
    if bool((times[1:] > times[:-1]).all()):
        return DDIR_NAMES[low], None
    averaged = table.shape[1] <= 3 or not table[:, 3].any()
    if not averaged or not bool((times[1:] >= times[:-1]).all()):
        return None
    return DDIR_NAMES[low], np.concatenate(([True], times[1:] != times[:-1]))  # each time's first row


def log_files(directory: Path) -> dict[str, list[Path]]:
    """The logs in `directory` by the prefix fio wrote them under, each prefix's files in name order."""
    found: dict[str, list[Path]] = {}
    try:
        names = sorted(entry.name for entry in os.scandir(directory) if entry.is_file())
    except OSError:
        return found
    for name in names:
        match = LOG_NAME.search(name)
        if match:
            found.setdefault(name[: match.start()], []).append(directory / name)
    return found


def read_logs(directory: Path, prefix: str, host: str = "", files: list[Path] | None = None) -> list[SampleSeries]:
    """Every series of the logs fio wrote under `prefix` in `directory` (`files`: those logs, already listed).

    `host` names the host of logs kept in a folder of their own without fio's `.<host>` suffix
    (pbench moves each client's logs to `clients/<host>/`).
    """
    names = [path.name for path in (log_files(directory).get(prefix, []) if files is None else files)]
    try:
        folder = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return []
    try:
        return read_logs_at(folder, names, host)
    finally:
        os.close(folder)


def read_logs_at(folder: int, names: list[str], host: str = "") -> list[SampleSeries]:
    """Every series of the logs `names` in the folder held open as `folder`, each opened from it without following
    a link (fio writes logs, never links: one is another's doing); `host` as for `read_logs`."""
    series: list[SampleSeries] = []
    for name in names:
        match = LOG_NAME.search(name)
        if not match:
            continue
        metric, job, suffix = match.groups()
        owner = suffix or host
        try:
            data = read_regular(name, dir_fd=folder, follow=False)
        except (OSError, Refused):  # unreadable, a link, gone, a FIFO or over 256 MiB: the output still imports
            continue
        series += parse_log(data, metric, f"{owner}:job{job}" if owner else f"job{job}")
    return series
