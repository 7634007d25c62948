"""Host settings on a captured host tree (tests/data/sysroots/vm-amd, its virtio disk vda): checked against
what the kernel offers, originals recorded before the first write, set per point, put back at the end, and
what a killed run left put back by the next command, only on the same boot and device.

The tree's files stand in for sysfs: iolab writes them through the same `Root` it reads them with. The
kernel's own refusals (EINVAL, a value kept in another form) are the end-to-end test's, on a real device.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from iolab.errors import UserError
from iolab.models import Change, Point, Snapshot, Target
from iolab.models.host_settings import HOST_SETTINGS, HostSetting
from iolab.models.snapshot_diff import diff_snapshots
from iolab.plan.planfile import load_plan
from iolab.probe.block import read_device
from iolab.probe.root import Root
from iolab.report.snapshot_text import print_snapshot
from iolab.runner.host_settings import HostSettings, restore_leftovers, target_devices
from iolab.store.db import open_store
from iolab.store.host_settings import open_records
from tests.doctor.sysroots import copy_base, link, write

VDA = "sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda"
QUEUE = "/sys/block/vda/queue"
CPUFREQ = "sys/devices/system/cpu/cpufreq"
DISK = Target(path="/dev/vda", kind="block", filename="/dev/vda", size_bytes=1 << 30)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The captured VM, with the queue files the probe does not read and two cpufreq policies added."""
    root = copy_base(tmp_path / "root")
    write(root, f"{VDA}/queue/rq_affinity", "1")
    write(root, f"{VDA}/queue/nomerges", "0")
    write(root, "proc/sys/kernel/random/boot_id", "6a3f0c1e-0000-4000-8000-000000000001")
    link(root, "sys/dev/block/254:0", VDA)
    for policy in ("policy0", "policy1"):
        write(root, f"{CPUFREQ}/{policy}/scaling_governor", "schedutil")
        write(root, f"{CPUFREQ}/{policy}/scaling_available_governors", "performance powersave schedutil")
    return root


@pytest.fixture
def store(tmp_path: Path):
    opened = open_store(tmp_path / "home")
    yield opened
    opened.close()


def read(tree: Path, path: str) -> str:
    return (tree / path.lstrip("/")).read_text().strip()


def points(*settings: dict[str, str]) -> list[Point]:
    return [Point(f"p{i}", DISK, {"rw": "randread"}, host_settings=s) for i, s in enumerate(settings)]


def on_vda(target: Target) -> list[str]:
    return ["vda"]


def test_a_directory_target_resolves_to_the_disk_under_its_file_system(tree, tmp_path):
    # tmp_path is on the tree's root mount (254:0, ext4 on /dev/vda), as the probe resolves a target
    directory = Target(path=str(tmp_path), kind="directory", filename=str(tmp_path / "x"), size_bytes=1)
    assert target_devices(directory, Root(tree)) == ["vda"]


def test_values_the_kernel_does_not_offer_are_refused_before_anything_is_written(tree, store):
    settings = HostSettings(store, Root(tree))
    with pytest.raises(UserError, match="vda offers the scheduler values none, mq-deadline, kyber, bfq; not 'bfqq'"):
        settings.prepare(points({"scheduler": "none"}, {"scheduler": "bfqq"}), on_vda)
    with pytest.raises(UserError, match="policy0 offers the governor values performance, powersave, schedutil"):
        HostSettings(store, Root(tree)).prepare(points({"governor": "ondemand"}), on_vda)
    (tree / VDA / "queue/wbt_lat_usec").unlink()
    with pytest.raises(UserError, match="vda has no wbt_lat_usec"):
        HostSettings(store, Root(tree)).prepare(points({"wbt_lat_usec": "0"}), on_vda)
    assert read(tree, f"{QUEUE}/scheduler") == "none [mq-deadline] kyber bfq"
    assert open_records(store) == []


def test_a_target_without_a_block_device_or_a_host_without_cpufreq_says_so(tree, store):
    with pytest.raises(UserError, match="/dev/vda: no block device under it .*no nr_requests"):
        HostSettings(store, Root(tree)).check(points({"nr_requests": "64"}), lambda target: [])
    for policy in ("policy0", "policy1"):
        for name in ("scaling_governor", "scaling_available_governors"):
            (tree / CPUFREQ / policy / name).unlink()
        (tree / CPUFREQ / policy).rmdir()
    with pytest.raises(UserError, match="no CPU frequency policies .*the governor cannot be set here"):
        HostSettings(store, Root(tree)).check(points({"governor": "performance"}), on_vda)


