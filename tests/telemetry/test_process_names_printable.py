"""Another user names their process as they like (`prctl(PR_SET_NAME)`, or what they exec): an escape sequence
in the name (a terminal title, a screen cleared, a clipboard written by OSC 52) once reached root's terminal in
TEL-OTHER-CPU's "busiest processes", as Rich passes ESC through. Names are read escaped."""

from __future__ import annotations

import subprocess
import sys

import pytest

from iolab.telemetry.processes import _parse_stat, process_times

HOSTILE = "a\x1b]0;x\x07\x1b[2Jb"


def test_a_name_with_control_characters_is_read_escaped():
    parsed = _parse_stat(f"42 ({HOSTILE}) S 1 42 42 0 -1 4194304 0 0 0 0 7 3 0 0 20 0 1 0 1 1 1")
    assert parsed is not None
    name, ppid, ticks = parsed
    assert name.isprintable() and "\\x1b" in name and (ppid, ticks) == (1, 10)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl and /proc are Linux's")
def test_a_running_process_that_renamed_itself_is_read_escaped():
    script = (
        "import ctypes, sys, time\n"
        "ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)\n"  # PR_SET_NAME (15 bytes kept)
        "print('named', flush=True)\ntime.sleep(30)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script, "\x1b[2J\x1b]0;t\x07"], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "named"
        name, _ = process_times().ticks[child.pid]
        assert name.isprintable() and name.startswith("\\x1b[2J"), name
    finally:
        child.kill()
        child.wait()
