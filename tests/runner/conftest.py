"""Fixtures shared by the runner's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.runner import workdirs


@pytest.fixture
def tmpdir_env(tmp_path, monkeypatch) -> Path:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    monkeypatch.setattr(workdirs.tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    return temporary
