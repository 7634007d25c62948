"""Files per job on a directory target (IOzone's throughput mode): each job its own file, made and removed
by iolab's own directory, with real fio."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from iolab.fio.run import files_dir, point_jobfile
from iolab.models import Point, Target
from iolab.models.point import PER_JOB_FORMAT
from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest
from iolab.store.db import open_store
from iolab.store.queries import open_scratch, run_points

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")


def test_fio_gives_each_job_its_own_file_of_its_share_of_the_size(tmp_path):
    target = Target(str(tmp_path), "directory", str(tmp_path / "iolab-scratch-0.dat"), 16 << 20, True, True, False)
    options = {"rw": "randread", "bs": "4k", "numjobs": "4", "runtime": "1", "filename_format": PER_JOB_FORMAT}
    point = Point("rr", target, options)
    files_dir(target).mkdir()
    jobfile = tmp_path / "job.fio"
    jobfile.write_text(point_jobfile(point, tmp_path))
    done = subprocess.run(
        ["fio", "--output-format=json", str(jobfile)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert all(job["error"] == 0 for job in json.loads(done.stdout)["jobs"])
    made = {p.name: p.stat().st_size for p in files_dir(target).iterdir()}
    assert made == {f"iolab-job.{n}.0": 4 << 20 for n in range(4)}
    assert not (tmp_path / "iolab-scratch-0.dat").exists()


def test_a_per_job_plan_runs_on_its_own_files_and_leaves_the_directory_as_it_was(tmp_path):
    plan = tmp_path / "p.toml"
    plan.write_text(
        'files = "per-job"\n[options]\nrw = "randread"\nbs = "4k"\ntime_based = true\nruntime = 1\n'
        "[axes]\nnumjobs = [1, 2]\n"
    )
    target = tmp_path / "data"
    target.mkdir()
    request = RunRequest(plan=str(plan), targets=[str(target)], size=16 << 20, telemetry_interval=None)
    outcome = execute(request, open_store(), SilentProgress())
    assert outcome.status == "complete", outcome.failed
    records = run_points(open_store(), outcome.run_id)
    assert [r.point.per_job_bytes for r in records] == [16 << 20, 8 << 20]
    assert all(r.result.directions["read"].io_bytes > 0 for r in records)
    recorded = [
        tuple(row) for row in open_store().conn.execute("SELECT kind, path FROM scratch WHERE kind != 'workdir'")
    ]
    assert recorded == [("dir", str(files_dir(records[0].point.target)))]  # no scratch file: one directory
    assert list(target.iterdir()) == [] and open_scratch(open_store()) == []
