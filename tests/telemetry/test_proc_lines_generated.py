"""The /proc parsers and their rates over generated lines (issue 41: the fast tier read one real capture of each
file, so a field taken from the wrong column, a line-length bound moved by one, an interface filter turned
round, or a delta taken from a zero start all passed). Each line here is written the way the kernel lays it
out, every field a distinct random number, at every length the kernel has written (old kernels' shorter
lines included), and each parsed field is checked against the number written in its column."""

from __future__ import annotations

import random

import pytest

from iolab.telemetry.cpu import CpuTimes, cpu_percent, parse_proc_stat
from iolab.telemetry.diskstats import SECTOR_BYTES, DiskCounters, disk_rates, parse_diskstats
from iolab.telemetry.net import NetCounters, net_rates, parse_net_dev
from iolab.telemetry.processes import ProcessTimes, other_cpu

SEEDS = range(6)


def _distinct(rng: random.Random, n: int) -> list[int]:
    return rng.sample(range(1, 10**9), n)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("numbers", [4, 7, 8, 10])  # 2.4 kernels wrote 4 (no iowait...), 2.6.11+ 8, 2.6.33+ 10
def test_a_proc_stat_cpu_line_of_any_length_is_read_column_by_column(seed: int, numbers: int):
    rng = random.Random(seed * 100 + numbers)
    v = _distinct(rng, numbers)
    text = f"cpu  {' '.join(map(str, v))}\ncpu3 {' '.join(map(str, v))}\nintr 5 6 7\nctxt 99\n"
    padded = v[:8] + [0] * (8 - len(v[:8]))
    want = CpuTimes(padded[0] + padded[1], padded[2], padded[3], padded[4], padded[5], padded[6], padded[7])
    assert parse_proc_stat(text) == {"cpu": want, "cpu3": want}
    # guest and guest_nice (fields 9 and 10) are inside user and nice already: never counted again
    assert want.total == sum(padded)


@pytest.mark.parametrize("seed", SEEDS)
def test_cpu_shares_are_each_states_ticks_over_all_ticks(seed: int):
    rng = random.Random(seed)
    before = CpuTimes(*_distinct(rng, 7))
    step = [rng.randrange(0, 1000) for _ in range(7)]
    after = CpuTimes(*(a + d for a, d in zip(vars(before).values(), step, strict=True)))
    total = sum(step)
    pct = cpu_percent(before, after)
    assert pct is not None
    user, system, _idle, iowait, irq, softirq, steal = step
    assert pct.usr == pytest.approx(100 * user / total) and pct.sys == pytest.approx(100 * system / total)
    assert pct.iowait == pytest.approx(100 * iowait / total) and pct.irq == pytest.approx(100 * irq / total)
    assert pct.softirq == pytest.approx(100 * softirq / total) and pct.steal == pytest.approx(100 * steal / total)
    assert pct.busy == pytest.approx(100 * (user + system + irq + softirq + steal) / total)
    # a counter that went back by one tick (a CPU brought back online) is no reading
    for i in range(7):
        if i == 2:  # idle is not among the parts checked; it only makes the total
            continue
        back = list(vars(after).values())
        back[i] = list(vars(before).values())[i] - 1
        assert cpu_percent(before, CpuTimes(*back)) is None
    assert cpu_percent(after, after) is None


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("counters", [11, 15, 17])  # before 4.18: 11; 4.18+: 15 (discards); 5.5+: 17 (flushes)
def test_a_diskstats_line_of_any_kernel_is_read_column_by_column(seed: int, counters: int):
    rng = random.Random(seed * 100 + counters)
    v = _distinct(rng, counters)
    line = f"   8       16 sdb {' '.join(map(str, v))}"
    short = f"   8       17 sdb1 {' '.join(map(str, v[:10]))}"  # 13 fields: not a counter line
    parsed = parse_diskstats(f"{line}\n{short}\n")
    assert parsed == {"sdb": DiskCounters(v[0], v[2], v[3], v[4], v[6], v[7], v[8], v[9], v[10])}
    assert parse_diskstats(line, frozenset({"sdb"})) == parsed
    assert parse_diskstats(line, frozenset({"sda", "sdb1"})) == {}


