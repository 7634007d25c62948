"""Seed 003, "sequential read below specification" on a desktop NVMe, as its engineer's session: the job
from `run-all-benchmarks.sh` linted (psync at queue depth 1, a file on ext4), run, corrected as the seed
corrects it (libaio, iodepth=32) and run again.

A 256 MiB ext4 on a loop device stands for the desktop's ext4; the jobs name their own `filename=`, as the
seed's do.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import in_process
from tests.iolab_cli import iolab
from tests.loopdev import loop_devices, loop_skip_reason

pytestmark = pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))

DESKTOP_JOB = """[seq-read]
filename={file}
size=64M
rw=read
bs=128k
direct=1
numjobs=1
time_based
runtime=1
group_reporting
"""
CORRECTED = {"ioengine": "libaio", "iodepth": "32"}


@pytest.fixture
def ext4(tmp_path):
    if shutil.which("mkfs.ext4") is None:
        pytest.skip("mkfs.ext4 is not installed")
    where = tmp_path / "home-disk"
    where.mkdir()
    with loop_devices(1, size_mib=256) as (dev,):
        subprocess.run(["mkfs.ext4", "-q", "-F", dev.path], check=True)
        subprocess.run(["mount", dev.path, str(where)], check=True)
        try:
            yield where
        finally:
            subprocess.run(["umount", str(where)], check=False)


def test_the_desktop_job_linted_run_corrected_and_run_again(ext4, tmp_path, iolab_home):
    data = ext4 / "fio-test"
    job = tmp_path / "seq-read.fio"
    job.write_text(DESKTOP_JOB.format(file=data))

    linted = iolab("lint", str(job))
    assert linted.returncode == 0, linted.stderr
    assert "FIO-SYNC-ENGINE-QD" in linted.stdout and "keeps only 1 I/O in" in linted.stdout

    first = iolab("run", str(job), "--allow-write", "--no-telemetry", "--json")
    assert first.returncode == 0, first.stderr
    (slow,) = json.loads(first.stdout)["points"]
    assert slow["options"]["rw"] == "read" and slow["result"]["directions"]["read"]["bw_bytes"] > 0
    # the run's target is the file the job names, not the directory iolab was started in ("." before)
    (listed,) = json.loads(in_process.iolab("ls", "--json").stdout)
    assert listed["targets"] == [str(data)], listed
    assert str(data) in in_process.iolab("ls").stdout
    assert not data.exists()  # the file iolab made for the job is removed afterwards

    corrected = tmp_path / "seq-read-libaio.fio"
    corrected.write_text(job.read_text().replace("direct=1\n", "direct=1\nioengine=libaio\niodepth=32\n"))
    relinted = iolab("lint", str(corrected))
    assert relinted.returncode == 0 and "FIO-SYNC-ENGINE-QD" not in relinted.stdout
    second = iolab("run", str(corrected), "--allow-write", "--no-telemetry", "--json")
    assert second.returncode == 0, second.stderr
    (fast,) = json.loads(second.stdout)["points"]
    assert {k: fast["options"][k] for k in CORRECTED} == CORRECTED
    runs = json.loads(in_process.iolab("ls", "--json").stdout)
    assert len(runs) == 2 and all(r["targets"] == [str(data)] for r in runs)
    # the two jobs are two workloads (other options) asking one question, a sequential read of 128 KiB:
    # compare pairs them by access pattern and says what the corrected job does differently
    said = in_process.iolab("compare", str(runs[-1]["id"]), str(runs[0]["id"]))
    assert said.returncode == 0, said.stderr
    text = " ".join(said.stdout.split())
    assert "paired as sequential read; B differs in" in text, said.stdout
    assert "ioengine: psync -> libaio" in text and "iodepth: 1 -> 32" in text, said.stdout
    (row,) = json.loads(in_process.iolab("compare", str(runs[-1]["id"]), str(runs[0]["id"]), "--json").stdout)[
        "workloads"
    ]
    assert row["paired_by"] == "access pattern" and "iodepth: 1 -> 32" in row["differs"]
    assert Path(ext4).exists()
