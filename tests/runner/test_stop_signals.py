"""Ctrl-C, TERM and HUP stop a run cleanly: finished points kept, the scratch file removed, exit 3.

Each waits for a finished point before it signals and judges only the outcome, so other workers' load
cannot change the answer (the SIGKILL tests, which aim at moments inside a point, are in test_interrupt.py
and run alone)."""

from __future__ import annotations

import json
import shutil
import signal

import pytest

from tests.in_process import iolab
from tests.runner.interrupting import start_run, wait_for_points

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["ctrl-c", "term", "hup"])
def test_ctrl_c_term_or_hup_stop_cleanly_keep_points_and_remove_the_scratch_file(tmp_path, iolab_home, stop):
    proc = start_run(tmp_path, runtime="3")
    wait_for_points(iolab_home, 1, proc)
    proc.send_signal(stop)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err
    assert "Traceback" not in err
    assert "interrupted:" in err and "are kept in run 1" in err
    assert not list(tmp_path.glob("iolab-scratch-*")), "scratch left behind"
    (run,) = json.loads(iolab("ls", "--json").stdout)
    assert run["status"] == "interrupted" and run["points_done"] >= 1
