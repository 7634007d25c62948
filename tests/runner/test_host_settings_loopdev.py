"""Host settings as sweep axes on a real loop device: an A/B of the I/O scheduler is one run with interleaved
repeats and one table, each point runs under its scheduler, and the device's own settings are back afterwards,
also after iolab is killed mid-run (by `iolab clean`, or by the next run). A value the kernel refuses stops the
run before it exists, with nothing changed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iolab.models.host_settings import active_choice
from iolab.store.db import open_store
from tests import in_process
from tests.iolab_cli import assert_clean_error, iolab
from tests.loopdev import LoopDevice, loop_devices, loop_skip_reason

QUEUE_FILES = ("scheduler", "nr_requests", "wbt_lat_usec")
PLAN = """name = "sched-ab"
repeat = {{ count = 3, interleave = true }}
[options]
rw = "randread"
bs = "4k"
iodepth = 4
ioengine = "libaio"
time_based = true
[host]
{host}
[phases]
pre_point = ["cat /sys/block/{name}/queue/scheduler"]
"""
ONE_POINT = """name = "plain"
[options]
rw = "read"
time_based = true
"""


pytestmark = pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
FAST = ["--runtime", "1", "--ramp", "0"]


def scheduler(dev: LoopDevice) -> str | None:
    return active_choice(Path(f"/sys/block/{dev.name}/queue/scheduler").read_text())


def queue(dev: LoopDevice) -> dict[str, str | None]:
    """The device's own settings that a scheduler sweep touches (a switch resets nr_requests)."""
    base = Path(f"/sys/block/{dev.name}/queue")
    return {"scheduler": scheduler(dev), **{name: (base / name).read_text().strip() for name in QUEUE_FILES[1:]}}


@pytest.fixture
def device():
    """A fresh loop device, or a skip where this kernel's loop devices have no mq-deadline to compare.

    A loop device keeps its queue settings when it is detached and attached again, so a failed test would
    hand its scheduler to the next user of that loop number: the settings found are written back at the end
    whatever happened (the tests check that iolab did that itself)."""
    with loop_devices(1) as (dev,):
        offered = Path(f"/sys/block/{dev.name}/queue/scheduler").read_text().replace("[", "").replace("]", "")
        if "mq-deadline" not in offered.split():
            pytest.skip(f"loop devices offer only the schedulers {offered.strip()!r} here")
        found = queue(dev)
        try:
            yield dev
        finally:
            for name in QUEUE_FILES:  # scheduler first: switching it resets nr_requests
                Path(f"/sys/block/{dev.name}/queue/{name}").write_text(str(found[name]))


def test_an_ab_of_the_scheduler_is_one_run_one_table_and_the_device_is_as_before(tmp_path, device):
    before = queue(device)
    plan = tmp_path / "ab.toml"
    plan.write_text(PLAN.format(host='scheduler = ["none", "mq-deadline"]', name=device.name))

    done = iolab("run", str(plan), device.path, *FAST, "--allow-commands", "--allow-host-changes", "--json")
    assert done.returncode == 0, done.stderr
    assert queue(device) == before
    points = json.loads(done.stdout)["points"]
    order = [p["host_settings"]["scheduler"] for p in sorted(points, key=lambda p: p["seq"])]
    assert order == ["none", "mq-deadline"] * 3  # interleaved: A B A B A B
    assert all(p["status"] == "ok" for p in points)

    # each point ran under its own scheduler: what the kernel said just before fio started
    store = open_store()
    for point in points:
        seen = (store.artifact(point["id"], "pre-command") or b"").decode()
        assert f"[{point['host_settings']['scheduler']}]" in seen, seen
        written = (store.artifact(point["id"], "host-settings") or b"").decode()
        assert written == f"/sys/block/{device.name}/queue/scheduler = {point['host_settings']['scheduler']}"
    store.close()

    markdown = in_process.iolab("report", "last", "--format", "md").stdout
    assert markdown.count("### Table") == 1
    assert "| scheduler | MB/s |" in markdown
    rows = [line for line in markdown.splitlines() if line.startswith(("| none |", "| mq-deadline |"))]
    assert [row.split(" | ")[0] for row in rows] == ["| none", "| mq-deadline"]
    assert all(row.rstrip(" |").endswith("| 3") for row in rows)  # three repeats each


