"""Every point of some runs with what a spreadsheet needs beside it: when, tagged how, measured on what.

Months of scheduled runs are read back in pandas or a spreadsheet, all at
once, not a page at a time, so each exported point must carry what a run's
page shows around it: the run's start, its tags and notes, the host, the
target as the host snapshot saw it (device, model, firmware, scheduler,
writeback throttling, file system, mount options, fullness) and the host's
kernel, OS and CPU. Those come from the snapshot taken before the run; a run
without one (imported, or older than snapshots) has them empty.

The snapshot names a directory target by its real path, the point by the
path as the user typed it (`.`, `data/`): the two are matched as the runner
probed them (see `_match`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from iolab.models import PointRecord, Run
from iolab.models.snapshot import Snapshot, TargetInfo
from iolab.models.workload import workload_identity
from iolab.store.db import Store
from iolab.store.queries import get_run, run_points, run_snapshot
from iolab.store.tags import notes_of, tags_of


@dataclass(frozen=True)
class HostFacts:
    """The host a run ran on, as its snapshot recorded it."""

    hostname: str | None = None
    os_name: str | None = None
    kernel: str | None = None
    cpu_model: str | None = None
    cpus_online: int | None = None
    clocksource: str | None = None


@dataclass(frozen=True)
class TargetFacts:
    """A target as the snapshot saw it: its block device and file system (None where it has none)."""

    device: str | None = None
    model: str | None = None
    firmware: str | None = None
    scheduler: str | None = None
    wbt_lat_usec: int | None = None
    fs_type: str | None = None
    mount_point: str | None = None
    mount_options: tuple[str, ...] = ()
    fs_used_percent: float | None = None


@dataclass
class ExportedRun:
    """One run with its points and everything an exported row carries beside the numbers."""

    run: Run
    records: list[PointRecord]
    tags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    host: HostFacts | None = None  # None: the run has no snapshot
    targets: dict[str, TargetFacts] = field(default_factory=dict)  # by the path as the points name it

    def target(self, path: str) -> TargetFacts:
        return self.targets.get(path, TargetFacts())

    def workloads(self) -> dict[int, str]:
        """Point id -> workload identity: equal across runs of the same workload, the key to pivot a series on."""
        return {record.id: workload_identity(record.point) for record in self.records}


def load_export(store: Store, run_ids: list[int]) -> list[ExportedRun]:
    """The runs in the order given, each with its points, tags, notes and environment."""
    tags = tags_of(store, run_ids)
    out = []
    for run_id in run_ids:
        records = run_points(store, run_id)
        host, targets = environment(run_snapshot(store, run_id, "before"), _probed_paths(records))
        out.append(ExportedRun(get_run(store, run_id), records, tags[run_id], notes_of(store, run_id), host, targets))
    return out


def run_targets(store: Store, run_id: int) -> dict[str, TargetFacts]:
    """Each target of a run (by the path as its points name it) as the snapshot before the run saw it."""
    return environment(run_snapshot(store, run_id, "before"), _probed_paths(run_points(store, run_id)))[1]


def _probed_paths(records: list[PointRecord]) -> list[str]:
    """The paths the runner probed for the run, in its order: each target's path once, sorted, arrays left out."""
    return sorted({r.point.target.path for r in records if r.point.target.kind != "group"})


def environment(snapshot: dict | None, paths: list[str]) -> tuple[HostFacts | None, dict[str, TargetFacts]]:
    """The host's facts and each of `paths`' target facts from a stored snapshot (None, {} without one)."""
    if not snapshot:
        return None, {}
    snap = Snapshot.from_dict(snapshot)
    host = HostFacts(snap.hostname, snap.os_name, snap.kernel, snap.cpu_model, snap.cpus_online, snap.clocksource)
    return host, {path: _target_facts(snap, info) for path, info in _match(snap.targets, paths).items()}


def _match(infos: list[TargetInfo], paths: list[str]) -> dict[str, TargetInfo]:
    """Each path's TargetInfo: the one of the same path, else by position among the rest.

    The runner probes its targets sorted by the path as named and the snapshot keeps that order, but a
    directory's info holds its real path. Left unmatched when the counts differ: no guessing.
    """
    matched = {info.path: info for info in infos if info.path in paths}
    rest_paths = [p for p in paths if p not in matched]
    rest_infos = [info for info in infos if info.path not in matched]
    if len(rest_paths) == len(rest_infos):
        matched.update(zip(rest_paths, rest_infos, strict=True))
    return matched


def _target_facts(snap: Snapshot, info: TargetInfo) -> TargetFacts:
    device = snap.device(info.device) if info.device else None
    mount = next((fs for fs in snap.filesystems if fs.mount_point == info.mount_point), None)
    return TargetFacts(
        device=info.device,
        model=device.model if device else None,
        firmware=device.firmware if device else None,
        scheduler=device.scheduler if device else None,
        wbt_lat_usec=device.wbt_lat_usec if device else None,
        fs_type=info.fs_type,
        mount_point=info.mount_point,
        mount_options=tuple(dict.fromkeys(mount.options)) if mount else (),  # mount and super options repeat some
        fs_used_percent=mount.used_percent if mount else None,
    )
