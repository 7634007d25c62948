"""A tree the probe reads, held by a descriptor of its top: no name inside it is ever looked up again from a path.

`iolab doctor --root DIR`, `iolab probe --root DIR` and a bundle's unpacked copy read a captured tree, often as
root, and the tree may lie where another user can write (their home, a copy they made). The tape used to decide
what each name is (a link? a directory?) and then read it by its path from the tree's top, so the operating
system looked up every directory on the way a second time: a user who could write in the tree swapped `proc`
for a link to a root-only directory between the two, and root's snapshot printed the root-only file as the
captured host's /proc/cmdline, and the names in a root-only directory as its IOMMU units.

Two rules, each a registered guard, close that class:

- `input-owner-chain` (`pathchain.read_refusal`): a captured tree is read only when no other user can change
  it, as a directory iolab writes in must be: every directory from `/` down to its top, and every directory
  inside it that is read, owned by root or the running user and writable by no one else (unless sticky). Otherwise it is refused in two lines (exit 2), with the `chown`,
  `chmod` or "run iolab as that user" that fixes it: reading a tree needs no privilege.
- `tree-no-follow`: every look inside the tree walks from the held descriptor of its top, one component at a
  time, each directory opened `O_NOFOLLOW`; a file is read only when what was opened (`O_NOFOLLOW|O_NONBLOCK`)
  is a regular file, and at most `MAX_BYTES` of it. A link met where the tape found a directory is a change
  made while the tree was read: refused, never followed.

Why both: the owner rule alone leaves every read a check-then-use by name, safe only while nothing of root's
own changes the tree (an rsync refreshing it, a second capture); the descriptor walk alone leaves another user
free to hard-link a root-only file into a tree they own where `fs.protected_hardlinks` is 0, to mount a FUSE
file system in it that answers slowly or differently each time, or to change what root's report says.
"""

from __future__ import annotations

import errno
import os
import stat
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from iolab import guards, pathchain
from iolab.errors import UserError

# More than any file a probe reads (/boot/config-* is about 300 KiB, a bundle's tape a few hundred KiB).
MAX_BYTES = 16 << 20
_CHUNK = 1 << 16  # /proc/sys refuses one read() of a large count (ENOMEM): read in pieces
_STEP = os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC

guards.register(
    "tree-no-follow",
    "a link in a captured tree followed by the operating system after the tape decided it was none (every look "
    "walks from the tree's descriptor, O_NOFOLLOW)",
    f"{__name__}.Tree._walk",
)


class Tree:
    """The directory `top`, held open; `captured` trees are held to the owner rule, the live `/` is the kernel's
    (its /proc/PID directories belong to every user)."""

    def __init__(self, top: str, shown_as: str, captured: bool) -> None:
        self.shown_as = shown_as
        self.captured = captured
        if not os.path.isdir(top):  # for the message only: the walk below decides
            raise UserError(f"{shown_as}: not a directory; point it at a captured tree (with sys/ and proc/)")
        if captured:
            with pathchain.walk(top, rule=pathchain.read_refusal) as (held, chain):
                self._top = os.dup(held)
                self.where = chain.resolved  # the top on this machine, as a refusal names a directory inside it
        else:
            self._top = os.open(top, os.O_RDONLY | _STEP)
            self.where = os.path.realpath(top)
        weakref.finalize(self, os.close, self._top)

    def readlink(self, name: str) -> str | None:
        """The target of the link `name`, or None when it is none (or is not there)."""
        try:
            with self._parent(name) as (fd, leaf):
                return os.readlink(leaf, dir_fd=fd)
        except OSError:
            return None

    def lstat(self, name: str) -> os.stat_result | None:
        """What `name` is, the link itself if it is one; None when it is not there."""
        try:
            with self._parent(name) as (fd, leaf):
                return os.stat(leaf, dir_fd=fd, follow_symlinks=False)
        except OSError:
            return None

    def read(self, name: str) -> bytes | None:
        """The bytes of `name` if what is opened there is a regular file of at most MAX_BYTES, else None (a link,
        a FIFO, a device, a directory are never read, nor waited on)."""
        try:
            with self._parent(name) as (fd, leaf):
                opened = os.open(leaf, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
        except OSError:
            return None
        try:
            return _bounded(opened) if stat.S_ISREG(os.fstat(opened).st_mode) else None
        except OSError:
            return None
        finally:
            os.close(opened)

    def listdir(self, name: str) -> list[str] | None:
        """The sorted entries of the directory `name` (held to the owner rule too), or None when it cannot be listed."""
        try:
            with self._parent(name) as (fd, leaf):
                opened = os.open(leaf, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
        except OSError:
            return None
        try:
            self._hold(name, opened)
            return sorted(os.listdir(opened))
        except OSError:
            return None
        finally:
            os.close(opened)

    @contextmanager
    def _parent(self, name: str) -> Iterator[tuple[int, str]]:
        """A descriptor of the directory holding `name`, walked from the top, and `name`'s last component ("."
        for the top itself). OSError as the walk met it; UserError when a directory became a link meanwhile."""
        parts = [p for p in name.split("/") if p]
        leaf = parts.pop() if parts else "."
        fd = self._walk(parts)
        try:
            yield fd, leaf
        finally:
            if fd != self._top:
                os.close(fd)

    def _walk(self, parts: list[str]) -> int:
        """The directory `parts` below the top, each component opened from the one above it without following a
        link (`tree-no-follow`) and held to the owner rule before anything is looked up in it."""
        flags = _STEP | (os.O_NOFOLLOW if guards.active("tree-no-follow") else 0)
        fd, here = self._top, ""
        try:
            for part in parts:
                here = f"{here}/{part}"
                child = _open_step(part, flags, fd, self, here)
                if fd != self._top:
                    os.close(fd)
                fd = child
                self._hold(here, fd)
        except BaseException:
            if fd != self._top:
                os.close(fd)
            raise
        return fd

    def _hold(self, name: str, fd: int) -> None:
        """Refuse a directory of a captured tree another user could change (the owner rule, inside the tree)."""
        if self.captured:
            refusal = pathchain.read_refusal(self.shown_as, [pathchain.seen(f"{self.where.rstrip('/')}{name}", fd)])
            if refusal is not None:
                raise refusal


def _open_step(part: str, flags: int, parent: int, tree: Tree, here: str) -> int:
    """`part` of the directory `parent`, opened with `flags`; a link there (where the tape found none) refused."""
    try:
        return os.open(part, os.O_RDONLY | flags, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ENOTDIR, errno.ELOOP) and _is_link(part, parent):
            raise UserError(
                f"{tree.shown_as}: {here} became a link while iolab read the tree (it found a directory there);"
                " capture it again, or stop what changes it"
            ) from None
        raise


def _is_link(part: str, parent: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(part, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _bounded(fd: int) -> bytes | None:
    """At most MAX_BYTES of an open file, in pieces; None when there is more."""
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_BYTES:
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    return None
