"""`iolab run` end to end with the real fio, as a new user would run it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import in_process
from tests.iolab_cli import assert_clean_error, iolab, run_job

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
FAST = ["--runtime", "1", "--ramp", "0", "--size", "64M"]


def test_run_on_a_directory_measures_stores_and_cleans_up(tmp_path):
    target = tmp_path / "data"
    target.mkdir()
    proc = iolab("run", str(target), *FAST)
    assert proc.returncode == 0, proc.stderr
    for name in (
        "seqread-1m-qd32",
        "seqwrite-1m-qd32",
        "randread-4k-qd32-j4",
        "randwrite-4k-qd32-j4",
        "randread-4k-qd1",
    ):
        assert name in proc.stdout
    assert "MB/s" in proc.stdout and "p99 lat" in proc.stdout
    assert list(target.iterdir()) == []  # scratch file removed

    runs = json.loads(in_process.iolab("ls", "--json").stdout)
    assert [(r["status"], r["points_done"], r["points_planned"]) for r in runs] == [("complete", 5, 5)]
    shown = json.loads(in_process.iolab("show", str(runs[0]["id"]), "--json").stdout)
    by_name = {p["name"]: p for p in shown["points"]}
    rand_read = by_name["randread-4k-qd32-j4"]["result"]
    assert rand_read["jobs"] == 4
    read = rand_read["directions"]["read"]
    assert read["bw_bytes"] > 0 and read["iops"] > 0 and read["total_ios"] > 0
    assert float(read["latency"]["percentiles"]["99.0"]) >= read["latency"]["percentiles"]["50.0"]
    assert by_name["seqwrite-1m-qd32"]["result"]["directions"]["write"]["bw_bytes"] > 0
    assert by_name["randread-4k-qd1"]["options"]["iodepth"] == "1"
    assert by_name["seqread-1m-qd32"]["target"]["direct"] is True


def test_run_keeps_raw_artifacts_and_per_second_samples(tmp_path):
    from iolab.store.db import open_store
    from iolab.store.queries import point_samples, run_points

    # one rate-capped point of 2 s: its artifacts and samples are the subject
    proc = run_job(tmp_path, "[seqread]\nrw=read\nbs=1m\nrate=64m\ntime_based=1\nruntime=2\n", "--size", "64M")
    assert proc.returncode == 0, proc.stderr
    store = open_store()
    records = run_points(store, 1)
    record = records[0]
    for name in ("job.fio", "command", "fio.json", "stderr"):
        assert store.artifact(record.id, name) is not None, name
    assert b"--output-format=json+" in store.artifact(record.id, "command")
    assert b"rw=read" in store.artifact(record.id, "job.fio")
    bw = [s for s in point_samples(store, record.id) if s.metric == "bw"]
    assert len(bw) >= 1 and all(s.value > 0 for s in bw)


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting ramfs needs root")
def test_file_system_without_o_direct_falls_back_to_buffered_and_says_ram(tmp_path):
    mnt = tmp_path / "ram"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "ramfs", "ramfs", str(mnt)], check=True)
    try:
        job = "[rr]\nrw=randread\nbs=4k\nrate_iops=2000\ntime_based=1\nruntime=1\n"  # the fallback, not RAM's speed
        proc = run_job(tmp_path, job, "--size", "16M", "--no-telemetry", "--json", target=mnt)
        assert proc.returncode == 0, proc.stderr
        assert "buffered I/O and the result is RAM-backed" in proc.stderr
        point = json.loads(proc.stdout)["points"][0]
        assert point["target"]["direct"] is False and point["target"]["ram_backed"] is True
        from iolab.store.db import open_store

        assert b"direct=0" in open_store().artifact(point["id"], "job.fio")
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def test_unknown_target_is_a_clear_error(tmp_path):
    err = assert_clean_error(iolab("run", str(tmp_path / "nope")))
    assert "no such file, directory or device" in err


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv to act as nobody"
)
def test_unwritable_directory_is_a_clear_error():
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="iolab-test-", dir="/tmp"))  # pytest's tmp dirs are private to root
    os.chmod(base, 0o755)
    locked = base / "locked"
    locked.mkdir(mode=0o755)
    home = base / "home"
    home.mkdir(mode=0o700)
    os.chown(
        home, 65534, 65534
    )  # the user's own home: a shared, writable one is refused (tests/store/test_home_ownership.py)
    try:
        proc = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *_python_iolab(), "run", str(locked)],
            capture_output=True,
            text=True,
            env={**os.environ, "IOLAB_HOME": str(home)},
            timeout=60,
            check=False,
        )
        assert "cannot write to this directory" in assert_clean_error(proc)
    finally:
        shutil.rmtree(base)


def _python_iolab() -> list[str]:
    import sys

    return [sys.executable, "-m", "iolab"]


def test_missing_fio_is_a_clear_error(tmp_path):
    err = assert_clean_error(iolab("run", str(tmp_path), env={"PATH": str(tmp_path)}))
    assert "fio was not found" in err and "apt-get install fio" in err


def test_bad_size_is_a_clear_error(tmp_path):
    assert "not a size" in assert_clean_error(iolab("run", str(tmp_path), "--size", "lots"))


def test_show_unknown_run_is_a_clear_error():
    assert "no runs yet" in assert_clean_error(in_process.iolab("show", "last"))
