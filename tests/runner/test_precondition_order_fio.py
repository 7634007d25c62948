"""A precondition's data is what the points find, with real fio: the precondition writes a pattern over the
scratch file and the measured point reads it with fio's pattern verify. Run before the scratch fill (the order
this replaces), the fill's sequential write overwrote every block and fio failed the point with "verify type
mismatch"."""

from __future__ import annotations

import shutil

import pytest

from tests.iolab_cli import iolab

requires_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")

PLAN = """name = "pre"
[options]
runtime = "1s"
bs = "4k"
verify = "pattern"
verify_pattern = "0xab"
[axes]
rw = ["randread"]
[phases.precondition]
options = { rw = "write", bs = "1m", buffer_pattern = "0xab" }
scope = "once"
"""


@requires_fio
def test_the_points_read_what_the_precondition_wrote_not_the_fill(tmp_path):
    plan, target = tmp_path / "pre.toml", tmp_path / "target"
    plan.write_text(PLAN)
    target.mkdir()
    proc = iolab("run", str(plan), str(target), "--size", "8m", "--no-telemetry")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "complete: 1 of 1 points ok" in proc.stdout
    phases = [line.split(":")[1].strip() for line in proc.stdout.splitlines() if line.strip().startswith("phase:")]
    assert phases == ["fill", "precondition"]
