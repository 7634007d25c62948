"""`iolab probe`'s device and file-system tables say what the snapshot holds, cell by cell: a device's size
in decimal GB (1.5e9 bytes is 2 GB, as printf rounds), rotational 1 or 0 or "?" when unknown, each unknown
model, scheduler or SMART a mark of its own, and a file system's fullness in whole percent or "-"."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from iolab.models.snapshot import BlockDevice, FileSystem, NvmeSmart, Snapshot
from iolab.report.snapshot_text import print_snapshot

FULL = BlockDevice(
    "nvme0n1",
    model="Samsung 990",
    size_bytes=2_500_000_000,
    rotational=False,
    scheduler="none",
    wbt_lat_usec=0,
    read_ahead_kb=128,
    numa_node=1,
    smart=NvmeSmart(critical_warning=0, percent_used=3),
)
SPARSE = BlockDevice("sdb", size_bytes=1_500_000_000, rotational=True, smart_error="smartctl: permission denied")
UNKNOWN = BlockDevice("vdc")


def _rows(snapshot: Snapshot) -> dict[str, list[str]]:
    buffer = io.StringIO()
    print_snapshot(snapshot, Console(file=buffer, width=200, color_system=None))
    rows = [line.strip("│ ").split("│") for line in buffer.getvalue().splitlines() if line.startswith("│")]
    return {cells[0].strip(): [c.strip() for c in cells[1:]] for cells in rows}


@pytest.mark.parametrize(
    ("device", "cells"),
    [
        (FULL, ["Samsung 990", "2 GB", "0", "none", "0", "128", "-", "1", "warn=0 used=3%"]),
        (SPARSE, ["-", "2 GB", "1", "?", "None", "None", "-", "None", "smartctl: permission denied"]),
        (UNKNOWN, ["-", "0 GB", "?", "?", "None", "None", "-", "None", "-"]),
    ],
)
def test_each_device_row_says_what_the_snapshot_holds(device, cells):
    assert _rows(Snapshot(devices=[device]))[device.name] == cells


@pytest.mark.parametrize(("size", "used", "said"), [(1000, 994, "99%"), (1000, 5, "0%"), (None, 5, "-"), (0, 0, "-")])
def test_each_file_system_row_says_how_full_it_is(size, used, said):
    fs = FileSystem("/data", "ext4", "/dev/sdb1", "8:17", ["rw", "relatime", "rw"], size_bytes=size, used_bytes=used)
    assert _rows(Snapshot(filesystems=[fs]))["/data"] == ["ext4", "/dev/sdb1", said, "rw,relatime"]
