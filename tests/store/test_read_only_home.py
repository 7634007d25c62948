"""A home iolab may only read (a read-only bind mount of it) still serves every reading command; writing is
refused with its reason.

The mount is a change to the host every process sees (a bind mount under the shared /tmp), so this module
runs in the serial tier (tests/conftest.py SERIAL), alone: no other worker's walk of /tmp meets a read-only
directory it cannot clean, and a mount that outlived the test could not be mistaken for another test's.
Its commands run in this process (tests.in_process), so it is marked end to end by hand.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.in_process import iolab

pytestmark = pytest.mark.e2e

FIO_JSON = Path(__file__).resolve().parents[1] / "data" / "fio" / "randread-4jobs.json"


@pytest.mark.skipif(os.geteuid() != 0, reason="a read-only mount needs root (as a user, root-owned files would do)")
def test_a_read_only_home_still_serves_ls_show_and_report(iolab_home, tmp_path):
    assert iolab("import", str(FIO_JSON)).returncode == 0
    mounted = subprocess.run(
        ["mount", "--bind", "-o", "ro", str(iolab_home), str(iolab_home)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot bind-mount read-only here: {mounted.stderr.decode().strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(iolab_home)], check=True)
        with pytest.raises(OSError):
            (iolab_home / "probe").write_text("x")  # really read-only, even for root
        for args, shown in ((["ls"], "complete"), (["show", "1"], "rr"), (["report", "1"], "rr"), (["history"], "rr")):
            proc = iolab(*args)
            assert proc.returncode == 0 and "Traceback" not in proc.stderr, (args, proc.stderr)
            assert shown in proc.stdout, (args, proc.stdout)
        page = tmp_path / "r.html"
        assert iolab("report", "--html", str(page), "1").returncode == 0 and page.stat().st_size > 1000
        refused = iolab("import", str(FIO_JSON))  # writing still needs a writable home
        assert refused.returncode == 2 and "writable" in refused.stderr and "Traceback" not in refused.stderr
    finally:  # lazily, until none is left: a mount left behind is every later test's host state
        for _ in range(5):  # (a bind mount on a shared parent can be stacked more than once)
            subprocess.run(["umount", "--lazy", str(iolab_home)], capture_output=True, check=False)
            if not os.path.ismount(iolab_home):
                break