def test_originals_are_recorded_first_each_point_runs_under_its_own_values_and_all_is_put_back(tree, store):
    settings = HostSettings(store, Root(tree))
    planned = points(
        {"scheduler": "none", "nr_requests": "64", "governor": "performance"},
        {"scheduler": "bfq", "read_ahead_kb": "128"},
        {},
    )
    lines = settings.prepare(planned, on_vda)
    assert lines[0] == f"{QUEUE}/scheduler: none, bfq (now mq-deadline; put back afterwards)"
    # tried, then back to the originals; every original recorded, schedulers first, with what a switch moves
    assert read(tree, f"{QUEUE}/scheduler") == "mq-deadline"  # the tree keeps the last word written
    assert read(tree, f"{QUEUE}/nr_requests") == "256" and read(tree, f"{CPUFREQ}/policy1/scaling_governor") == (
        "schedutil"
    )
    records = open_records(store)
    assert [(r.path, r.original) for r in records] == [
        (f"{QUEUE}/scheduler", "mq-deadline"),
        (f"{QUEUE}/nr_requests", "256"),
        (f"{QUEUE}/wbt_lat_usec", "75000"),
        (f"{QUEUE}/read_ahead_kb", "8192"),
        (f"/{CPUFREQ}/policy0/scaling_governor", "schedutil"),
        (f"/{CPUFREQ}/policy1/scaling_governor", "schedutil"),
    ]
    assert all(r.owner_running and r.run_id is None and r.identity.endswith("diskseq 9") for r in records[:4])
    run_id = store.create_run("p", "iolab run p.toml", ["/dev/vda"], "fio-3.33")
    settings.attach(run_id)
    assert {r.run_id for r in open_records(store)} == {run_id}

    assert settings.apply(planned[0]) == [
        f"{QUEUE}/scheduler = none",
        f"{QUEUE}/nr_requests = 64",
        f"/{CPUFREQ}/policy0/scaling_governor = performance",
        f"/{CPUFREQ}/policy1/scaling_governor = performance",
    ]
    assert read(tree, f"{QUEUE}/scheduler") == "none" and read(tree, f"{CPUFREQ}/policy0/scaling_governor") == (
        "performance"
    )
    settings.apply(planned[1])  # what the point does not set goes back to the original
    assert [read(tree, f"{QUEUE}/{name}") for name in ("scheduler", "nr_requests", "read_ahead_kb")] == [
        "bfq",
        "256",
        "128",
    ]
    assert read(tree, f"{CPUFREQ}/policy0/scaling_governor") == "schedutil"
    assert settings.apply(planned[2]) == []
    assert read(tree, f"{QUEUE}/scheduler") == "mq-deadline" and read(tree, f"{QUEUE}/read_ahead_kb") == "8192"

    settings.apply(replace(planned[1], repeat=4))  # an adaptive repeat, added while running
    assert read(tree, f"{QUEUE}/scheduler") == "bfq"
    write(tree, f"{VDA}/queue/wbt_lat_usec", "0")  # as bfq turns writeback throttling off
    assert settings.restore() == []
    assert [read(tree, f"{QUEUE}/{name}") for name in ("scheduler", "wbt_lat_usec", "read_ahead_kb")] == [
        "mq-deadline",
        "75000",
        "8192",
    ]
    assert open_records(store) == []


def test_a_file_another_run_is_changing_is_refused(tree, store):
    HostSettings(store, Root(tree)).prepare(points({"scheduler": "none"}), on_vda)  # this process: alive
    with pytest.raises(UserError, match=f"{QUEUE}/scheduler is being changed by another iolab process"):
        HostSettings(store, Root(tree)).prepare(points({"scheduler": "bfq"}), on_vda)


def _killed(store, tree: Path, settings: dict[str, str]) -> HostSettings:
    """A run that set `settings` and was killed: its records belong to a process that has ended."""
    run = HostSettings(store, Root(tree))
    planned = points(settings)
    run.prepare(planned, on_vda)
    run.apply(planned[0])
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    with store.conn:
        store.conn.execute("UPDATE host_settings SET pid = ?", (int(dead.stdout),))
    return run


def test_the_next_command_puts_back_what_a_killed_run_changed(tree, store):
    _killed(store, tree, {"scheduler": "none", "governor": "performance"})
    assert read(tree, f"{QUEUE}/scheduler") == "none"
    # the same records block a new run until they are put back
    with pytest.raises(UserError, match="still holds a value a killed run set .*iolab clean"):
        HostSettings(store, Root(tree)).prepare(points({"scheduler": "bfq"}), on_vda)
    notes = restore_leftovers(store, Root(tree), dry_run=True)
    assert notes == [
        f"would put back 3 host setting(s) a killed run changed: {QUEUE}/scheduler = mq-deadline, "
        f"/{CPUFREQ}/policy0/scaling_governor = schedutil, /{CPUFREQ}/policy1/scaling_governor = schedutil"
    ]
    assert read(tree, f"{QUEUE}/scheduler") == "none" and len(open_records(store)) == 5
    assert restore_leftovers(store, Root(tree)) == [notes[0].replace("would put back", "put back")]
    assert read(tree, f"{QUEUE}/scheduler") == "mq-deadline"
    assert read(tree, f"{CPUFREQ}/policy1/scaling_governor") == "schedutil"
    assert open_records(store) == [] and restore_leftovers(store, Root(tree)) == []


