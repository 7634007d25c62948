"""The line a run prints as each point starts names its workload as fio reads the job's options."""

from __future__ import annotations

import io

from rich.console import Console

from iolab.models import Point, Target
from iolab.report.terminal import ConsoleProgress


def _started(options: dict[str, str]) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    point = Point("p", Target(path="/data/f", kind="file", filename="/data/f", size_bytes=1 << 20), options)
    ConsoleProgress(console).point_started(1, 1, point)
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def test_a_job_written_with_fio_s_other_names_shows_its_rw_and_bs():
    # `readwrite=` and `blocksize=` are fio's aliases of rw= and bs=: the line read rw raw and showed "?"
    line = _started({"readwrite": "randread", "blocksize": "4k", "iodepth": "8"})
    assert "p (randread 4k QD8) on /data/f" in line


def test_fio_s_defaults_are_shown_where_the_job_gives_none():
    assert "p (read 4k QD1) on /data/f" in _started({})
