"""The watch over written devices, on a fake /sys under tmp_path: what appears on a device or leaves it is named
once, stays found, and stops the run; with its guard off nothing is seen. (test_device_watch.py stacks real loop
devices end to end.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab import guards
from iolab.errors import RunFailed
from iolab.probe.root import Root
from iolab.runner.device_watch import GUARD, DeviceWatch


def _sys(tmp_path: Path, *devices: str) -> Root:
    for name in devices:
        (tmp_path / "sys/class/block" / name / "holders").mkdir(parents=True)
    return Root(tmp_path)


def _holder(tmp_path: Path, device: str, holder: str) -> Path:
    path = tmp_path / "sys/class/block" / device / "holders" / holder
    path.mkdir()
    return path


def _partition(tmp_path: Path, device: str, part: str) -> Path:
    path = tmp_path / "sys/class/block" / device / part
    path.mkdir()
    (path / "partition").write_text("1\n")
    return path


def test_a_holder_appearing_on_the_second_device_is_named_stays_found_and_stops_the_run(tmp_path):
    root = _sys(tmp_path, "sdx", "sdy")
    watch = DeviceWatch(["/dev/sdx", "/dev/sdy"], root)
    assert watch.change() is None and not watch.stopped()
    watch.check("before point 2")  # nothing changed: no stop
    holder = _holder(tmp_path, "sdy", "dm-0")
    said = "/dev/sdy changed while iolab was writing it: dm-0 holds it (device-mapper, LVM or RAID) appeared"
    assert watch.change() == said and watch.stopped()
    holder.rmdir()  # gone again: what was found stays found
    assert watch.change() == said
    with pytest.raises(RunFailed, match=f"^{said.replace('(', '[(]').replace(')', '[)]')}; stopped at the end so"):
        watch.check("at the end")


def test_what_leaves_a_device_is_named_too_each_change_in_order(tmp_path):
    root = _sys(tmp_path, "sdx")
    part = _partition(tmp_path, "sdx", "sdx1")
    _partition(tmp_path, "sdx", "sdx2")
    watch = DeviceWatch(["/dev/sdx"], root)
    (part / "partition").unlink()
    part.rmdir()
    _holder(tmp_path, "sdx", "md0")
    _holder(tmp_path, "sdx", "dm-1")
    assert watch.change() == (
        "/dev/sdx changed while iolab was writing it: dm-1 holds it (device-mapper, LVM or RAID) appeared; "
        "md0 holds it (device-mapper, LVM or RAID) appeared; sdx1 is a partition of it went away"
    )


def test_with_its_guard_off_the_watch_sees_nothing(tmp_path):
    root = _sys(tmp_path, "sdx")
    watch = DeviceWatch(["/dev/sdx"], root)
    _holder(tmp_path, "sdx", "dm-0")
    with guards.switched_off(GUARD):
        assert watch.change() is None and not watch.stopped()
        watch.check("before point 1")
    assert watch.stopped()
