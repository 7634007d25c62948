"""Scratch files and directories: iolab writes and removes only what it created.

A scratch path gets a name nobody else uses (`iolab-scratch-<random>.dat`,
`iolab-metadata-<random>/`), so a user's own file, a look-alike directory
or a symlink planted under iolab's old fixed names is never touched. The
path is recorded in the store before it exists, then created exclusively
(`O_CREAT|O_EXCL|O_NOFOLLOW`, or `mkdir`, which never follows or reuses):
if something is already there, the run stops instead of writing into it.
Its device and inode are recorded once created, and removal checks them:
a path that is no longer the file iolab made (replaced, swapped for a
symlink) is left alone and reported. What a killed run left is removed by
the next run or by `iolab clean`, from the records alone; fio's work
directories are recorded and removed the same way (`runner.workdirs`).
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from iolab import guards, pathchain
from iolab.errors import UserError
from iolab.models import Target
from iolab.models.point import METADATA_PREFIX, SCRATCH_PREFIX
from iolab.runner.workdirs import WORKDIR, locked
from iolab.store.db import Store
from iolab.store.queries import ScratchRecord, open_scratch

DIRECTORIES = ("dir", WORKDIR)  # scratch kinds removed with all they hold


def scratch_filename(directory: Path) -> str:
    """A fresh scratch file path in `directory`: 48 random bits, so no existing file is ever its name."""
    return str(directory / f"{SCRATCH_PREFIX}{secrets.token_hex(6)}.dat")


def create_file(store: Store, run_id: int, path: str, size: int | None = None) -> None:
    """Record, then create `path` as a new file of this user; UserError when anything is there.

    `size` sets its length at once (a file a job named): fio then writes into it in place rather than
    laying it out anew, which replaces the file, so the inode recorded here stays the file's, and that
    is what vouches for a name that is not iolab's own (`_not_ours`).
    """
    scratch_id = store.record_scratch(run_id, path, "file")
    try:
        if guards.active("scratch-exclusive-create"):
            fd = pathchain.create_file(path, os.O_WRONLY, 0o600)  # in its directory, held after its chain was checked
        else:  # the mutation bench's stand-in for a create that follows links and reuses what is there
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    except UserError:
        store.scratch_removed(scratch_id)
        raise
    except OSError as exc:
        store.scratch_removed(scratch_id)  # never made: nothing to remove later
        raise UserError(_cannot_create(path, exc)) from None
    try:
        if size is not None:
            os.ftruncate(fd, size)
        info = os.fstat(fd)
    finally:
        os.close(fd)
    store.scratch_created(scratch_id, info.st_dev, info.st_ino)


guards.register(
    "scratch-exclusive-create",
    "making a scratch file where anything is already (a planted link or file): created O_EXCL|O_NOFOLLOW",
    f"{__name__}.create_file",
)


def create_dir(store: Store, run_id: int, path: Path) -> None:
    """Record, then create `path` as a new directory (mkdir neither follows nor reuses an existing path)."""
    scratch_id = store.record_scratch(run_id, str(path), "dir")
    try:
        info = pathchain.make_dir(str(path), 0o700)
    except UserError:
        store.scratch_removed(scratch_id)
        raise
    except OSError as exc:
        store.scratch_removed(scratch_id)
        raise UserError(_cannot_create(str(path), exc)) from None
    store.scratch_created(scratch_id, info.st_dev, info.st_ino)


def empty_directory(directory: Path) -> None:
    """Remove the files fio made in a directory iolab created for a run (its metadata or per-job files
    directory), never following a link out of it; the directory itself stays, recorded, for the run."""
    with os.scandir(directory) as entries:
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                os.unlink(entry.path)


def _cannot_create(path: str, exc: OSError) -> str:
    if exc.errno in (errno.EEXIST, errno.ELOOP):
        return (
            f"{path} already exists: iolab writes only files it creates itself; remove it or choose another directory"
        )
    return f"cannot create {path}: {exc.strerror}; choose a directory you can write"


@dataclass
class Cleanup:
    """What a cleanup removed, and what it left with the reason."""

    removed: list[str]
    kept: list[str]

    def kept_notes(self) -> list[str]:
        return [f"left in place, not iolab's to remove: {path}" for path in self.kept]


def remove(store: Store, records: list[ScratchRecord], dry_run: bool = False) -> Cleanup:
    """Remove the recorded paths that are still what iolab created; report the others."""
    done = Cleanup([], [])
    for record in records:
        why = _not_ours(record)
        if why == "gone":
            if not dry_run:
                store.scratch_removed(record.id)
            continue
        if why:
            done.kept.append(f"{record.path} ({why})")
            continue
        if not dry_run:
            try:
                _remove_one(record)
            except FileNotFoundError:
                pass
            except OSError as exc:
                done.kept.append(f"{record.path} ({_unremovable(record, exc)})")
                continue
            store.scratch_removed(record.id)
        done.removed.append(record.path)
    return done


def _remove_one(record: ScratchRecord) -> None:
    """Remove one recorded path `_not_ours` cleared: a directory with what it holds, except a work directory
    whose identity was never recorded, which goes only empty (rmdir: nothing in it can be lost)."""
    if record.kind == WORKDIR and record.ino is None:
        os.rmdir(record.path)
    elif record.kind in DIRECTORIES:
        shutil.rmtree(record.path)
    else:
        os.unlink(record.path)


_NEVER_IDENTIFIED = "its device and inode were never recorded, and it is not empty"


def _empty(path: str) -> bool:
    with os.scandir(path) as entries:
        return next(entries, None) is None


def _unremovable(record: ScratchRecord, exc: OSError) -> str:
    """Why a cleared path could not be removed: filled since it was judged, or the OS's reason."""
    if record.kind == WORKDIR and record.ino is None and exc.errno == errno.ENOTEMPTY:
        return _NEVER_IDENTIFIED
    return exc.strerror or "cannot be removed"


