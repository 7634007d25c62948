"""The device watch (issue 39, observation 4): a loop device stacked at an offset on a device iolab is
writing stops the run at once, exit 3, naming it, and fio writes nothing more."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iolab import guards
from iolab.errors import RunFailed
from iolab.probe.root import Root
from iolab.runner.device_watch import GUARD, DeviceWatch
from iolab.store.db import open_store
from tests.loopdev import loop_devices, loop_skip_reason

needs_loop = pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))


def _sys_with(tmp_path: Path, loops: dict[str, str]) -> Root:
    """A /sys with the whole device vdb and loop devices backed by it (name -> offset)."""
    (tmp_path / "sys/class/block/vdb").mkdir(parents=True, exist_ok=True)
    (tmp_path / "sys/class/block/vdb/dev").write_text("252:16\n")
    for name, offset in loops.items():
        loop = tmp_path / "sys/block" / name / "loop"
        loop.mkdir(parents=True, exist_ok=True)
        (loop / "backing_file").write_text("/dev/vdb\n")
        (loop / "offset").write_text(f"{offset}\n")
        (tmp_path / "sys/class/block" / name).mkdir(parents=True, exist_ok=True)
    return Root(tmp_path)


def test_a_loop_device_stacked_at_an_offset_is_named_and_stops(tmp_path):
    root = _sys_with(tmp_path, {})
    watch = DeviceWatch(["/dev/vdb"], root)
    assert watch.change() is None
    watch.check("before p1")  # nothing changed: no stop
    _sys_with(tmp_path, {"loop9": "67108864"})
    with pytest.raises(RunFailed, match=r"loop9 is backed by it \(at offset 67108864\) appeared.*before p2"):
        watch.check("before p2")


def test_the_watch_switched_off_sees_nothing(tmp_path):
    root = _sys_with(tmp_path, {})
    watch = DeviceWatch(["/dev/vdb"], root)
    _sys_with(tmp_path, {"loop9": "0"})
    with guards.switched_off(GUARD):
        assert watch.change() is None
    assert watch.change() is not None


def _region(path: str, offset: int, length: int) -> str:
    with open(path, "rb") as handle:
        handle.seek(offset)
        return hashlib.sha256(handle.read(length)).hexdigest()


WRITE_30S = '[options]\nrw = "write"\nbs = "1m"\nrate = "16m"\ntime_based = 1\nruntime = "30s"\n'
# a short read point after a precondition that writes the whole 256 MiB device at 8 MiB/s (about 32 s)
PRECONDITIONED = (
    '[options]\nrw = "read"\nbs = "1m"\ntime_based = 1\nruntime = "1s"\n'
    '[phases.precondition]\noptions = { rw = "write", bs = "1m", rate = "8m" }\nscope = "once"\n'
)


@needs_loop
@pytest.mark.parametrize(("plan_text", "where"), [(WRITE_30S, "during job"), (PRECONDITIONED, "while preconditioning")])
def test_a_loop_device_stacked_on_the_held_target_stops_the_write_run(tmp_path, plan_text, where):
    """`losetup -o 64M --sizelimit 128M` on the device a run writes (a measured point, or a precondition):
    O_EXCL does not refuse it, the watch does. The run (30 s of writing asked) ends within seconds, exit 3,
    naming the new loop device, and the region the new device covers does not change after iolab has
    exited (fio stopped with it)."""
    plan = tmp_path / "write.toml"
    plan.write_text(plan_text)
    with loop_devices(1, size_mib=256) as (dev,):
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "iolab", "run", str(plan), dev.path, "--allow-write", "--ramp", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:  # until iolab holds it (its checks passed)
            try:
                os.close(os.open(dev.path, os.O_RDONLY | os.O_EXCL))
            except OSError:
                break
            time.sleep(0.05)
        time.sleep(1.5)  # fio is writing
        inner = subprocess.run(
            ["losetup", "-f", "--show", "-o", "64M", "--sizelimit", "128M", dev.path],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        try:
            _, err = proc.communicate(timeout=60)
            elapsed = time.monotonic() - started
            after_exit = _region(dev.backing, 64 << 20, 128 << 20)
            time.sleep(2)
            assert _region(dev.backing, 64 << 20, 128 << 20) == after_exit  # nothing writes it any more
        finally:
            subprocess.run(["losetup", "-d", inner], check=False)
        assert proc.returncode == 3, err
        assert f"{os.path.basename(inner)} is backed by it (at offset 67108864) appeared" in err, err
        assert where in err, err
        assert "Traceback" not in err and len([line for line in err.splitlines() if line.startswith("iolab:")]) == 1
        assert elapsed < 25, f"the run went on for {elapsed:.0f} s"


@needs_loop
def test_a_watched_device_s_point_keeps_fio_s_result_with_and_without_a_stopping_rule(tmp_path):
    """The watch polls fio (its status blocks then land in the output): a write run on a held device still
    stores fio's final document as the point's result, alone and beside --stop-when-known."""
    plan = tmp_path / "write.toml"
    plan.write_text('[options]\nrw = "write"\nbs = "1m"\nrate = "32m"\ntime_based = 1\nruntime = "2s"\n')
    with loop_devices(1, size_mib=64) as (dev,):
        for extra in ([], ["--stop-when-known", "--min-seconds", "1", "--max-seconds", "2"]):
            proc = subprocess.run(
                [sys.executable, "-m", "iolab", "run", str(plan), dev.path, "--allow-write", "--ramp", "0"]
                + ["--no-telemetry", "--json", *extra],
                capture_output=True,
                text=True,
                check=False,
            )
            assert proc.returncode == 0, proc.stderr
            (point,) = json.loads(proc.stdout)["points"]
            assert point["result"]["directions"]["write"]["io_bytes"] >= 16 << 20, extra
        store = open_store()
        kept = [store.artifact(row[0], "fio.json") for row in store.conn.execute("SELECT id FROM points")]
        assert len(kept) == 2 and all(json.loads(text or b"") for text in kept)  # fio's final document alone
