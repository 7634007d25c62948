"""The words a user reads, from the real commands (issue 42 item 7): each command run as a user would and
its text checked, so a placeholder ('on None'), a wrong plural or advice for a flag that does not exist
cannot reach the screen again."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.iolab_cli import assert_clean_error, iolab, run_job
from tests.loopdev import loop_devices

DATA = Path(__file__).resolve().parent.parent / "data" / "fio"
READ_JOB = "[r]\nrw=randread\nbs=4k\nsize=8m\ntime_based=1\nruntime=1\nrate_iops=500\n"


def test_a_loop_device_in_ram_is_named_so_by_run_and_by_doctor(tmp_path: Path) -> None:
    with loop_devices(1, size_mib=16) as (device,):
        run = run_job(tmp_path, READ_JOB, "--ramp", "0", target=Path(device.path))
        doctor = iolab("doctor", device.path)
    assert run.returncode == 0, run.stderr
    assert "None" not in run.stderr
    assert "keeps its data in RAM" in run.stderr
    assert "FS-TARGET-IN-RAM" in doctor.stdout and "keeps its data in RAM" in doctor.stdout, doctor.stdout


def test_one_imported_point_is_one_point() -> None:
    proc = iolab("import", str(DATA / "randread-4jobs.json"))
    assert proc.returncode == 0, proc.stderr
    said = proc.stdout + proc.stderr
    assert "Imported 1 point from 1 file" in said, said


def test_an_imported_series_with_no_host_has_no_empty_at() -> None:
    assert iolab("import", str(DATA / "randread-4jobs.json")).returncode == 0
    proc = iolab("history")
    assert proc.returncode == 0, proc.stderr
    assert "on /scratch/data (IOPS, 1 run)" in proc.stdout and " @ " not in proc.stdout, proc.stdout


@pytest.mark.skipif(shutil.which("mount") is None, reason="needs mount(8) for a small tmpfs")
def test_a_metadata_run_that_cannot_fit_advises_what_run_can_do(tmp_path: Path) -> None:
    small = tmp_path / "small"
    small.mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m,nr_inodes=300", "tmpfs", str(small)], check=False
    ).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        proc = iolab("run", "--preset", "metadata", str(small))
    finally:
        subprocess.run(["umount", str(small)], check=False)
    message = assert_clean_error(proc)
    assert "--threads" not in message and "free inodes and space, or give a larger file system" in message, message
