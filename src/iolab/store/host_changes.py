"""What changed on the host between two stored runs, read from their snapshots.

The earlier run's state at its end ("after", or "before" when it has no
"after") against the later run's state at its start: whatever happened in
between, a reboot with new kernel parameters or a firmware update, shows.
"""

from __future__ import annotations

from iolab.models import Change, Snapshot
from iolab.models.snapshot_diff import diff_snapshots, scoped
from iolab.store.db import Store
from iolab.store.queries import run_snapshot


def host_changes(store: Store, earlier: int, later: int, every: bool = False) -> list[Change] | None:
    """Differences from run `earlier` to run `later` that concern their targets (`models.snapshot_diff.scoped`), or
    `every` difference (`iolab diff-env`); None when either has no snapshot."""
    before = run_snapshot(store, earlier, "after") or run_snapshot(store, earlier, "before")
    after = run_snapshot(store, later, "before")
    if before is None or after is None:
        return None
    a, b = Snapshot.from_dict(before), Snapshot.from_dict(after)
    return diff_snapshots(a, b) if every else scoped(diff_snapshots(a, b), a, b)
