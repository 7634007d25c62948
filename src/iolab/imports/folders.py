"""The folders of an import's fio logs, held open by the descriptor the walk reached them by.

An output is read in the walk, from its folder's descriptor (`discover`); its logs are read later, when the
output is parsed (in a second process, perhaps). Read then by path, every folder on the way was looked up
again, and only the last component was opened without following a link: a user who owns a folder on the way
could swap a directory in it for a link after the walk (or name a client host `../../root/x` in an output of
theirs), and root's import read, and stored as that user's run, a root-only log. So each folder holding logs
is kept open from the walk (a duplicate of `os.fwalk`'s descriptor: 35 for fio-plot's 106,685 logs) with the
names of its logs, and every log is opened from it without following a link, never by path. A client's
folder (`clients/HOST`) the walk did not see is opened from its output's held folder one plain name at a time,
none followed. A named output's folder is opened as named (links followed, as for the output itself), once.
"""

from __future__ import annotations

import errno
import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from iolab import guards
from iolab.fio.logs import LOG_NAME

GUARD = guards.register(
    "import-held-folders",
    "a fio log `iolab import` reads by its path after the walk (a folder on the way swapped for a link, a client "
    "host `../..`): a root-only log stored as another user's",
    f"{__name__}.Folders.held",
)
_DIRECTORY = os.O_DIRECTORY | os.O_CLOEXEC  # with os.O_RDONLY at each open, where tests/test_file_writes.py reads it


@dataclass
class LogFolder:
    """A folder of logs held open (`fd`) and its logs' names, as the walk listed them."""

    fd: int
    names: list[str] = field(default_factory=list)
    _by_prefix: dict[str, list[str]] | None = None

    def by_prefix(self) -> dict[str, list[str]]:
        """The logs' names by the prefix fio wrote them under (`fio.logs.LOG_NAME`), each prefix's in name order:
        worked out once, when the first output beside them is parsed."""
        if self._by_prefix is None:
            self._by_prefix = {}
            for name in sorted(self.names):
                match = LOG_NAME.search(name)
                if match:
                    self._by_prefix.setdefault(name[: match.start()], []).append(name)
        return self._by_prefix


class Folders:
    """Every folder of logs an import holds, by its path as the walk named it (`str(Path(folder))`). Close it
    when the import is done; a forked parsing process inherits the descriptors and reads through them too."""

    def __init__(self) -> None:
        self._held: dict[str, LogFolder] = {}
        self.unheld: list[str] = []  # folders whose logs could not be held open (too many open files)
        self._by_path: list[int] = []  # opened by path, with the guard switched off: closed with the rest

    def add(self, folder: str, fd: int, name: str) -> None:
        """A log `name` the walk found in `folder`, which it holds as `fd` (duplicated the first time)."""
        held = self._held.get(folder)
        if held is None:
            copy = _dup(fd)
            if copy is None:
                self.unheld.append(folder)
                return
            held = self._held[folder] = LogFolder(copy)
        held.names.append(name)

    def add_named(self, folder: Path) -> None:
        """The folder of an output named on the command line, opened as named (links followed) and listed once."""
        key = str(folder)
        if key in self._held:
            return
        try:
            fd = os.open(folder, os.O_RDONLY | _DIRECTORY)
        except OSError:
            return  # its outputs' logs are then not read: the output itself still imports
        self._held[key] = LogFolder(fd, os.listdir(fd))

    def held(self, folder: Path, *below: str) -> LogFolder | None:
        """The held folder `folder/below...` (`below`: plain names, a client's `clients`, HOST), or None when it
        has no logs: one the walk did not hold is opened from `folder`'s descriptor, no name followed."""
        if not guards.active(GUARD.name):  # switched off: opened by its path, links on the way followed
            return self._opened_by_path(folder.joinpath(*below))
        if any(not part or part in (".", "..") or "/" in part or "\0" in part for part in below):
            return None  # a host name of an output's own making is no folder beside it
        key = str(folder.joinpath(*below))
        if key in self._held or not below:
            return self._held.get(key)
        base = self._held.get(str(folder))
        fd = None if base is None else _open_below(base.fd, below)
        if fd is None:
            return None
        self._held[key] = LogFolder(fd, os.listdir(fd))
        return self._held[key]

    def _opened_by_path(self, folder: Path) -> LogFolder | None:
        """The folder opened by its path now, every link on the way followed: what the guard stops."""
        try:
            fd = os.open(folder, os.O_RDONLY | _DIRECTORY)
        except OSError:
            return None
        self._by_path.append(fd)
        return LogFolder(fd, os.listdir(fd))

    def close(self) -> None:
        for fd in [held.fd for held in self._held.values()] + self._by_path:
            os.close(fd)
        self._held.clear()
        self._by_path.clear()


@contextmanager
def beside(output: Path, folders: Folders | None) -> Iterator[Folders]:
    """`folders`, or when there are none (an output parsed outside an import's walk) its own folder's, opened
    as named and closed after."""
    if folders is not None:
        yield folders
        return
    own = Folders()
    own.add_named(output.parent)
    try:
        yield own
    finally:
        own.close()


def _open_below(fd: int, below: tuple[str, ...]) -> int | None:
    """The folder `below` (plain names) under the held `fd`, each opened from the one above without following a
    link; None when one is missing, a link or not a folder."""
    here = fd
    try:
        for part in below:
            child = os.open(part, os.O_RDONLY | _DIRECTORY | os.O_NOFOLLOW, dir_fd=here)
            if here != fd:
                os.close(here)
            here = child
    except OSError:
        if here != fd:
            os.close(here)
        return None
    return here


def _dup(fd: int) -> int | None:
    """A duplicate of `fd` (close-on-exec, as Python makes it); at the soft limit on open files, that limit is
    raised to the hard one (once: then the soft one is the hard one); None when even that is reached."""
    try:
        return os.dup(fd)
    except OSError as exc:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if exc.errno != errno.EMFILE or soft == hard:
            return None
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return _dup(fd)
