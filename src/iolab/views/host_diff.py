"""What `iolab diff-env` shows: every difference between the hosts of two runs, from their snapshots."""

from __future__ import annotations

from dataclasses import dataclass

from iolab.errors import UserError
from iolab.models.snapshot import Change
from iolab.store.db import Store


@dataclass(frozen=True)
class HostDiff:
    earlier: int
    later: int
    changes: list[Change]

    def nothing(self) -> str:
        return f"No differences between the hosts of run {self.earlier} and run {self.later}."


def load_host_diff(store: Store, earlier: int, later: int) -> HostDiff:
    """The differences; UserError naming the run that has no snapshot (imported, or made before snapshots)."""
    from iolab.store.host_changes import host_changes
    from iolab.store.queries import run_snapshot

    changes = host_changes(store, earlier, later, every=True)
    if changes is None:
        missing = (
            earlier
            if run_snapshot(store, earlier, "before") is None and run_snapshot(store, earlier, "after") is None
            else later
        )
        raise UserError(f"run {missing} has no host snapshot (imported, or made before iolab kept snapshots)")
    return HostDiff(earlier, later, changes)
