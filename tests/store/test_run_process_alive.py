"""Whether a run's process is still alive (store.queries._alive), which decides if an unfinished run reads as
running or as interrupted: no pid, or a pid no process has, is not alive; a pid of another user's process
(kill(pid, 0) refused) is alive, its run still going."""

from __future__ import annotations

import os

import pytest

from iolab.store import queries


@pytest.mark.parametrize(("raised", "alive"), [(None, True), (ProcessLookupError, False), (PermissionError, True)])
def test_a_pid_is_alive_unless_no_process_has_it(monkeypatch, raised, alive):
    asked: list[tuple[int, int]] = []

    def kill(pid: int, signal: int) -> None:
        asked.append((pid, signal))
        if raised is not None:
            raise raised

    monkeypatch.setattr(os, "kill", kill)
    assert queries._alive(4242) is alive and asked == [(4242, 0)]
    assert queries._alive(None) is False and queries._alive(0) is False and len(asked) == 1
