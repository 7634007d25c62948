"""Comma-list options checked for their domain when given, not when (or if) they are used.

Issue 39: `run --array-modes x` was accepted: the modes were checked only once an array's points were
made, so without --devices (or with a mode list that was all wrong but empty after stripping) nothing
looked at them. `--hosts a,,b` lost a host to an empty name (what an unset variable leaves).
"""

from __future__ import annotations

import pytest

from tests.in_process import assert_clean_error, iolab


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("x", "'x' is not an array mode"),
        ("", "'' is not an array mode"),
        ("together,,alone", "'' is not an array mode"),
        ("alone,alone", "a mode is named twice"),
        ("Together", "'Together' is not an array mode"),
    ],
)
def test_a_wrong_array_mode_is_exit_2(tmp_path, iolab_home, value, said):
    proc = iolab("run", "--devices", "/dev/null,/dev/zero", "--array-modes", value, "--dry-run")
    assert said in assert_clean_error(proc)


def test_array_modes_without_devices_is_exit_2(tmp_path, iolab_home):
    proc = iolab("run", str(tmp_path), "--array-modes", "alone", "--dry-run")
    assert "--array-modes chooses views of --devices" in assert_clean_error(proc)
