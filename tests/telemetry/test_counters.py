"""Parsers and rate conversions over /proc files captured from a real host (tests/telemetry/data)."""

from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.probe.device_stack import beneath
from iolab.probe.root import Root
from iolab.telemetry.cpu import CpuTimes, cpu_percent, parse_proc_stat
from iolab.telemetry.diskstats import DiskCounters, disk_rates, parse_diskstats
from iolab.telemetry.net import net_rates, parse_net_dev

DATA = Path(__file__).parent / "data"


def test_diskstats_fields_and_filter():
    text = (DATA / "diskstats.txt").read_text()
    every = parse_diskstats(text)
    assert "vda" in every and "loop0" in every
    vda = every["vda"]
    # 254 0 vda 1887452 9620 26807618 922937 453810 33884 18015416 549935 0 50428 1481592 ...
    assert (vda.reads, vda.sectors_read, vda.read_ms) == (1887452, 26807618, 922937)
    assert (vda.writes, vda.sectors_written, vda.write_ms) == (453810, 18015416, 549935)
    assert (vda.in_flight, vda.io_ms, vda.weighted_io_ms) == (0, 50428, 1481592)
    assert list(parse_diskstats(text, frozenset({"vda", "absent"}))) == ["vda"]


def test_disk_rates_units_and_reset():
    a = DiskCounters(100, 2048, 10, 0, 0, 0, 0, 0, 0)
    b = DiskCounters(300, 2048 + 409600, 50, 10, 80, 3, 4, 500, 2000)
    r = disk_rates(a, b, 0.5)
    assert r.read_bytes_s == 409600 * 512 / 0.5 and r.read_iops == 400 and r.write_iops == 20
    assert r.util_pct == 100.0 and r.queue_depth == 4.0 and r.in_flight == 4
    assert disk_rates(b, a, 1.0) is None  # counters went backwards: device re-created


def test_proc_stat_and_cpu_percent():
    cpus = parse_proc_stat((DATA / "proc_stat.txt").read_text())
    assert {"cpu", "cpu0", "cpu1"} <= set(cpus)
    a = CpuTimes(user=100, system=50, idle=800, iowait=10, irq=0, softirq=5, steal=0)
    b = CpuTimes(user=160, system=70, idle=810, iowait=10, irq=0, softirq=15, steal=0)
    pct = cpu_percent(a, b)
    assert (pct.usr, pct.sys, pct.softirq, pct.busy) == (60.0, 20.0, 10.0, 90.0)
    assert cpu_percent(a, a) is None


def test_net_dev():
    nets = parse_net_dev((DATA / "net_dev.txt").read_text())
    assert "lo" in nets and "eth0" in nets
    assert nets["lo"].rx_bytes == nets["lo"].tx_bytes  # loopback sends what it receives
    assert net_rates(nets["eth0"], nets["eth0"], 1.0) == (0.0, 0.0)


def make_sys(tmp_path: Path) -> Root:
    """A /sys tree with nvme0n1p1 (a partition), dm-0 on two partitions, md0 on dm-0 and sdc."""
    devices = tmp_path / "sys/devices"
    cls = tmp_path / "sys/class/block"
    cls.mkdir(parents=True)
    for disk, parts in {"nvme0n1": ["nvme0n1p1", "nvme0n1p2"], "sdb": ["sdb1"], "sdc": []}.items():
        (devices / disk).mkdir(parents=True)
        (cls / disk).symlink_to(devices / disk)
        for part in parts:
            (devices / disk / part).mkdir()
            (devices / disk / part / "partition").write_text("1\n")
            (cls / part).symlink_to(devices / disk / part)
    for virtual, members in {"dm-0": ["nvme0n1p2", "sdb1"], "md0": ["dm-0", "sdc"]}.items():
        (devices / virtual / "slaves").mkdir(parents=True)
        (cls / virtual).symlink_to(devices / virtual)
        for m in members:
            (devices / virtual / "slaves" / m).symlink_to(cls / m)
    return Root(tmp_path)


def test_member_devices_resolves_partitions_dm_and_md(tmp_path):
    root = make_sys(tmp_path)
    assert beneath("sdc", root) == ["sdc"]
    assert beneath("nvme0n1p1", root) == ["nvme0n1"]
    assert beneath("dm-0", root) == ["nvme0n1", "sdb"]
    assert beneath("md0", root) == ["nvme0n1", "sdb", "sdc"]
    with pytest.raises(UserError, match="no block device named 'sdz'"):
        beneath("sdz", root)


def test_a_fully_busy_interval_is_exactly_100_percent_never_a_hair_above():
    from iolab.telemetry.cpu import CpuTimes, cpu_percent

    before = CpuTimes(user=0, system=0, idle=0, iowait=0, irq=0, softirq=0, steal=0)
    # shares that, summed one by one after rounding, come out above 100 (found on a busy host)
    after = CpuTimes(user=1, system=4, idle=0, iowait=0, irq=1, softirq=0, steal=0)
    assert cpu_percent(before, after).busy == 100.0
