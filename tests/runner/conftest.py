"""Fixtures shared by the runner's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.runner import workdirs
from iolab.runner.workdirs import Workdirs
from iolab.store.db import open_store


@pytest.fixture
def tmpdir_env(tmp_path, monkeypatch) -> Path:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    monkeypatch.setattr(workdirs.tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    return temporary


@pytest.fixture(name="workdirs")
def run_workdirs(tmpdir_env) -> Workdirs:
    """A store with one run and its working directories under the test's own TMPDIR."""
    store = open_store()
    return Workdirs(store, store.create_run("p", "iolab run", ["/x"], "fio-3.33", {}, "identity"))


@pytest.fixture
def kept_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fio on PATH for the unmeasured jobs (fill, precondition): it keeps each job file in `jobs/`, numbered
    in the order given."""
    bin_dir, jobs = tmp_path / "bin", tmp_path / "jobs"
    bin_dir.mkdir()
    jobs.mkdir()
    fio = bin_dir / "fio"
    fio.write_text(
        f'#!/bin/sh\nfor a; do case "$a" in *.fio) n=$(ls {jobs} | wc -l); cp "$a" {jobs}/$((n + 10)).fio;; esac; done\n'
    )
    fio.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return jobs
