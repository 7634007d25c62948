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
