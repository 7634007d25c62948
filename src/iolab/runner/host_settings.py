"""Host settings as sweep axes: written before each point, the originals put back afterwards, even after a kill.

A plan's `[host]` table (`iolab.models.host_settings`: one `HostSetting` each, in one ordered list that
says where each file is, how to read it, what the kernel offers and what writing it moves) names block-queue files of the device a point's
target lives on (a block device itself, a partition's disk, the device under a file's or directory's file
system, as the probe resolves it) and the CPU frequency governor of every cpufreq policy.

Before the run exists, every value is checked against what the kernel offers (the scheduler list of the
device, the governors of each policy) and the files must be writable; then each combination the points
use is written and read back, and the originals are written back. A value the kernel refuses, or keeps
in another form (read_ahead_kb is rounded to pages), is a UserError that leaves nothing changed.

Each file's original value is recorded in the store before the first write, under this process, and the
record is closed once the original is back. During the run, before each point, the files the point sets
get its values and every other file the plan sets gets its original. A scheduler switch resets
nr_requests (and bfq turns writeback throttling off), so with a scheduler change those files are recorded
too and put back at the end, but left as the new scheduler sets them while points run: a point measures
the scheduler as `echo mq-deadline > scheduler` leaves it. A run killed outright leaves its records open;
the next `iolab run` or `iolab clean` writes the originals back, only on the same boot and the same device
(its diskseq, else its major:minor), never on another device that took the name since.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from iolab.errors import RunFailed, UserError
from iolab.models import Plan, Point, Target
from iolab.models.host_settings import CPUFREQ, HOST_SETTINGS, HostSetting, host_setting, names, order
from iolab.plan.effects import check_settings
from iolab.probe.block import device_for_major_minor
from iolab.probe.fs import mount_of
from iolab.probe.root import Root
from iolab.runner.request import RunRequest
from iolab.store.db import Store
from iolab.store.host_settings import SettingRecord, attach_run, mark_restored, open_records, record_original

BOOT_ID = "/proc/sys/kernel/random/boot_id"


@dataclass(frozen=True)
class SettingFile:
    """The sysfs file one setting lives in, for one device or one CPU frequency policy."""

    setting: str
    subject: str  # a kernel device name ("loop3") or a cpufreq policy ("policy0")
    path: str


def queue_file(device: str, setting: str) -> SettingFile:
    return SettingFile(setting, device, host_setting(setting).path(device))


def policy_files(root: Root, setting: HostSetting) -> list[SettingFile]:
    """The setting's file in every cpufreq policy (each policy covers one or more CPUs)."""
    policies = [p for p in root.listdir(CPUFREQ) if p.startswith("policy")]
    return [SettingFile(setting.name, p, setting.path(p)) for p in policies]


def setting_at(path: str) -> HostSetting | None:
    """The setting a file holds, from its path alone (a killed run's record keeps only the path)."""
    parts = path.split("/")
    for setting in HOST_SETTINGS:
        subject = parts[-2] if setting.per_cpu_policy else parts[3] if len(parts) > 3 else ""
        if setting.path(subject) == path:
            return setting
    return None


def read_setting(root: Root, path: str) -> str | None:
    """The value in force (`HostSetting.current`: a scheduler file lists every choice, the active one bracketed)."""
    text = root.read_value(path)
    setting = setting_at(path)
    return text if setting is None else setting.current(text)


def offered(root: Root, file: SettingFile) -> list[str] | None:
    """The values the kernel offers for a choice (schedulers of the device, governors of the policy); None
    for a number."""
    setting = host_setting(file.setting)
    listing = setting.offered_path(file.subject)
    return None if listing is None else setting.offered(root.read_value(listing))


