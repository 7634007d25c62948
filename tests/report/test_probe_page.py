"""`iolab probe` in the terminal: each CPU governor in force once ("n/a" without), memory in GiB (MemTotal is
bytes; 2^30 to a GiB), a device's PCIe link as now / capable (a link trained below what it can do is the thing
to see), "-" without one, each device's queue settings and each target asked about written as the host gave
them: a value or path holding brackets is text, not Rich markup (sysfs writes the scheduler in force as
`[mq-deadline]`)."""

from __future__ import annotations

import pytest
from rich.console import Console

from iolab.models.snapshot import BlockDevice, PciPort, Snapshot, TargetInfo
from iolab.report.snapshot_text import print_snapshot


def _printed(snapshot: Snapshot) -> list[str]:
    console = Console(record=True, width=300)
    print_snapshot(snapshot, console)
    return console.export_text().splitlines()


def _cells(line: str) -> list[str]:
    """A table row's cells (Rich draws the cell borders as │)."""
    return [cell.strip() for cell in line.strip().strip("│").split("│")]


@pytest.mark.parametrize(("gib", "said"), [(16, "16.0"), (0.5, "0.5"), (251.7, "251.7")])
def test_memory_is_said_in_gib_of_2_to_the_30_bytes(gib, said):
    (line,) = [ln for ln in _printed(Snapshot(mem_total_bytes=int(gib * 2**30))) if ln.startswith("CPU ")]
    assert f"; RAM {said} GiB;" in line


def test_a_pcie_link_is_now_over_capable_and_a_device_without_one_has_a_dash():
    slow = PciPort("0000:01:00.0", current_gts=8.0, max_gts=16.0, current_width=2, max_width=4)
    untrained = PciPort("0000:02:00.0", max_gts=16.0, max_width=4)
    devices = [BlockDevice("nvme0n1", pcie=slow), BlockDevice("nvme1n1", pcie=untrained), BlockDevice("sda")]
    rows = {cells[0]: cells for ln in _printed(Snapshot(devices=devices)) if len(cells := _cells(ln)) > 7}
    assert rows["nvme0n1"][7] == "8.0 GT/s x2 / 16.0 GT/s x4"
    assert rows["nvme1n1"][7] == rows["sda"][7] == "-"


def test_queue_settings_and_targets_are_printed_as_the_host_gave_them():
    device = BlockDevice("sdb", host_settings={"scheduler": "[mq-deadline]", "nr_requests": "64"})
    target = TargetInfo("/mnt/[fast]/data", "sdb", "/mnt/[fast]", "ext4")
    lines = _printed(Snapshot(devices=[device], targets=[target]))
    assert "sdb queue: scheduler=[mq-deadline] nr_requests=64" in lines
    assert "target /mnt/[fast]/data: device sdb, mount /mnt/[fast] (ext4)" in lines


@pytest.mark.parametrize(
    ("governors", "said"), [({}, "n/a"), ({"cpu0": "performance", "cpu1": "performance"}, "performance"),
                            ({"cpu0": "powersave", "cpu1": "performance"}, "performance, powersave")],
)  # fmt: skip
def test_the_cpu_frequency_governors_in_force_are_named_once_each(governors, said):
    (line,) = [ln for ln in _printed(Snapshot(governors=governors)) if ln.startswith("CPU ")]
    assert f"; governors {said}; " in line
