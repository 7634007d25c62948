"""The write guard on a job (runner.safety.write_refusal, check_write) and the devices a run holds open
(devices_to_hold), in the fast tier: a writing job on a read-only target is refused with its reasons and can
be skipped (read_only); a reading job on an existing file shorter than its reach is refused (fio would extend
it by writing) and cannot; a remote device says why it stays read-only; what the guard lets write is what a
run holds, each device once."""

from __future__ import annotations

import pytest

from iolab import guards
from iolab.errors import UserError
from iolab.models import Target
from iolab.runner.safety import REMOTE_DEVICE, check_write, devices_to_hold, write_refusal

MIB = 1 << 20


def _target(kind: str, path: str = "/x", **kw) -> Target:  # type: ignore[no-untyped-def]
    return Target(path=path, kind=kind, filename=path, size_bytes=kw.pop("size_bytes", 64 * MIB), **kw)  # type: ignore[arg-type]


def test_a_writing_job_on_a_read_only_target_is_refused_with_its_reasons_and_may_be_skipped():
    refusal = write_refusal(_target("block"), {"rw": "randwrite", "bs": "4k"})
    assert refusal is not None and refusal.read_only
    assert refusal.reason == (
        "it writes (rw=randwrite) and the target is read-only (writes need --allow-write, on a blank device "
        "or a scratch directory)"
    )
    assert write_refusal(_target("block"), {"rw": "randread"}) is None  # reads only
    assert write_refusal(_target("block", writable=True), {"rw": "randwrite"}) is None


def test_a_whole_target_write_names_it_and_a_remote_device_says_why_it_stays_read_only():
    refusal = write_refusal(_target("block"))
    assert refusal is not None and refusal.reason.startswith("it writes (the whole target) and the target is read-only")
    remote = write_refusal(_target("group", hosts=("h1", "h2")), {"rw": "write"})
    assert remote is not None and remote.read_only and remote.reason == f"it writes (rw=write) and {REMOTE_DEVICE}"
    with guards.switched_off("read-only-target"):
        assert write_refusal(_target("block"), {"rw": "randwrite"}) is None


def test_a_read_past_an_existing_file_s_end_is_refused_and_is_no_skippable_write():
    short = _target("file", size_bytes=MIB)
    refusal = write_refusal(short, {"rw": "read", "size": "2M"})
    assert refusal is not None and not refusal.read_only
    assert refusal.reason.endswith(", and fio would extend the file by writing to it")
    assert write_refusal(short, {"rw": "read", "size": "1M"}) is None
    assert write_refusal(_target("block", size_bytes=MIB), {"rw": "read", "size": "2M"}) is None  # a device: no extent


def test_check_write_says_the_point_the_target_and_the_reason_in_one_line():
    with pytest.raises(UserError) as refused:
        check_write("randwrite-qd32", _target("block", path="/dev/sdz"), {"rw": "randwrite"})
    assert str(refused.value).startswith("randwrite-qd32: refusing to run on /dev/sdz: it writes (rw=randwrite)")
    check_write("randread", _target("block", path="/dev/sdz"), {"rw": "randread"})  # nothing to refuse


def test_a_run_holds_each_local_device_the_guard_lets_it_write_once():
    targets = [
        _target("block", "/dev/sda", writable=True),
        _target("block", "/dev/sdb"),  # read-only: not held
        _target("group", "/dev/md", writable=True, members=("/dev/sdc", "/dev/sda")),
        _target("block", "/dev/sdd", writable=True, hosts=("h1",)),  # on other hosts: not this host's to hold
        _target("directory", "/srv", writable=True, scratch=True),
    ]
    assert devices_to_hold(targets) == ["/dev/sda", "/dev/sdc"]
