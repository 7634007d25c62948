"""Each host fact the probe reads, from a fake tree holding that one file in each form a host writes it
(issue 41: the probe readers were held by one captured tree each, where every file is present and in one
form, so a fallback file, a dangling link, a missing field or a tree holding only /proc passed any mutant).
A fact is read from its file, from its fallback, and is None or empty without it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.models.snapshot import FileSystem, Snapshot
from iolab.probe import Root
from iolab.probe.host import read_host, read_memory
from iolab.probe.snapshot import _on_filesystem, sample_blocks, take_snapshot


def _write(tree: Path, rel: str, text: str) -> None:
    (tree / rel).parent.mkdir(parents=True, exist_ok=True)
    (tree / rel).write_text(text)


def _host(tree: Path) -> dict:
    return read_host(Root(tree))


WANTS = "etc/systemd/system/timers.target.wants/fstrim.timer"


@pytest.mark.parametrize("unit_dir", ["lib/systemd/system", "usr/lib/systemd/system"])
def test_fstrim_timer_is_enabled_by_any_entry_in_timers_wants_and_disabled_by_the_unit_alone(tmp_path, unit_dir):
    assert _host(tmp_path)["fstrim_timer"] is None  # no systemd at all
    (tmp_path / unit_dir).mkdir(parents=True)
    assert _host(tmp_path)["fstrim_timer"] == "absent"
    _write(tmp_path, f"{unit_dir}/fstrim.timer", "[Timer]\n")
    assert _host(tmp_path)["fstrim_timer"] == "disabled"
    (tmp_path / WANTS).parent.mkdir(parents=True)
    os.symlink(f"/{unit_dir}/fstrim.timer", tmp_path / WANTS)  # absolute: dangling inside a captured tree
    assert _host(tmp_path)["fstrim_timer"] == "enabled"
    (tmp_path / WANTS).unlink()
    _write(tmp_path, WANTS, "")  # a copied tree may hold the link as a plain file
    assert _host(tmp_path)["fstrim_timer"] == "enabled"


def test_the_os_name_comes_from_etc_else_usr_lib_quoted_or_not(tmp_path):
    assert _host(tmp_path)["os_name"] is None
    _write(tmp_path, "usr/lib/os-release", 'NAME=Debian\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n')
    assert _host(tmp_path)["os_name"] == "Debian GNU/Linux 12 (bookworm)"
    _write(tmp_path, "etc/os-release", "NAME=Alpine\nPRETTY_NAME=Alpine Linux v3.19\nID=alpine\n")
    assert _host(tmp_path)["os_name"] == "Alpine Linux v3.19"


CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz
physical id\t: 0
flags\t\t: fpu vme sse2 {flag} avx2

processor\t: 1
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz
physical id\t: {second}
flags\t\t: fpu vme sse2 {flag} avx2
"""


def test_cpuinfo_gives_model_vendor_sockets_and_whether_a_hypervisor_runs_it(tmp_path):
    _write(tmp_path, "proc/cpuinfo", CPUINFO.format(flag="hypervisor", second=1))
    host = _host(tmp_path)
    assert (host["cpu_model"], host["cpu_vendor"]) == ("Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", "GenuineIntel")
    assert (host["hypervisor"], host["sockets"]) == (True, 2)
    _write(tmp_path, "proc/cpuinfo", CPUINFO.format(flag="hypervisor_x", second=0))
    assert (_host(tmp_path)["hypervisor"], _host(tmp_path)["sockets"]) == (False, 1)
    _write(tmp_path, "proc/cpuinfo", "processor\t: 0\nCPU part\t: 0xd0c\n")  # arm64: no flags, no physical id
    host = _host(tmp_path)
    assert (host["cpu_model"], host["cpu_vendor"], host["hypervisor"], host["sockets"]) == (None, None, None, None)


def test_memtotal_is_kib_times_1024_and_absent_without_the_line(tmp_path):
    _write(tmp_path, "proc/meminfo", "MemFree:  1000 kB\nMemTotal:       16318480 kB\n")
    assert read_memory(Root(tmp_path)) == 16318480 * 1024
    _write(tmp_path, "proc/meminfo", "MemFree:  1000 kB\n")
    assert read_memory(Root(tmp_path)) is None


