"""FIO-UNWRITTEN-READ on real loop devices: a blank device's sampled blocks are zeros, a filled one's are not
(moved from test_method_rules.py, whose other tests need no device and now run in the fast tier)."""

from __future__ import annotations

import os

import pytest

from iolab.doctor.rule import Context
from iolab.probe import Root, take_snapshot
from tests.doctor.test_method_rules import _block_job, _run
from tests.loopdev import loop_devices, loop_skip_reason


@pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
def test_unwritten_read_only_where_the_sampled_blocks_are_zeros():
    with loop_devices(2, size_mib=32) as (blank, filled):
        with open(filled.path, "r+b") as device:
            for _ in range(32):
                device.write(os.urandom(1 << 20))
        snapshot = take_snapshot(Root(), [blank.path, filled.path])
        blank_findings = _run("FIO-UNWRITTEN-READ", Context(snapshot=snapshot, jobs=[_block_job(blank.path)]))
        assert len(blank_findings) == 1 and "64 of 64 blocks" in blank_findings[0].title
        assert _run("FIO-UNWRITTEN-READ", Context(snapshot=snapshot, jobs=[_block_job(filled.path)])) == []
    # lint, with nothing sampled, cannot tell: it says so
    assert len(_run("FIO-UNWRITTEN-READ", Context(jobs=[_block_job("/dev/nvme0n1")]))) == 1
