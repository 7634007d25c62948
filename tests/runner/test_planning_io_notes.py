"""What a plan says of how its targets are read (runner.planning.plan_points): a file system that refuses
O_DIRECT is read buffered, and the note says so (and that the result is RAM-backed where it is); a target
read with O_DIRECT gets no such note, a RAM-backed one only that."""

from __future__ import annotations

from iolab.models import Plan, Target, Workload
from iolab.models.plan import RepeatPolicy
from iolab.runner import planning

READ = Workload("randread", {"rw": "randread", "bs": "4k", "runtime": "5", "time_based": "1"})


def _notes(target: Target) -> list[str]:
    points, notes = planning.plan_points(Plan("p", [READ], repeats=RepeatPolicy(count=1)), {None: [target]})
    assert [p.target for p in points] == [target]  # read either way: the note says how
    return notes


def _file(**kw) -> Target:  # type: ignore[no-untyped-def]
    return Target("/mnt/x/data", "file", "/mnt/x/data", 1 << 30, **kw)


def test_a_target_without_o_direct_is_noted_as_read_buffered():
    assert _notes(_file(direct=False, fs_type="fuse.sshfs")) == [
        "/mnt/x/data: fuse.sshfs has no O_DIRECT; using buffered I/O"
    ]
    assert _notes(_file(direct=False)) == ["/mnt/x/data: this file system has no O_DIRECT; using buffered I/O"]


def test_a_buffered_target_in_ram_says_both():
    assert _notes(_file(direct=False, ram_backed=True, fs_type="tmpfs")) == [
        "/mnt/x/data: tmpfs has no O_DIRECT; using buffered I/O and the result is RAM-backed"
    ]


def test_a_direct_target_has_no_note_unless_it_is_in_ram():
    assert _notes(_file()) == []
    assert _notes(_file(ram_backed=True, fs_type="tmpfs")) == ["/mnt/x/data: on tmpfs, the result is RAM-backed"]
    assert _notes(Target("/dev/zram0", "block", "/dev/zram0", 1 << 30, ram_backed=True)) == [
        "/dev/zram0: a device that keeps its data in RAM (zram, brd, or a loop file on tmpfs), the result is RAM-backed"
    ]