def test_each_listed_fact_is_read_per_entry_and_unreadable_entries_are_marked(tmp_path):
    cpu = "sys/devices/system/cpu"
    for name, text in {"meltdown": "Mitigation: PTI\n", "mds": "Not affected\n", "l1tf": ""}.items():
        _write(tmp_path, f"{cpu}/vulnerabilities/{name}", text)
    _write(tmp_path, "sys/devices/system/node/node0/cpulist", "0-3\n")
    _write(tmp_path, "sys/devices/system/node/node1/cpulist", "4-7\n")
    _write(tmp_path, "sys/devices/system/node/possible", "0-1\n")  # not a node
    (tmp_path / "sys/devices/system/node/node2").mkdir()  # a node without a cpulist (memory only)
    _write(tmp_path, "sys/kernel/iommu_groups/3/type", "DMA-FQ\n")
    (tmp_path / "sys/kernel/iommu_groups/4").mkdir()
    (tmp_path / "sys/class/iommu/dmar0").mkdir(parents=True)
    _write(tmp_path, "sys/fs/lustre/osc/fs-OST0000/checksums", "1\n")
    (tmp_path / "proc/fs/lustre/osc/fs-OST0001").mkdir(parents=True)
    _write(tmp_path, "proc/fs/nfsd/threads", "8\n")
    _write(tmp_path, f"{cpu}/online", "0-7\n")
    _write(tmp_path, "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n")
    _write(tmp_path, "sys/module/pcie_aspm/parameters/policy", "[default] performance powersave\n")
    _write(tmp_path, "sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n")
    _write(tmp_path, "proc/cmdline", "ro quiet\n")
    _write(tmp_path, "proc/sys/kernel/hostname", "lab1\n")
    host = _host(tmp_path)
    assert host["vulnerabilities"] == {"l1tf": "", "mds": "Not affected", "meltdown": "Mitigation: PTI"}
    assert host["numa_nodes"] == {"node0": "0-3", "node1": "4-7", "node2": ""}
    assert host["iommu_group_types"] == {"3": "DMA-FQ", "4": "?"} and host["iommu_units"] == ["dmar0"]
    assert host["lustre_checksums"] == {
        "/sys/fs/lustre/osc/fs-OST0000": "1",
        "/proc/fs/lustre/osc/fs-OST0001": "?",
    }
    assert (host["nfsd_threads"], host["cpus_online"], host["hostname"], host["cmdline"]) == (8, 8, "lab1", "ro quiet")
    assert (host["thp_enabled"], host["aspm_policy"], host["clocksource"]) == ("madvise", "default", "tsc")


def test_each_cpufreq_policys_governor_is_read_and_the_driver_from_the_first(tmp_path):
    freq = "sys/devices/system/cpu/cpufreq"
    _write(tmp_path, f"{freq}/policy0/scaling_governor", "performance\n")
    _write(tmp_path, f"{freq}/policy0/scaling_driver", "acpi-cpufreq\n")
    _write(tmp_path, f"{freq}/policy4/scaling_governor", "powersave\n")
    (tmp_path / f"{freq}/policy8").mkdir()
    (tmp_path / f"{freq}/boost").write_text("1\n")
    host = _host(tmp_path)
    assert host["governors"] == {"policy0": "performance", "policy4": "powersave", "policy8": "?"}
    assert host["cpufreq_driver"] == "acpi-cpufreq"
    (tmp_path / "none").mkdir()  # a tree without cpufreq
    assert (_host(tmp_path / "none")["governors"], _host(tmp_path / "none")["cpufreq_driver"]) == ({}, None)


@pytest.mark.parametrize("only", ["sys", "proc"])
def test_a_tree_holding_either_sys_or_proc_is_a_host_tree(tmp_path, only):
    (tmp_path / only).mkdir()
    assert isinstance(take_snapshot(Root(tmp_path)), Snapshot)


def test_a_tree_holding_neither_or_no_directory_is_refused_saying_what_to_point_at(tmp_path):
    with pytest.raises(UserError, match="no sys/ or proc/ inside"):
        take_snapshot(Root(tmp_path))
    (tmp_path / "file").write_text("")
    with pytest.raises(UserError, match="not a directory"):
        take_snapshot(Root(tmp_path / "file"))


@pytest.mark.parametrize("kind", ["tmpfs", "ramfs"])
def test_a_file_system_of_a_ram_type_is_ram_backed_whatever_its_source(tmp_path, kind):
    snap = Snapshot(filesystems=[FileSystem("/scratch", kind, "none", "0:44")])
    target = _on_filesystem(Root(tmp_path), "/scratch/f", snap)
    assert (target.ram_backed, target.mount_point, target.fs_type, target.device) == (True, "/scratch", kind, None)
    disk = Snapshot(filesystems=[FileSystem("/scratch", "ext4", "/dev/sdz1", "0:44")])
    assert _on_filesystem(Root(tmp_path), "/scratch/f", disk).ram_backed is False


def test_a_device_of_one_block_is_sampled_once(tmp_path):
    one = tmp_path / "one.img"
    one.write_bytes(b"\x01" + b"\0" * 4095)
    assert sample_blocks(str(one)) == (1, 1)
    (tmp_path / "short.img").write_bytes(b"\x01" * 4095)  # less than a block: nothing to sample
    assert sample_blocks(str(tmp_path / "short.img")) == (None, None)
