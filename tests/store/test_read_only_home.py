"""A home iolab may only read (a read-only bind mount of it) still serves every reading command; writing is
refused with its reason.

The mount is made in a mount namespace of the test's own (a forked child that unshares it): no other process
on the host ever sees it, and it ends with that child, however the child ends. A bind mount under the shared
/tmp made in the host's namespace was seen by every other worker while it lasted, and one left by a killed
session stayed on the host, failing the clean-up of every later session's temporary directories. Since no other
process sees the mount, the module runs beside the other workers (it ran in the serial tier while the mount
was the host's). Its commands run in this process (tests.in_process), so it is marked end to end by hand.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.in_process import iolab

pytestmark = pytest.mark.e2e

FIO_JSON = Path(__file__).resolve().parents[1] / "data" / "fio" / "randread-4jobs.json"
CLONE_NEWNS = 0x00020000  # unshare(2): a mount namespace of the caller's own
SKIPPED = 3  # the child's exit code when its body skipped; the reason is in its report


def in_a_mount_namespace_of_its_own(body: Callable[[], None], report: Path) -> None:
    """`body` run in a forked child, in a private mount namespace (nothing it mounts propagates back); what
    the body raised is raised here again as a failure with the child's traceback, a skip as a skip."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            if ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWNS) != 0:
                pytest.skip(f"no mount namespace of its own here: {os.strerror(ctypes.get_errno())}")
            subprocess.run(["mount", "--make-rprivate", "/"], check=True, capture_output=True)
            body()
        except pytest.skip.Exception as skipped:
            report.write_text(str(skipped.msg))
            code = SKIPPED
        except BaseException:
            report.write_text(traceback.format_exc())
            code = 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    said = report.read_text() if report.exists() else ""
    if code == SKIPPED:
        pytest.skip(said)
    assert code == 0, said or f"the child ended with {code}"


@pytest.mark.skipif(os.geteuid() != 0, reason="a read-only mount needs root (as a user, root-owned files would do)")
def test_a_read_only_home_still_serves_ls_show_and_report(iolab_home, tmp_path):
    assert iolab("import", str(FIO_JSON)).returncode == 0

    def read_only() -> None:
        mounted = subprocess.run(
            ["mount", "--bind", "-o", "ro", str(iolab_home), str(iolab_home)], capture_output=True, check=False
        )
        if mounted.returncode != 0:
            pytest.skip(f"cannot bind-mount read-only here: {mounted.stderr.decode().strip()}")
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

    in_a_mount_namespace_of_its_own(read_only, tmp_path / "child.txt")
    assert not os.path.ismount(iolab_home)  # never mounted where this process (or any other) looks
    (iolab_home / "probe").write_text("x")  # and writable here all along
