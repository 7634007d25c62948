"""The classes of data loss of the safety issue (30) that live in how fio is handed its work, on real loop
devices and directories of checksummed files. Each test is one class, tried in the forms the issue saw:

1. fio makes file names iolab never sees (a job's name under `directory=`);
2. fio expands `${VAR}` in a target path;
3. "holds data" meant "blkid finds a signature at the start";
4. a target resolved by path again at every point.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.iolab_cli import assert_clean_error, iolab
from tests.loopdev import loop_devices, loop_skip_reason

needs_loop = pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
FAST = ["--runtime", "1", "--ramp", "0"]


def _digest(path: Path | str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _tree(directory: Path) -> dict[str, str]:
    return {str(p.relative_to(directory)): _digest(p) for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
@pytest.mark.parametrize("engine_and_mode", ["ioengine=filedelete", "rw=write\nsize=1m", "ioengine=filecreate"])
def test_class1_a_job_name_never_becomes_a_path(tmp_path, engine_and_mode):
    """`[../../victim]` with `directory=D`: fio would delete or write `D/../../victim.0.0`."""
    user = tmp_path / "user"
    top = user / "a" / "b"
    work = top / "d"
    work.mkdir(parents=True)
    for name in ("victim.0.0", "victim.1.0", "iolab.0.0"):
        (user / name).write_bytes(os.urandom(4096))
        (top / name).write_bytes(os.urandom(4096))
    before = _tree(user)
    job = tmp_path / "j.fio"
    job.write_text(f"[../../victim]\ndirectory={work}\n{engine_and_mode}\nnrfiles=1\nnumjobs=2\n")
    proc = iolab("run", str(job), *FAST)
    assert {k: v for k, v in _tree(user).items() if not k.startswith("a/b/d/")} == before
    assert "Traceback" not in proc.stderr
    dry = iolab("run", str(job), "--dry-run")
    assert "victim" not in "".join(line for line in dry.stdout.splitlines() if "/" in line and "write" in line)


@needs_loop
def test_class2_a_dollar_in_a_target_path_is_refused(tmp_path):
    """`l/d${Z}` a link to a blank device, `l/d` a link to a device with data: fio would expand ${Z}."""
    with loop_devices(2, size_mib=16) as (blank_dev, data_dev):
        Path(data_dev.backing).write_bytes(os.urandom(16 << 20))
        before = _digest(data_dev.backing)
        links = tmp_path / "l"
        links.mkdir()
        (links / "d${Z}").symlink_to(blank_dev.path)
        (links / "d").symlink_to(data_dev.path)
        job = tmp_path / "w.fio"
        job.write_text("[w]\nrw=write\nbs=1m\nsize=4m\n")
        err = assert_clean_error(iolab("run", str(job), str(links / "d${Z}"), "--allow-write", *FAST))
        assert "$" in err and "expand" in err
        job.write_text(f"[w]\nrw=write\nbs=1m\nsize=4m\nfilename={links}/d${{Z}}\n")
        assert_clean_error(iolab("run", str(job), "--allow-write", *FAST))
        assert _digest(data_dev.backing) == before


@needs_loop
@pytest.mark.parametrize("layout", ["no-signature", "zero-first-mib", "tail-only"])
def test_class3_a_device_with_data_and_no_signature_is_refused(layout):
    """Data blkid does not recognise: random bytes, a device whose first MiB is zero, data only at the end."""
    with loop_devices(1, size_mib=64) as (dev,):
        backing = Path(dev.backing)
        with open(backing, "r+b") as handle:
            if layout == "no-signature":
                handle.write(os.urandom(64 << 20))
            elif layout == "zero-first-mib":
                handle.seek(1 << 20)
                handle.write(os.urandom(63 << 20))
            else:
                handle.seek((64 << 20) - 8192)
                handle.write(b"\x01" * 100)
        before = _digest(backing)
        err = assert_clean_error(iolab("run", "--preset", "quick", dev.path, "--allow-write", *FAST))
        assert "holds data" in err and "blkdiscard" in err
        assert _digest(backing) == before


@needs_loop
def test_class3_a_loop_device_stacked_inside_with_a_mounted_file_system_is_refused(tmp_path):
    """A loop device at a 1 MiB offset inside the target, holding a mounted ext4: nothing on the target
    itself shows it (no holder, no mount, a blank first MiB)."""
    if shutil.which("mkfs.ext4") is None:
        pytest.skip("mkfs.ext4 is not installed")
    with loop_devices(1, size_mib=64) as (dev,):
        inner = subprocess.run(
            ["losetup", "-f", "--show", "-o", str(1 << 20), dev.path], capture_output=True, text=True, check=True
        ).stdout.strip()
        mount = tmp_path / "m"
        mount.mkdir()
        try:
            subprocess.run(["mkfs.ext4", "-q", "-F", inner], check=True)
            subprocess.run(["mount", inner, str(mount)], check=True)
            (mount / "precious").write_bytes(os.urandom(1 << 20))
            subprocess.run(["sync"], check=True)
            before = _digest(mount / "precious")
            err = assert_clean_error(iolab("run", "--preset", "quick", dev.path, "--allow-write", *FAST))
            assert Path(inner).name in err and "backed by it" in err
            subprocess.run(["umount", str(mount)], check=True)
            # the file system as its checker sees it (the damage seen was "journal superblock is corrupt")
            assert subprocess.run(["e2fsck", "-fn", inner], check=False, capture_output=True).returncode == 0
            subprocess.run(["mount", inner, str(mount)], check=True)
            assert _digest(mount / "precious") == before
        finally:
            subprocess.run(["umount", str(mount)], check=False)
            subprocess.run(["losetup", "-d", inner], check=False)


@needs_loop
def test_class3_blank_and_iolab_s_own_last_write_pass(tmp_path):
    """A zeroed device passes; after iolab wrote it, iolab's own leftovers pass; a byte changed by
    someone else afterwards is refused again (one rate-capped write point a run: the writes are the subject)."""
    plan = tmp_path / "write.toml"
    plan.write_text('[options]\nrw = "write"\nbs = "1m"\nrate = "32m"\ntime_based = 1\nruntime = "1s"\n')
    with loop_devices(1, size_mib=32) as (dev,):
        write = [str(plan), dev.path, "--allow-write", "--no-telemetry"]
        first = iolab("run", *write)
        assert first.returncode == 0, first.stderr
        assert Path(dev.backing).read_bytes().count(0) < 32 << 20  # the run did write data
        again = iolab("run", *write)
        assert again.returncode == 0, again.stderr
        with open(dev.backing, "r+b") as handle:
            handle.write(b"someone else's")
        subprocess.run(["blockdev", "--flushbufs", dev.path], check=False)
        assert "holds data" in assert_clean_error(iolab("run", *write))


@needs_loop
def test_class4_a_link_switched_between_points_stops_the_run(tmp_path):
    """A symlink switched from a blank device to a device with data after the checks passed, while the run
    holds the device (detected by its O_EXCL hold, not by a clock: a loaded host may take seconds to get there)."""
    with loop_devices(2, size_mib=32) as (blank_dev, data_dev):
        Path(data_dev.backing).write_bytes(os.urandom(32 << 20))
        before = _digest(data_dev.backing)
        link = tmp_path / "dev"
        link.symlink_to(blank_dev.path)
        plan = tmp_path / "p.toml"
        plan.write_text(
            '[options]\nrw = "write"\nbs = "1m"\nsize = "8m"\ntime_based = 1\nruntime = "2s"\n'
            "[axes]\niodepth = [1, 2, 4]\n"
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "iolab", "run", str(plan), str(link), "--allow-write"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )

        def switch() -> None:
            # once iolab holds the blank device (its checks passed, the run measures), whatever the host's load
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    os.close(os.open(blank_dev.path, os.O_RDONLY | os.O_EXCL))
                except OSError:
                    break
                time.sleep(0.05)
            temporary = tmp_path / "dev.new"
            temporary.symlink_to(data_dev.path)
            temporary.replace(link)

        threading.Thread(target=switch, daemon=True).start()
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 3, err
        assert "not what it was" in err and "Traceback" not in err
        assert _digest(data_dev.backing) == before