@pytest.mark.parametrize("seed", SEEDS)
def test_disk_rates_are_each_counters_delta_over_the_interval(seed: int):
    rng = random.Random(seed)
    before = DiskCounters(*_distinct(rng, 9))  # a non-zero start: a sum of readings is not their difference
    step = [rng.randrange(1, 5000) for _ in range(9)]
    after = DiskCounters(*(a + d for a, d in zip(vars(before).values(), step, strict=True)))
    seconds = rng.choice([0.25, 1.0, 2.0, 7.5])
    r = disk_rates(before, after, seconds)
    assert r is not None
    reads, sectors_read, _read_ms, writes, sectors_written, _write_ms, _flight, io_ms, weighted = step
    assert r.read_bytes_s == pytest.approx(sectors_read * SECTOR_BYTES / seconds)
    assert r.write_bytes_s == pytest.approx(sectors_written * SECTOR_BYTES / seconds)
    assert r.read_iops == pytest.approx(reads / seconds) and r.write_iops == pytest.approx(writes / seconds)
    assert r.util_pct == pytest.approx(min(100.0, io_ms / (seconds * 10)))
    assert r.queue_depth == pytest.approx(weighted / (seconds * 1000))
    assert r.in_flight == after.in_flight
    for i in (0, 1, 3, 4, 7, 8):  # every counter a rate is made of, gone back by one: no reading
        back = list(vars(after).values())
        back[i] = list(vars(before).values())[i] - 1
        assert disk_rates(before, DiskCounters(*back), seconds) is None
    assert disk_rates(before, after, 0.0) is None


def test_a_device_busy_part_of_the_time_is_that_share_and_never_above_100():
    quiet = DiskCounters(0, 0, 0, 0, 0, 0, 0, 0, 0)
    assert disk_rates(quiet, DiskCounters(0, 0, 0, 0, 0, 0, 0, 250, 0), 1.0).util_pct == 25.0  # type: ignore[union-attr]
    assert disk_rates(quiet, DiskCounters(0, 0, 0, 0, 0, 0, 0, 1004, 0), 1.0).util_pct == 100.0  # type: ignore[union-attr]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_net_dev_line_is_read_by_its_receive_and_transmit_columns(seed: int):
    rng = random.Random(seed)
    rows = {name: _distinct(rng, 16) for name in ("lo", "eth0", "ib0")}
    text = "Inter-|   Receive  |  Transmit\n face |bytes    packets|bytes\n" + "".join(
        f"{name:>6}: {' '.join(map(str, v))}\n" for name, v in rows.items()
    )
    text += "  odd0: 1 2 3 4 5 6 7 8\n  bad0: x 2 3 4 5 6 7 8 9 10\n"  # 8 fields; a header-like first field
    want = {name: NetCounters(v[0], v[8]) for name, v in rows.items()}
    assert parse_net_dev(text) == want
    assert parse_net_dev(text, frozenset({"eth0", "absent"})) == {"eth0": want["eth0"]}
    assert parse_net_dev(text, frozenset()) == {}


def test_net_dev_takes_exactly_nine_fields_and_no_fewer():
    assert parse_net_dev("e: 1 2 3 4 5 6 7 8 9\n") == {"e": NetCounters(1, 9)}
    assert parse_net_dev("e: 1 2 3 4 5 6 7 8\n") == {}


@pytest.mark.parametrize("seed", SEEDS)
def test_net_rates_are_deltas_over_seconds_and_a_reset_is_no_reading(seed: int):
    rng = random.Random(seed)
    before = NetCounters(*_distinct(rng, 2))
    rx, tx = rng.randrange(0, 10**6), rng.randrange(0, 10**6)
    after = NetCounters(before.rx_bytes + rx, before.tx_bytes + tx)
    assert net_rates(before, after, 2.0) == pytest.approx((rx / 2.0, tx / 2.0))
    assert net_rates(before, NetCounters(before.rx_bytes - 1, after.tx_bytes), 2.0) is None
    assert net_rates(before, NetCounters(after.rx_bytes, before.tx_bytes - 1), 2.0) is None
    assert net_rates(before, after, 0.0) is None


def test_a_process_is_charged_the_ticks_it_spent_in_the_point_only():
    ticks = 100  # SC_CLK_TCK on every Linux iolab runs on
    before = ProcessTimes({10: ("db", 5000), 11: ("cron", 40), 12: ("old", 7)})
    after = ProcessTimes({10: ("db", 5000 + 2 * ticks), 11: ("backup", 3 * ticks), 13: ("new", ticks // 2)})
    used = other_cpu(before, after, 2.0)
    # db spent 2 s of CPU in the 2 s; pid 11 is another process now (the pid was reused): all its time is
    # the point's; a process that started during the point is charged all of its ticks, not one less
    assert used == pytest.approx({"db": 100.0, "backup": 150.0, "new": 25.0})
    assert other_cpu(before, after, 0.0) == {}
    assert other_cpu(after, after, 1.0) == {}  # nobody spent a tick: nobody is named
