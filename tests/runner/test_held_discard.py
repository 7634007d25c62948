"""A discard goes only through the run's own handle on a device (runner.blank.HeldDevices.discard): a device
the run does not hold for writing is refused with EPERM before any ioctl, and a held one that cannot be
discarded (here a regular file, never a real device) says so as an OSError the phase reports."""

from __future__ import annotations

import errno
import os

import pytest

from iolab.models import Target
from iolab.runner.blank import HeldDevices
from iolab.runner.phases import discard


def test_a_device_the_run_does_not_hold_is_never_discarded():
    with pytest.raises(OSError) as refused:
        HeldDevices({}).discard("/dev/not-held")
    assert refused.value.errno == errno.EPERM and refused.value.strerror == "not held by this run for writing"


def test_a_held_handle_that_cannot_be_discarded_is_an_oserror(tmp_path):
    path = tmp_path / "not-a-device"
    path.write_bytes(b"\0" * 4096)
    fd = os.open(path, os.O_RDWR)
    try:
        with pytest.raises(OSError) as failed:
            HeldDevices({str(path): fd}).discard(str(path))
        assert failed.value.errno in (errno.ENOTTY, errno.EINVAL, errno.EOPNOTSUPP)
    finally:
        os.close(fd)
    assert path.read_bytes() == b"\0" * 4096


def test_the_discard_phase_names_a_target_it_cannot_discard():
    file = Target(path="/srv/f", kind="file", filename="/srv/f", size_bytes=1 << 20, writable=True)
    assert discard(file, HeldDevices({})) == "/srv/f: discard applies only to block devices opened with --allow-write"
    device = Target(path="/dev/fake", kind="block", filename="/dev/fake", size_bytes=1 << 20, writable=True)
    assert discard(device, HeldDevices({})) == "/dev/fake: discard failed (not held by this run for writing)"
    read_only = Target(path="/dev/fake", kind="block", filename="/dev/fake", size_bytes=1 << 20)
    assert discard(read_only, HeldDevices({})).endswith(
        "discard applies only to block devices opened with --allow-write"
    )