@guards.guard("clean-identity", "removing a recorded path that is no longer what iolab created", allow="")
def _not_ours(record: ScratchRecord) -> str:
    """Why the recorded path is not iolab's to remove ("gone" when nothing is there), or ""."""
    try:
        info = os.lstat(record.path)
    except FileNotFoundError:
        return "gone"
    except OSError as exc:
        return exc.strerror or "unreadable"
    directory = record.kind in DIRECTORIES
    wanted = stat.S_ISDIR if directory else stat.S_ISREG
    if not wanted(info.st_mode):
        return "no longer the " + ("directory" if directory else "file") + " iolab created"
    if info.st_uid != os.geteuid():
        return "not created by iolab"
    return _identity_problem(record, record.ino is not None and (info.st_dev, info.st_ino) == (record.dev, record.ino))


def _identity_problem(record: ScratchRecord, same: bool) -> str:
    """Why a path of iolab's kind and owner is still not the one it created (`same`: its device and inode
    are those recorded), or ""."""
    if record.kind == WORKDIR:
        # fio's work directory: only the very directory recorded (its name proves nothing), and only when
        # no iolab holds its lock (one of another PID namespace sharing this home, still running). One whose
        # identity was never recorded (its run killed as it made it) goes only if empty (`_remove_one`).
        if not same and record.ino is not None:
            return "not the directory iolab created (its device and inode differ from those recorded)"
        if locked(record.path):
            return "in use by a running iolab"
        return "" if record.ino is not None or _empty(record.path) else _NEVER_IDENTIFIED
    if not Path(record.path).name.startswith((SCRATCH_PREFIX, METADATA_PREFIX)):
        # A file a job named: no random name vouches for it, only being the very file iolab made.
        return "" if same else "not the file iolab created (replaced, or never made)"
    # A directory is removed with all it holds, so it must be the very one created. A file may have been
    # laid out again by fio (a workload's unlink=1): its random name and owner vouch for it.
    if record.kind == "dir" and record.ino is not None and not same:
        return "replaced since iolab created it"
    return ""


@guards.guard(
    "written-identity",
    "a run whose fio wrote a file other than the one iolab created (a link or another file put in its place)",
)
def written_elsewhere(store: Store, run_id: int, targets: Sequence[Target]) -> str | None:
    """What fio may have written that is not what iolab created, or None; checked after every fio run.

    Each recorded file and directory of the run is looked up again from `/` without following a link: a
    link anywhere on the way, a directory that is not the one recorded, or a file that is neither the one
    created nor one fio laid out again in the same directory (a workload's `unlink`: a regular file of
    yours with one link) means fio's open by name went somewhere else. A file gone is fio's `unlink`.
    """
    directories = {os.path.dirname(t.filename): t.identity for t in targets if t.scratch and not t.hosts}
    for record in open_scratch(store, run_id):
        if record.ino is None or record.kind == WORKDIR:
            continue  # never made, or fio's work directory (private, and removed after each fio run)
        problem = _moved(record, directories.get(os.path.dirname(record.path)))
        if problem:
            return problem
    return None


def _moved(record: ScratchRecord, checked: str | None) -> str:
    """Why one recorded path is no longer what iolab created (looked up from `/` without links), or "".

    `checked` is the identity of its directory as the target check saw it, when iolab checked one."""
    try:
        now = pathchain.identity(record.path)
        parent = pathchain.identity(os.path.dirname(record.path))
    except UserError as exc:
        return str(exc)
    except OSError as exc:
        return f"{record.path} cannot be looked up ({exc.strerror})"
    if _other_directory(checked, parent):
        return f"{os.path.dirname(record.path)} is not the directory iolab checked (then {checked})"
    if now is None or now == (record.dev, record.ino) or record.kind == "file" and _laid_out_again(record.path):
        return ""
    kind = "directory" if record.kind in DIRECTORIES else "file"
    return f"{record.path} is not the {kind} iolab created (its device and inode differ from those recorded)"


def _other_directory(checked: str | None, parent: tuple[int, int] | None) -> bool:
    """A recorded path's directory is not the one the target check saw (when it saw one)."""
    return bool(checked) and parent is not None and checked != f"file {parent[0]}:{parent[1]}"


def _laid_out_again(path: str) -> bool:
    """A file fio made anew under the name iolab created (after `unlink`): regular, yours, one link."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and info.st_nlink == 1


def leftovers(store: Store) -> list[ScratchRecord]:
    """Scratch of runs that are no longer running: a killed or crashed run's files."""
    return [r for r in open_scratch(store) if not r.run_running]