def write_setting(root: Root, path: str, value: str) -> None:
    """One write of the value, as `echo value > path` does; the kernel's refusal is an OSError.

    Never O_CREAT: sysfs has no files to create, and a missing file is an error, not a new file.
    """
    fd = os.open(root.path(path), os.O_WRONLY | os.O_TRUNC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def identity(root: Root, path: str) -> str | None:
    """Which boot, and which device, a file's value belongs to; None when its device is gone."""
    boot = root.read_value(BOOT_ID) or "?"
    if not path.startswith("/sys/block/"):
        return f"boot {boot}"
    device = f"/sys/block/{path.split('/')[3]}"
    if not root.exists(device):
        return None
    seq = root.read_value(f"{device}/diskseq")  # a new number every time a device is attached (Linux 5.15+)
    return f"boot {boot} diskseq {seq}" if seq else f"boot {boot} dev {root.read_value(f'{device}/dev')}"


def target_devices(target: Target, root: Root) -> list[str]:
    """The whole block device a point on `target` does its I/O through, as the probe resolves a target:
    a device node itself (a partition: its disk), else the device under the file system holding it."""
    path = target.filename if target.kind in ("block", "file") else target.path
    info = os.stat(path)
    if stat.S_ISBLK(info.st_mode):
        number = f"{os.major(info.st_rdev)}:{os.minor(info.st_rdev)}"
    else:
        mount = mount_of(path, root)
        number = mount.major_minor if mount else f"{os.major(info.st_dev)}:{os.minor(info.st_dev)}"
    name = device_for_major_minor(root, number)
    return [name] if name else []


def check_request(plan: Plan, request: RunRequest) -> None:
    """Host settings need --allow-host-changes, and this host's own targets."""
    if not any(w.host_settings for w in plan.workloads):
        return
    check_settings(plan, request.allow_host_changes)
    if request.hosts:
        raise UserError("host settings ([host]) change this host only: a multi-host run cannot use them")
    if request.devices:
        raise UserError("host settings ([host]) do not go with --devices: give the devices as targets instead")


def _state(point: Point) -> tuple:
    """What decides the files a point writes and their values: its target and its settings (not its repeat,
    so an adaptive repeat added while running finds the settings its first runs were checked with)."""
    return point.target, tuple(sorted(point.host_settings.items()))


class _Refused(Exception):
    """The kernel did not take a value (while trying the plan's values, before the run)."""


class HostSettings:
    """One run's host settings: checked and tried before it starts, set before each point, put back at its end."""

    def __init__(self, store: Store | None, root: Root | None = None) -> None:
        self.store = store  # None: `check` only (a dry run records and writes nothing)
        self.root = root or Root()
        self.files: dict[str, SettingFile] = {}  # every file some point sets, in the order they are written
        self.wanted: dict[tuple, dict[str, str]] = {}  # (target, settings) -> {path: value}
        self.records: dict[str, tuple[int, str]] = {}  # path -> (record id, original), in the order to restore

    def check(self, points: Sequence[Point], devices: Callable[[Target], list[str]] | None = None) -> list[str]:
        """Resolve and check every point's settings against what the kernel offers, writing nothing;
        one line per file changed ("/sys/block/loop3/queue/scheduler: none, mq-deadline (now none)")."""
        self._resolve(points, devices or (lambda target: target_devices(target, self.root)))
        values: dict[str, dict[str, None]] = {path: {} for path in self.files}  # each file's values, in order
        for own in self.wanted.values():
            for path, value in own.items():
                values[path][value] = None
        if self.store is not None:  # another run's changes first: the files show its values, not the host's
            self._check_free(self.store, self._recorded_paths())
        for path, file in self.files.items():
            self._check_file(file, list(values[path]))
        return [
            f"{path}: {', '.join(values[path])} (now {read_setting(self.root, path)}; put back afterwards)"
            for path in self.files
        ]

    def _resolve(self, points: Sequence[Point], found: Callable[[Target], list[str]]) -> None:
        """Each point's files and values (`wanted`), the devices of a target found once; `files` in the order
        they are written."""
        cache: dict[Target, list[str]] = {}
        for point in (p for p in points if p.host_settings):
            if point.target not in cache:
                cache[point.target] = found(point.target)
            self.wanted[_state(point)] = self._point_files(point, cache[point.target])
        ordered = sorted(self.files.values(), key=lambda f: (order(f.setting), f.subject))
        self.files = {f.path: f for f in ordered}

    def _point_files(self, point: Point, devices: list[str]) -> dict[str, str]:
        own: dict[str, str] = {}
        for setting in names():
            if setting not in point.host_settings:
                continue
            if host_setting(setting).per_cpu_policy:
                files = policy_files(self.root, host_setting(setting))
                if not files:
                    raise UserError(
                        f"this host has no CPU frequency policies ({CPUFREQ}/policy*; a VM often has none): "
                        f"the {setting} cannot be set here"
                    )
            elif not devices:
                raise UserError(
                    f"{point.target.path}: no block device under it ({point.target.fs_type or 'unknown file system'}), "
                    f"so it has no {setting}: give a target on a block device"
                )
            else:
                files = [queue_file(device, setting) for device in devices]
            for file in files:
                self.files[file.path] = file
                own[file.path] = point.host_settings[setting]
        return own

    def _check_file(self, file: SettingFile, values: list[str]) -> None:
        if read_setting(self.root, file.path) is None:
            raise UserError(f"{file.subject} has no {file.setting} ({file.path} is missing): this kernel cannot set it")
        choices = offered(self.root, file)
        refused = [v for v in values if choices is not None and v not in choices]
        if refused:
            raise UserError(
                f"{file.subject} offers the {file.setting} values {', '.join(choices or [])}; not {refused[0]!r} "
                "(nothing was changed)"
            )
        if not os.access(self.root.path(file.path), os.W_OK):
            raise UserError(f"cannot write {file.path}: changing host settings needs root (and --allow-host-changes)")

    @staticmethod
    def _check_free(store: Store, paths: Sequence[str]) -> None:
        """No other iolab process holds a changed value of these files (nor did a killed run leave one)."""
        for record in open_records(store):
            if record.path in paths:
                who = f"run {record.run_id}" if record.run_id else "another iolab process"
                raise UserError(
                    f"{record.path} is being changed by {who}: wait for it to end"
                    if record.owner_running
                    else f"{record.path} still holds a value a killed run set ({record.original!r} could not be "
                    "written back): run `iolab clean` as root"
                )

    def prepare(self, points: Sequence[Point], devices: Callable[[Target], list[str]] | None = None) -> list[str]:
        """`check`, then record every original and try every combination the points use, then put the
        originals back; UserError, with nothing changed, when the kernel refuses a value."""
        lines = self.check(points, devices)
        if not self.files:
            return lines
        assert self.store is not None, "prepare records originals: it needs the store"
        self._record_originals(self.store)
        try:
            for own in {tuple(own.items()): own for own in self.wanted.values()}.values():
                self._set(own)
            self._set({})  # the originals again until the first point
        except _Refused as exc:
            problems = self.restore()
            raise UserError(f"{exc}; nothing was changed" + (f" ({problems[0]})" if problems else "")) from None
        except BaseException:
            self.restore()
            raise
        return lines

    def _record_originals(self, store: Store) -> None:
        """Each file's value before the run, recorded in the store before anything is written."""
        for path in self._recorded_paths():
            original = read_setting(self.root, path)
            identified = identity(self.root, path)
            if original is not None and identified is not None:
                self.records[path] = (record_original(store, path, identified, original), original)

    def _recorded_paths(self) -> list[str]:
        """The files to record: those the points set, and what writing them moves on the same device (a
        scheduler switch: nr_requests, wbt_lat_usec), in the order they are put back (schedulers first)."""
        files = dict(self.files)
        for file in self.files.values():
            for moved in host_setting(file.setting).moves:
                files.setdefault(queue_file(file.subject, moved).path, queue_file(file.subject, moved))
        return sorted(files, key=lambda path: (order(files[path].setting), path))

    def attach(self, run_id: int) -> None:
        if self.store is not None:
            attach_run(self.store, [record_id for record_id, _ in self.records.values()], run_id)

    def apply(self, point: Point) -> list[str]:
        """Set the point's values (every other file the plan sets back to its original) before it runs;
        the lines say what the point ran under. RunFailed when the kernel refuses a value it took before."""
        if not self.files:
            return []
        assert _state(point) in self.wanted or not point.host_settings, f"{point.name}: settings never checked"
        own = self.wanted.get(_state(point), {})
        try:
            self._set(own)
        except _Refused as exc:
            raise RunFailed(f"{point.name}: {exc}") from None
        return [f"{path} = {value}" for path, value in own.items()]

    def _set(self, own: dict[str, str]) -> None:
        """The files the plan sets, in order (schedulers first): `own`'s value, else the original; each write
        read back, so a value the kernel keeps in another form is refused like one it rejects."""
        for path, file in self.files.items():
            value = own.get(path, self.records[path][1])
            if read_setting(self.root, path) == value:
                continue
            try:
                write_setting(self.root, path, value)
            except OSError as exc:
                raise _Refused(
                    f"the kernel refused {file.setting} = {value} on {file.subject}: {exc.strerror}"
                ) from None
            now = read_setting(self.root, path)
            if now != value:
                raise _Refused(f"{file.subject} took {file.setting} = {value} as {now}")

    def restore(self) -> list[str]:
        """Write every original back (schedulers first), then close the records; a note for each file that
        could not be written (its record stays open: the next `iolab run` or `iolab clean` tries again).
        The files come first: a store that cannot be written (a full disk) must not keep a value changed."""
        notes: list[str] = []
        done: list[str] = []
        for path, (_, original) in self.records.items():
            note, retry = put_back(self.root, path, original)
            notes += [note] if note else []
            done += [] if retry else [path]
        for path in done:
            if self.store is not None:
                mark_restored(self.store, self.records[path][0])
            del self.records[path]
        return notes


def put_back(root: Root, path: str, original: str) -> tuple[str, bool]:
    """Write `original` to `path` unless it holds it already: (what went wrong or "", whether to try again
    later). A file that is gone, or a kernel that keeps another value, is said once and not retried."""
    try:
        if read_setting(root, path) != original:
            write_setting(root, path, original)
    except FileNotFoundError:
        return f"{path} is gone: nothing to put back", False
    except OSError as exc:
        return f"could not put back {path} = {original}: {exc.strerror}", True
    now = read_setting(root, path)
    return ("", False) if now == original else (f"{path} reads {now} after writing back {original}", False)


def restore_leftovers(store: Store, root: Root | None = None, dry_run: bool = False) -> list[str]:
    """Put back what killed runs changed (their process is gone), oldest first; notes say what was done."""
    root = root or Root()
    done: list[str] = []
    notes: list[str] = []
    for record in open_records(store):
        if record.owner_running:
            continue
        put, note, closed = _leftover(root, record, dry_run)
        done += [put] if put else []
        notes += [note] if note else []
        if closed and not dry_run:
            mark_restored(store, record.id)
    verb = "would put back" if dry_run else "put back"
    return ([f"{verb} {len(done)} host setting(s) a killed run changed: {', '.join(done)}"] if done else []) + notes


def _leftover(root: Root, record: SettingRecord, dry_run: bool) -> tuple[str, str, bool]:
    """One killed run's change: (the value put back, or "", a note, or "", whether its record is closed).
    Only on the same boot and device: a device that took the name since is another one's."""
    now = identity(root, record.path)
    if now != record.identity:
        why = "the device is gone" if now is None else "the host restarted or the device is another one"
        return "", f"left {record.path} alone ({why}): a killed run's value is no longer there", True
    if read_setting(root, record.path) == record.original:  # never changed, or put back already
        return "", "", True
    if dry_run:
        return f"{record.path} = {record.original}", "", False
    note, retry = put_back(root, record.path, record.original)
    if note:
        return "", note + ("; run `iolab clean` as root to try again" if retry else ""), not retry
    return f"{record.path} = {record.original}", "", True