def test_a_value_is_never_written_to_another_device_or_boot(tree, store):
    _killed(store, tree, {"scheduler": "none"})
    write(tree, f"{VDA}/diskseq", "10")  # detached and attached again: a new device under the old name
    assert restore_leftovers(store, Root(tree)) == [
        f"left {QUEUE}/{name} alone (the host restarted or the device is another one): "
        "a killed run's value is no longer there"
        for name in ("scheduler", "nr_requests", "wbt_lat_usec")
    ]
    assert read(tree, f"{QUEUE}/scheduler") == "none" and open_records(store) == []

    write(tree, f"{VDA}/diskseq", "9")
    write(tree, f"{VDA}/queue/scheduler", "[none] mq-deadline kyber bfq")  # a tree file keeps only the last word
    _killed(store, tree, {"scheduler": "bfq"})
    (tree / "sys/block/vda").unlink()
    assert restore_leftovers(store, Root(tree))[0].startswith(f"left {QUEUE}/scheduler alone (the device is gone)")
    assert open_records(store) == []


def test_a_live_runs_records_are_not_touched(tree, store):
    run = HostSettings(store, Root(tree))
    planned = points({"scheduler": "none"})
    run.prepare(planned, on_vda)
    run.apply(planned[0])
    assert restore_leftovers(store, Root(tree)) == []
    assert read(tree, f"{QUEUE}/scheduler") == "none"
    run.restore()


@pytest.fixture
def add_random(tree: Path) -> Iterator[HostSetting]:
    """A setting iolab does not have, added to the one list for the test: queue/add_random (0 or 1)."""
    write(tree, f"{VDA}/queue/add_random", "0")
    setting = HostSetting("add_random", "add_random", numbers=(0, 1))
    HOST_SETTINGS.append(setting)
    try:
        yield setting
    finally:
        HOST_SETTINGS.remove(setting)


def test_a_setting_added_to_the_list_is_probed_checked_in_host_and_put_back(tree, store, add_random, tmp_path, capsys):
    """The list drives every user: with one entry more, the probe reads it (and a change of it between two
    snapshots is shown), a plan's [host] takes it (and refuses a value outside its range), and a run sets
    it per point and puts it back, after a kill too."""
    before = read_device(Root(tree), "vda", with_smart=False)
    assert before.host_settings["add_random"] == "0"
    write(tree, f"{VDA}/queue/add_random", "1")
    after = read_device(Root(tree), "vda", with_smart=False)
    write(tree, f"{VDA}/queue/add_random", "0")
    assert diff_snapshots(Snapshot(devices=[before]), Snapshot(devices=[after])) == [
        Change("vda", "add_random", "0", "1")
    ]
    print_snapshot(
        Snapshot(devices=[after]), Console(width=200)
    )  # `iolab doctor` shows each listed setting the probe read
    assert "vda queue: scheduler=mq-deadline nr_requests=256 wbt_lat_usec=75000" in (shown := capsys.readouterr().out)
    assert "add_random=1" in shown

    plan = tmp_path / "p.toml"
    plan.write_text('[options]\nrw = "randread"\n[host]\nadd_random = [0, 1]\n')
    assert [w.host_settings for w in load_plan(plan).workloads] == [{"add_random": "0"}, {"add_random": "1"}]
    plan.write_text('[options]\nrw = "randread"\n[host]\nadd_random = 2\n')
    with pytest.raises(UserError, match="host.add_random: expected a whole number from 0 to 1, got 2"):
        load_plan(plan)

    run = HostSettings(store, Root(tree))
    planned = points({"add_random": "1"})
    assert run.prepare(planned, on_vda) == [f"{QUEUE}/add_random: 1 (now 0; put back afterwards)"]
    assert run.apply(planned[0]) == [f"{QUEUE}/add_random = 1"] and read(tree, f"{QUEUE}/add_random") == "1"
    assert run.restore() == [] and read(tree, f"{QUEUE}/add_random") == "0"

    _killed(store, tree, {"add_random": "1"})
    assert read(tree, f"{QUEUE}/add_random") == "1"
    assert restore_leftovers(store, Root(tree)) == [
        f"put back 1 host setting(s) a killed run changed: {QUEUE}/add_random = 0"
    ]
    assert read(tree, f"{QUEUE}/add_random") == "0"


def test_without_the_entry_the_same_plan_is_refused(tmp_path):
    plan = tmp_path / "p.toml"
    plan.write_text('[options]\nrw = "randread"\n[host]\nadd_random = 1\n')
    with pytest.raises(UserError, match="host.add_random: unknown host setting; iolab sets scheduler, nr_requests"):
        load_plan(plan)
