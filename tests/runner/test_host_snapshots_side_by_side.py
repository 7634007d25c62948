"""A multi-host run takes each host's snapshot side by side (runner.executors.ClusterExecutor.save_snapshots):
SSH round trips add up, one host at a time would cost a run with 16 hosts a minute per snapshot. Each is
stored as `<phase>@<host>`; with no host left, nothing is taken and nothing fails."""

from __future__ import annotations

import threading
from types import SimpleNamespace

from iolab.cluster import snapshots
from iolab.runner.executors import ClusterExecutor


class Store:
    def __init__(self) -> None:
        self.saved: dict[str, dict] = {}

    def save_snapshot(self, run_id: int, phase: str, data: dict) -> None:
        self.saved[phase] = data


def test_every_host_s_snapshot_is_taken_at_once_and_stored_by_phase_and_host(monkeypatch):
    hosts = [SimpleNamespace(name=f"h{i}") for i in range(3)]
    together = threading.Barrier(len(hosts), timeout=5)  # broken unless all three are being taken at once

    def snapshot(state):  # type: ignore[no-untyped-def]
        together.wait()
        return {"host": state.name}

    monkeypatch.setattr(snapshots, "host_snapshot", snapshot)
    store = Store()
    ClusterExecutor(SimpleNamespace(active=hosts)).save_snapshots(store, 1, "before")  # type: ignore[arg-type]
    assert store.saved == {f"before@h{i}": {"host": f"h{i}"} for i in range(3)}


def test_no_host_left_takes_no_snapshot(monkeypatch):
    monkeypatch.setattr(snapshots, "host_snapshot", lambda state: {})
    store = Store()
    ClusterExecutor(SimpleNamespace(active=[])).save_snapshots(store, 1, "after")  # type: ignore[arg-type]
    assert store.saved == {}