def test_without_the_opt_in_or_with_a_value_the_kernel_refuses_nothing_runs_and_nothing_changes(tmp_path, device):
    before = queue(device)
    plan = tmp_path / "bad.toml"
    plan.write_text(PLAN.format(host='scheduler = ["none", "mq-deadline"]\nnr_requests = 1000000', name=device.name))
    unasked = assert_clean_error(iolab("run", str(plan), device.path, *FAST, "--allow-commands"))
    assert "changes host settings: scheduler = none, mq-deadline (the block device under each target)" in unasked
    assert "--allow-host-changes" in unasked
    refused = assert_clean_error(
        iolab("run", str(plan), device.path, *FAST, "--allow-commands", "--allow-host-changes")
    )
    assert f"the kernel refused nr_requests = 1000000 on {device.name}" in refused and "nothing was changed" in refused
    assert queue(device) == before
    assert json.loads(in_process.iolab("ls", "--json").stdout) == []


def _fio_running(marker: str) -> bool:
    """Whether a point's fio (not `fio --version`) of the run carrying `marker` in its environment is running."""
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{entry}/comm").read_text().strip() != "fio":
                continue
            measuring = b"--output-format=json+" in Path(f"/proc/{entry}/cmdline").read_bytes()
            if measuring and marker.encode() in Path(f"/proc/{entry}/environ").read_bytes():
                return True
        except OSError:
            continue
    return False


def _killed_mid_point(plan: Path, dev: LoopDevice, marker: str) -> None:
    """Run the plan and SIGKILL iolab while a point's fio runs."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "iolab", "run", str(plan), dev.path, *FAST, "--allow-commands", "--allow-host-changes"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "IOLAB_HOST_SETTINGS_TEST": marker},
    )
    deadline = time.monotonic() + 60
    while not _fio_running(marker):
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "fio did not start"
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def test_after_a_sigkill_the_next_iolab_command_puts_the_settings_back(tmp_path, device):
    before = queue(device)
    found = scheduler(device)
    other = "none" if found == "mq-deadline" else "mq-deadline"
    plan = tmp_path / "kill.toml"
    plan.write_text(PLAN.format(host=f'scheduler = "{other}"', name=device.name))

    _killed_mid_point(plan, device, f"{os.getpid()}-clean")
    assert scheduler(device) == other  # nobody was left to put it back
    cleaned = iolab("clean")
    assert cleaned.returncode == 0, cleaned.stderr
    assert f"put back 1 host setting(s) a killed run changed: /sys/block/{device.name}/queue/scheduler = {found}" in (
        cleaned.stdout
    )
    assert queue(device) == before

    _killed_mid_point(plan, device, f"{os.getpid()}-run")
    assert scheduler(device) == other
    plain = tmp_path / "plain.toml"
    plain.write_text(ONE_POINT)
    nxt = iolab("run", str(plain), device.path, *FAST)
    assert nxt.returncode == 0, nxt.stderr
    assert "put back 1 host setting(s) a killed run changed" in nxt.stderr
    assert queue(device) == before


def test_a_dry_run_lists_host_changes_without_asking_for_the_permission_to_make_them(tmp_path, device):
    """A dry run changes nothing, so it needs no --allow-host-changes: it lists the changes and says a run will."""
    before = queue(device)
    plan = tmp_path / "ab.toml"
    plan.write_text(ONE_POINT + '[host]\nscheduler = "none"\n')
    dry = iolab("run", str(plan), device.path, "--dry-run", *FAST)
    assert dry.returncode == 0, dry.stderr
    changes = [line for line in (dry.stdout + dry.stderr).splitlines() if line.startswith("changes:")]
    assert changes and all("--allow-host-changes" in line for line in changes), dry.stderr
    assert queue(device) == before
