"""Shared fixtures: an isolated IOLAB_HOME per test."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def iolab_home(tmp_path, monkeypatch):
    """Every test gets its own database directory, never the user's."""
    home = tmp_path / "iolab-home"
    monkeypatch.setenv("IOLAB_HOME", str(home))
    return home
