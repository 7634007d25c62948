"""The progress line of a long `iolab import`: files done, files a second, time left, on stderr.

On a terminal it is one line rewritten in place, at most ten times a second, from the second second
on (a small import ends before it would show). Elsewhere (a log file, CI) it is a plain line at each
tenth of a large import only, so scripts and tests of small imports see nothing of it.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from iolab.printable import Styled

LARGE = 1000  # files: below this an import is quiet off a terminal
FIRST_S = 1.0  # a terminal sees nothing of an import shorter than this
EVERY_S = 0.1


class ImportProgress:
    """Called with (files done, files in all) after each file is stored."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.started = time.monotonic()
        self.shown = 0.0
        self.tenth = 0
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        elapsed = now - self.started
        if self.tty:
            if elapsed >= FIRST_S and (now - self.shown >= EVERY_S or done == total):
                self.shown = now
                self.stream.write(Styled("\r" + line(done, total, elapsed) + "\x1b[K"))  # its own: figures only
                self.drawn = True
                self.stream.flush()
        elif total >= LARGE and done * 10 // total > self.tenth:
            self.tenth = done * 10 // total
            self.stream.write(line(done, total, elapsed) + "\n")
            self.stream.flush()

    def close(self) -> None:
        """End the terminal's progress line so what follows starts on a line of its own."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False


def line(done: int, total: int, elapsed: float) -> str:
    """`import  1,234/3,450 files  [######....]  36%  410 files/s  5 s left`."""
    share = done / total if total else 1.0
    filled = int(share * 20)
    rate = done / elapsed if elapsed > 0 else 0.0
    left = (total - done) / rate if rate > 0 else 0.0
    return (
        f"import {done:>{len(f'{total:,}')},}/{total:,} files  [{'#' * filled}{'.' * (20 - filled)}]"
        f" {share:4.0%}  {rate:,.0f} files/s  {_duration(left)} left"
    )


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest:02d} s"
