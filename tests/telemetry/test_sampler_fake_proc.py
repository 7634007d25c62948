"""The sampler over a fake /proc whose counters the test moves between its first and last reading (issue 41:
the sampler's tests read the live /proc, where which counters move and by how much is the host's business,
so a rate from the wrong file, an interface filter dropped, or the CPU of other processes summed under the
wrong name passed). Every sample is checked against the counters written: rate x interval = the change."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.probe.root import Root
from iolab.telemetry import processes
from iolab.telemetry.sampler import MIN_PROCESS_PCT, PROC_CPU, Sampler

DISK = "   8      16 sdb {} 0 {} 10 {} 0 {} 20 3 {} {} 0 0 0 0"
STAT = "cpu  {} 0 {} {} 0 0 0 0 0 0\ncpu0 {} 0 {} {} 0 0 0 0 0 0\n"
NET = "Inter-|\n face |\n    lo: {} 1 0 0 0 0 0 0 {} 1 0 0 0 0 0 0\n  eth0: {} 1 0 0 0 0 0 0 {} 1 0 0 0 0 0 0\n"


def _proc(tree: Path, reads: int, sectors: int, io_ms: int, user: int, eth_rx: int, ticks: dict[int, int]) -> None:
    proc = tree / "proc"
    proc.mkdir(exist_ok=True)
    (proc / "diskstats").write_text(DISK.format(reads, sectors, reads // 2, sectors // 2, io_ms, io_ms * 2) + "\n")
    (proc / "stat").write_text(STAT.format(user, 50, 1000 + user, user, 50, 1000 + user))
    (proc / "net/dev").parent.mkdir(exist_ok=True)
    (proc / "net/dev").write_text(NET.format(7, 7, eth_rx, eth_rx // 4))
    for pid, spent in ticks.items():
        (proc / str(pid)).mkdir(exist_ok=True)
        fields = ["S", "1", "1", "1", "0", "-1", "0", "0", "0", "0", "0", str(spent), "0"] + ["0"] * 30
        (proc / str(pid) / "stat").write_text(f"{pid} (job {pid}) {' '.join(fields)}\n")


def test_each_sample_is_its_counters_change_over_the_interval(tmp_path):
    hz = processes._CLOCK_TICKS
    _proc(tmp_path, 100, 8000, 0, 100, 5000, {41: 0, 42: 0, 43: 0})
    sampler = Sampler(["sdb"], interval_s=60.0, interfaces=["eth0"], root=Root(tmp_path))
    sampler.start()
    _proc(tmp_path, 300, 8000 + 4096, 200, 160, 5000 + 10**6, {41: hz, 42: hz // 1000, 43: hz // 1000})
    sampler.stop()
    seconds = (sampler._ticks[1][0] - sampler._ticks[0][0]) / 1e9
    got = {(s.metric, s.ddir, s.source): s.value for s in sampler.samples()}
    assert got[("disk.bw", "read", "sdb")] * seconds == pytest.approx(4096 * 512)
    assert got[("disk.bw", "write", "sdb")] * seconds == pytest.approx(2048 * 512)
    assert got[("disk.iops", "read", "sdb")] * seconds == pytest.approx(200)
    assert got[("disk.iops", "write", "sdb")] * seconds == pytest.approx(100)
    assert got[("disk.in_flight", "total", "sdb")] == 3.0
    assert got[("disk.queue_depth", "total", "sdb")] * seconds * 1000 == pytest.approx(400)
    assert got[("net.bw", "rx", "eth0")] * seconds == pytest.approx(10**6)
    assert got[("net.bw", "tx", "eth0")] * seconds == pytest.approx(10**6 // 4)
    assert not any(source == "lo" for _, _, source in got)  # only the interfaces asked for
    assert got[("cpu.usr", "total", "cpu")] == pytest.approx(100 * 60 / 120) and ("cpu.busy", "total", "cpu0") in got
    procs = {s.source: s.value for s in sampler.samples() if s.metric == PROC_CPU}
    assert set(procs) == {"job 41"}  # the two small ones are under 1% each and under 1% together
    assert procs["job 41"] * (sampler._processes[1][0] - sampler._processes[0][0]) / 1e9 == pytest.approx(100)
    assert MIN_PROCESS_PCT == 1.0


def test_a_device_the_host_does_not_have_an_interval_too_short_and_no_files_at_all(tmp_path):
    _proc(tmp_path, 1, 1, 0, 1, 1, {})
    with pytest.raises(UserError, match="no such block device in /proc/diskstats: sdz"):
        Sampler(["sdb", "sdz"], root=Root(tmp_path)).start()
    with pytest.raises(UserError, match="telemetry interval 0.09 s is too short; use 0.1 s or more"):
        Sampler(interval_s=0.09)
    assert Sampler(interval_s=0.1).interval_s == 0.1
    quiet = Sampler(cpu=False, interfaces=[], root=Root(tmp_path))
    quiet.start()
    quiet.stop()
    assert quiet._files == [] and quiet.samples() == []
    (tmp_path / "none").mkdir()  # a tree without /proc
    with pytest.raises(UserError, match="cannot read .*diskstats for telemetry"):
        Sampler(["sdb"], root=Root(tmp_path / "none")).start()
