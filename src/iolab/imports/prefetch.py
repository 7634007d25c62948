"""Asking the kernel to read an import's fio logs ahead of their parsing.

Parsing reads each log when its output comes up: on an archive not in the page cache, each read waits for
the disk while the CPU that would parse stands idle. fio-plot's collection (106,685 logs, 699 MB) took
10.8 s to read cold by `cat` alone (5.5 s of it the kernel's CPU), and its import 22-23 s cold against 14 s
cached. Asking for every log at once (`POSIX_FADV_WILLNEED`: the kernel reads them in the background,
several at a time) keeps the disk busy while both processes parse.

Only regular files are asked for, opened without following a link and without blocking (a FIFO planted
in an archive would block an open for reading; a device node is not opened at all: each path is
looked at before it is opened, and the open file again), and no more than half
the memory the kernel says is available, so the prefetch cannot push out what it read before it is parsed.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterable
from pathlib import Path

MEMORY_SHARE = 0.5  # of MemAvailable: read ahead no more than this


def logs_to_read(log_paths: list[str], output_folders: Iterable[Path]) -> list[str]:
    """The logs that sit beside an output about to be parsed (in its folder, or a client's folder under it:
    `fio_files.logs_beside`), in the walk's order; an archive imported before asks for none."""
    folders = {str(folder) for folder in output_folders}
    return [
        path
        for path in log_paths
        if (folder := os.path.dirname(path)) in folders or os.path.dirname(os.path.dirname(folder)) in folders
    ]


def start(paths: list[str]) -> None:
    """A daemon thread asking for `paths` (see above), where there are any. Start it only in a process that will
    not fork afterwards (the import's second process does)."""
    if paths:
        threading.Thread(target=ask, args=(paths, _budget()), name="iolab-prefetch", daemon=True).start()


def ask(paths: list[str], budget: int) -> int:
    """Ask the kernel to read each regular file of `paths` until `budget` bytes are asked for; the bytes asked
    for. A file that cannot be opened is skipped: its parsing says why."""
    asked = 0
    for path in paths:
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                continue
            if asked + info.st_size > budget:
                break
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
            asked += info.st_size
        except OSError:
            continue
        finally:
            os.close(fd)
    return asked


def _budget() -> int:
    """Half the memory the kernel says is available (MemAvailable), in bytes; 0 when it cannot say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(int(line.split()[1]) * 1024 * MEMORY_SHARE)
    except (OSError, ValueError, IndexError):
        pass
    return 0
