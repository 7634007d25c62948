"""Seed 004, NFS storage validated with IOzone and mdtest, as its engineer's session: metadata rates
(create, stat, remove as threads double) on a small ext4 and on tmpfs, a metadata run that failed never
merged into the next one on another directory, and the same job from three hosts through fio's servers.

A 256 MiB ext4 on a loop device stands for a small file system: the preset fits its file counts to the
free inodes and space, or refuses before it starts, naming them.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests import in_process
from tests.cluster.servers import fio_servers, hostfile
from tests.iolab_cli import assert_clean_error, iolab, run_job
from tests.loopdev import loop_devices, loop_skip_reason

pytestmark = pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
FAST = ["--runtime", "1", "--no-telemetry"]


@contextmanager
def mounted(kind: str, where: Path, options: str = "", size_mib: int = 256) -> Iterator[Path]:
    """A small file system mounted at `where` (ext4 on a loop device, or tmpfs), unmounted on exit."""
    where.mkdir()
    if kind == "tmpfs":
        subprocess.run(["mount", "-t", "tmpfs", "-o", options or "size=64m", "tmpfs", str(where)], check=True)
        try:
            yield where
        finally:
            subprocess.run(["umount", str(where)], check=False)
        return
    if shutil.which("mkfs.ext4") is None:
        pytest.skip("mkfs.ext4 is not installed")
    with loop_devices(1, size_mib=size_mib) as (dev,):
        subprocess.run(["mkfs.ext4", "-q", "-F", dev.path], check=True)
        subprocess.run(["mount", dev.path, str(where)], check=True)
        try:
            yield where
        finally:
            subprocess.run(["umount", str(where)], check=False)


def test_the_metadata_preset_on_a_64_mib_ext4_completes_with_counts_that_fit(tmp_path, iolab_home):
    """The seed's 700 MB ext4 ran out of inodes at file 44,820 of 44,832; on 64 MiB (16,384 inodes) the preset
    sizes every create to the inodes free."""
    with mounted("ext4", tmp_path / "ext4", size_mib=64) as fs:
        inodes = json.loads(
            subprocess.run(
                ["df", "--output=iavail", str(fs)], capture_output=True, text=True, check=True
            ).stdout.split()[-1]
        )
        proc = iolab("run", "--preset", "metadata", str(fs), *FAST, "--json", timeout=240)
        assert proc.returncode == 0, proc.stderr  # no "only 222 MiB free: iolab needs at least 640 MiB"
        points = json.loads(proc.stdout)["points"]
        assert len(points) == 21 and all(p["status"] == "ok" for p in points), [p["error"] for p in points]
        creates = [p for p in points if p["name"].startswith("create-")]
        for point in creates:  # every create asked for no more files than the inodes free: nothing ran out
            files = int(point["options"]["nrfiles"]) * int(point["options"]["numjobs"])
            assert files <= inodes, (point["name"], files, inodes)
        assert os.listdir(fs) == ["lost+found"]  # its files and directory removed


def test_a_file_system_without_the_inodes_is_refused_before_it_starts_naming_them(tmp_path, iolab_home):
    with mounted("tmpfs", tmp_path / "tiny", "size=16m,nr_inodes=400") as fs:
        said = assert_clean_error(iolab("run", "--preset", "metadata", str(fs), *FAST))
    assert "free inodes" in said and "64 threads x 16 files need 1,024" in said, said
    assert json.loads(in_process.iolab("ls", "--json").stdout) == []  # refused before a run was made


def test_root_on_a_directory_a_user_owns_is_refused_with_its_fix(tmp_path, iolab_home):
    """The seed's engineers ran their benchmarks on the export's per-user directories. Root on a directory
    uid 65534 owns is refused since issue 39 (that user could swap the directory for a link while fio, as
    root, opens files in it by name): one line naming the owner and the fix, nothing written. The message's
    fixes: run iolab as the owner (docs/safety-paths.md), or give the directory to root, as here; then the
    same command measures it."""
    if os.geteuid() != 0:
        pytest.skip("needs root to give a directory to another user")
    with mounted("tmpfs", tmp_path / "export") as fs:
        theirs = fs / "alice"
        theirs.mkdir()
        os.chown(theirs, 65534, 65534)
        job = tmp_path / "rand.fio"
        job.write_text("[rand]\nrw=randread\nbs=4k\nsize=8m\nioengine=psync\n")
        said = assert_clean_error(iolab("run", str(job), str(theirs), *FAST))
        assert f"{theirs} is owned by uid 65534" in said and "run iolab as uid 65534" in said, said
        assert f"chown 0 {theirs}" in said and os.listdir(theirs) == []
        os.chown(theirs, 0, 0)  # the fix the message gives
        fixed = iolab("run", str(job), str(theirs), *FAST)
        assert fixed.returncode == 0, fixed.stderr
        assert os.listdir(theirs) == []  # its scratch file removed


def test_a_killed_metadata_run_is_not_resumed_on_another_directory(tmp_path, iolab_home):
    """`iolab run --preset metadata /ram/md` after a killed run on /mnt printed "resuming run 38" and merged
    both directories into one run; now the run on the other directory is a run of its own."""
    first, second = tmp_path / "mnt", tmp_path / "ram-md"
    first.mkdir()
    second.mkdir()
    db = iolab_home / "iolab.db"
    a = _killed_once_measuring(first, db)
    b = _killed_once_measuring(second, db)
    assert a != b, "the run on another directory reopened the killed one"
    targets = {r["id"]: r["targets"] for r in json.loads(in_process.iolab("ls", "--json").stdout)}
    assert targets == {a: [str(first)], b: [str(second)]}


def _killed_once_measuring(directory: Path, db: Path) -> int:
    """Start the metadata preset on `directory` with -q, SIGKILL it once a point of it is stored; its run id."""
    argv = [sys.executable, "-m", "iolab", "run", "-q", "--preset", "metadata", str(directory), *FAST]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 90
    try:
        while True:
            assert proc.poll() is None and time.monotonic() < deadline
            found = _run_measuring(db, directory)
            if found is not None:
                return found
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def _run_measuring(db: Path, directory: Path) -> int | None:
    if not db.exists():
        return None
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            row = conn.execute("SELECT run_id FROM points WHERE target = ? LIMIT 1", (str(directory),)).fetchone()
    except sqlite3.OperationalError:
        return None
    return int(row[0]) if row else None


def test_the_same_job_from_three_hosts_through_fio_servers(tmp_path, iolab_home):
    job = tmp_path / "nfs.fio"
    job.write_text("[global]\nioengine=psync\nbs=1m\ntime_based=1\nruntime=1\nrate=20m\n[seqread]\nrw=read\n")
    target = tmp_path / "export"
    target.mkdir()
    addresses = ["127.0.0.41", "127.0.0.42", "127.0.0.43"]
    with fio_servers(addresses) as (port, _):
        hosts = hostfile(tmp_path / "hosts", addresses, port)
        proc = iolab("run", str(job), str(target), "--hostfile", str(hosts), "--size", "32M", "--json")
    assert proc.returncode == 0, proc.stderr
    (point,) = json.loads(proc.stdout)["points"]
    assert sorted(h["host"] for h in point["hosts"]) == ["h1", "h2", "h3"]
    total = sum(d["bw_bytes"] for d in point["result"]["directions"].values())
    # three hosts at up to 20 MiB/s each, summed: more than any one host read (an average or one host's figure
    # is not), at most the three caps. No floor on the level: a loaded suite host read 74% of the sum in 1 s
    # points once and 23% in CI ci90, so the level says nothing about summing
    hosts = [h["bw_bytes"] for h in point["hosts"]]
    assert all(bw > 0 for bw in hosts) and max(hosts) < total <= 3 * 20 * 2**20 * 1.05, (total, hosts)
    assert total == pytest.approx(sum(hosts), rel=1e-6), (total, hosts)


SCALING_PLAN = """name = "threads"
[options]
rw = "read"
bs = "1m"
ioengine = "psync"
direct = 0
runtime = 1
ramp_time = 0
time_based = 1
[axes]
numjobs = [1, 2, 4, 8]
[phases]
drop_caches = true
"""


def test_thread_scaling_with_the_page_cache_dropped_before_every_point(tmp_path, iolab_home):
    """IOzone's sequential reads as threads double, each step after the OS caches were dropped: one row a
    thread count, every point ok, and no note that the cache could not be dropped."""
    plan = tmp_path / "threads.toml"
    plan.write_text(SCALING_PLAN)
    data = tmp_path / "data"
    data.mkdir()
    proc = iolab("run", str(plan), str(data), "--size", "64M", "--no-telemetry", timeout=240)
    assert proc.returncode == 0, proc.stderr
    assert "could not drop the page cache" not in proc.stderr
    shown = json.loads(in_process.iolab("show", "last", "--json").stdout)
    jobs = [int(p["options"]["numjobs"]) for p in shown["points"]]
    assert jobs == [1, 2, 4, 8] and all(p["status"] == "ok" for p in shown["points"])
    assert [p["result"]["jobs"] for p in shown["points"]] == jobs  # each thread count's jobs summed
    # every cache drop and the scratch fill are kept, each with its time and outcome (issue 42 item 5)
    drops = [p for p in shown["phases"] if p["kind"] == "cache drop"]
    assert [d["point_id"] for d in drops] == [p["id"] for p in shown["points"]], shown["phases"]
    assert all(d["outcome"] == "ok" and d["seconds"] >= 0 for d in drops)
    (fill,) = [p for p in shown["phases"] if p["kind"] == "fill"]
    assert fill["outcome"] == "ok" and fill["point_id"] is None and fill["started"] <= drops[0]["started"]
    text = " ".join(in_process.iolab("show", "last").stdout.split())
    assert "phase: cache drop" in text and "(before points): 4 times" in text and "phase: fill" in text, text


def test_a_steady_point_stops_once_its_rate_is_known_and_never_after_its_runtime(tmp_path, iolab_home):
    """The steady-state stop on the engineer's own job: a throttled read (20 MiB/s) with runtime=15 ends when
    its rate is known to ±2%, and never runs past its 15 s (it once ran the rule's 60 s default). Beside other
    workers the target may not be met in 15 s (CI saw ±7.7%); the early stop on a quiet host is held in the
    serial `tests/runner/test_stopping_loopdev.py`. TODO(stopping branch): numjobs > 1 with group_reporting
    is issue 35's."""
    job = "[steady]\nrw=read\nbs=64k\nioengine=psync\nrate=20m\ntime_based=1\nruntime=15\n"
    proc = run_job(tmp_path, job, "--size", "16M", "--no-telemetry", "--stop-when-known", "--json")
    assert proc.returncode == 0, proc.stderr
    (point,) = json.loads(proc.stdout)["points"]
    stopping = point["result"]["stopping"]
    ran = point["result"]["directions"]["read"]["runtime_ms"]
    seconds = stopping["kept_s"] + stopping["discarded_s"]
    if stopping["reason"] == "target met":
        # fio stopped before its runtime; the rule's seconds may reach the 15th when the target is met in it
        # (CI ci88: met at 15 s of seconds, fio's clock at 14,995 ms)
        assert stopping["ci"] <= 0.02 and ran < 15_000 and seconds <= 15, (ran, stopping)
    else:  # ran to its own runtime (fio's clock: a loaded host may delay a status block, never the runtime)
        # a loaded host may delay a status block and overrun fio's runtime by most of a second (the project's CI
        # after stop 60: 15,969 ms and 16 s of seconds); the rule never counts seconds fio's clock did not run
        assert stopping["reason"] in ("target not met", "not steady") and ran >= 14_000, stopping
        assert seconds <= math.ceil(ran / 1000), (ran, stopping)
    assert ran < 20_000, (ran, stopping)  # its own runtime is the maximum, not the rule's 60 s default


def test_a_create_job_that_runs_out_of_inodes_says_so_in_its_one_line(tmp_path, iolab_home):
    """mdtest's create as a fio job file of the engineer's own on a 200-inode tmpfs: no scratch-size refusal
    ("only 16 MiB free: iolab needs at least 640 MiB", though no scratch file is made), and the failure is
    fio's ENOSPC in the line iolab prints, not "fio exited with code 1"."""
    job = tmp_path / "create.fio"
    job.write_text("[create]\nioengine=filecreate\nnrfiles=500\nfilesize=4k\ncreate_on_open=1\nruntime=2\n")
    with mounted("tmpfs", tmp_path / "small", "size=16m,nr_inodes=200") as fs:
        said = assert_clean_error(iolab("run", str(job), str(fs), "--allow-write", "--no-telemetry", "-q"), code=3)
    assert "No space left on device" in said and "exited with code" not in said, said
