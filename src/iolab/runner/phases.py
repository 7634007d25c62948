"""Unmeasured phases around the measured points: writing the scratch file first.

Reading a file that was only allocated measures nothing: the file system
returns zeros for unwritten extents without touching the device. So a
scratch file is written in full, sequentially, before any point reads it,
and removed when the run ends.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from iolab.errors import RunFailed
from iolab.fio.jobfile import JobSection, render_jobfile
from iolab.fio.run import HANG_GRACE_S, run_fio
from iolab.models import Target

# Slowest write rate (bytes/s) before the fill counts as hung: a slow USB disk.
_SLOWEST_FILL = 5e6


def fill_scratch(target: Target, fio: str) -> float:
    """Write the whole scratch file once with large sequential writes; returns seconds taken."""
    options = {
        "filename": target.filename,
        "size": str(target.size_bytes),
        "rw": "write",
        "bs": "1M",
        "iodepth": "16",
        "ioengine": "libaio",
        "direct": "1" if target.direct else "0",
        "end_fsync": "1",
    }
    with tempfile.TemporaryDirectory(prefix="iolab-fill-") as tmp:
        jobfile = Path(tmp) / "fill.fio"
        jobfile.write_text(render_jobfile([JobSection(name="fill", options=options)]))
        invocation = run_fio(jobfile, Path(tmp) / "fill.json", fio, target.size_bytes / _SLOWEST_FILL + HANG_GRACE_S)
    if invocation.returncode != 0:
        detail = invocation.stderr.strip().splitlines()[-1:] or [f"exit code {invocation.returncode}"]
        raise RunFailed(f"writing the scratch file {target.filename} failed: {detail[0]}")
    return invocation.elapsed_s


def remove_scratch(target: Target) -> None:
    """Delete a scratch file iolab created; a missing one is fine."""
    if target.scratch:
        Path(target.filename).unlink(missing_ok=True)
