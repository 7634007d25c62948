"""The metadata phases as the installed fio runs them: what iolab's job options make fio do to files.

These are the facts the metadata preset stands on (fio 3.33, engines/fileoperations.c): with
create_on_open=1 fio lays no file out before timing (filestat and filedelete would otherwise write
`filesize` bytes into every file first), a time-based stat goes round the same files, and each
thread's files are named by the shared format in order.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from iolab.fio.jobfile import JobSection, render_jobfile
from iolab.plan.presets import metadata_workload
from iolab.runner.metadata import files_made

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")


def _run(workload_options: dict[str, str], directory: Path, tmp_path: Path) -> dict:
    jobfile = tmp_path / "job.fio"
    jobfile.write_text(render_jobfile([JobSection("iolab", {**workload_options, "directory": str(directory)})]))
    done = subprocess.run(
        ["fio", "--output-format=json", str(jobfile)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    jobs = json.loads(done.stdout)["jobs"]
    assert all(job["error"] == 0 for job in jobs)
    return {"ops": sum(job["read"]["total_ios"] for job in jobs), "runtime_ms": max(j["job_runtime"] for j in jobs)}


def test_create_stat_remove_touch_only_the_files_made_and_write_no_data(tmp_path):
    directory = tmp_path / "md"
    directory.mkdir()
    created = _run(metadata_workload("create", 2, 150, 10).options, directory, tmp_path)
    assert created["ops"] == 300 and files_made(directory, 2) == 150
    assert all(p.stat().st_size == 0 for p in directory.iterdir())

    stat = _run(metadata_workload("stat", 2, 150, 1).options, directory, tmp_path)
    assert stat["ops"] > 300  # time-based: round after round over the same files for about a second
    assert 900 <= stat["runtime_ms"] <= 3000  # about a second (a loaded host overruns fio's runtime by up to ~1 s)
    assert sorted(p.stat().st_size for p in directory.iterdir()) == [0] * 300  # nothing laid out, nothing added

    removed = _run(metadata_workload("remove", 2, 150, 10).options, directory, tmp_path)
    assert removed["ops"] == 300 and list(directory.iterdir()) == []


def test_fio_runtime_ends_a_create_before_its_file_count(tmp_path):
    directory = tmp_path / "md"
    directory.mkdir()
    created = _run(metadata_workload("create", 1, 5_000_000 // 100, 0.2).options, directory, tmp_path)
    # 0.2 s, not the hours 5,000,000 files would take (a loaded host overruns fio's runtime by up to ~1 s)
    assert created["runtime_ms"] < 3000 and created["ops"] < 50_000
    assert files_made(directory, 1) == created["ops"] == len(list(directory.iterdir()))
