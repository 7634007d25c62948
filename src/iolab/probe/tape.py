"""What a recording probe saw, kept as it was seen, so a support bundle is the snapshot's own input.

A bundle once re-read every path after the snapshot was taken; on a host where loop devices come and
go, the bundle and the snapshot it claimed to reproduce then disagreed (a device listed live and
missing offline). Here each path is read once, at the moment the probe asks, and the probe's answer is
made from the kept bytes, links and listings: the live snapshot and a snapshot of the unpacked bundle
are built from the same input by construction.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field

from iolab.errors import UserError
from iolab.probe.tree import Tree

# The kernel follows at most 40 links in one lookup (open() fails with ELOOP past that).
MAX_LINKS = 40

# Every kind of answer `Tape.see` gives.
KINDS = ("file", "dir", "other", "unreadable", "missing", "loop")


@dataclass
class Seen:
    """One path as the probe saw it: where it led, and what was there."""

    resolved: str
    kind: str  # one of KINDS ("loop": more links than the kernel follows)
    data: bytes | None = None


@dataclass
class Tape:
    """Files, directories, listings and links read from below a root, each kept once.

    `tree` is the root held open: every look goes through it (`Tree`), never through a path on this machine.
    """

    tree: Tree
    # Where the tree itself lies on this machine, as absolute link targets inside a captured tree may name it
    # (a tree built here with links to its own files): such a target is that place inside the tree.
    own: tuple[str, ...] = ()
    files: dict[str, bytes] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    listings: dict[str, list[str] | None] = field(default_factory=dict)  # None: a directory that could not be listed
    links: dict[str, str] = field(default_factory=dict)  # a link's name -> its target, as readlink gave it
    unreadable: set[str] = field(default_factory=set)
    missing: set[str] = field(default_factory=set)
    # Seen but not read: regular files only listed or resolved, and whatever is not a regular file (a block
    # device a mount names, a FIFO): `realpath("/dev/sda1")` must not read a disk, nor a FIFO block the probe.
    # Each such name's kind ("file" or "other"), so that a second look answers as the first did.
    others: dict[str, str] = field(default_factory=dict)
    # Answers taken from a bundle's tape.json (`replaying`): their kinds are the bundle's word, and the tree beneath
    # is read by name, so a name they call no link must be none on disk either (`_link`).
    replayed: bool = False

    def see(self, absolute: str, read: bool = False) -> Seen:
        """Walk `absolute` one component at a time, keeping each link met and what the walk ends on; with
        `read`, a regular file's bytes too (only a regular file's, and only when asked)."""
        parts = [p for p in absolute.split("/") if p]
        current, hops = "", 0
        while parts:
            part = parts.pop(0)
            if part in (".", ".."):
                current = os.path.dirname(current).rstrip("/") if part == ".." else current
                continue
            current = f"{current}/{part}"
            target = self._link(current)
            if target is None:
                continue
            hops += 1
            if hops > MAX_LINKS:
                return Seen(current, "loop")
            parts = self._followed(current, target) + parts
            current = ""
        return self._end(current or "/", read)

    def _followed(self, link: str, target: str) -> list[str]:
        """The components of the name `link`'s target leads to in the tree (a relative target from the link's
        directory); a target naming the tree's own place on this machine leads inside the tree."""
        for own in self.own:
            if target == own or target.startswith(own + "/"):
                target = target[len(own) :] or "/"
                break
        return [p for p in os.path.normpath(os.path.join(os.path.dirname(link), target)).split("/") if p]

    def listing(self, absolute: str) -> list[str] | None:
        """The sorted entries of a directory as first listed, each entry seen too; None if not a directory."""
        seen = self.see(absolute)
        if seen.kind != "dir":
            return None
        if seen.resolved not in self.listings:
            # None is kept too: a second look could list what the first could not
            entries = self.tree.listdir(seen.resolved)
            self.listings[seen.resolved] = entries
            for entry in entries or []:
                self.see(f"{seen.resolved.rstrip('/')}/{entry}")
        return self.listings[seen.resolved]

    def answers(self) -> dict[str, object]:
        """Every answer the tape gave but a regular file's bytes, as JSON holds them (sets as sorted lists).

        A bundle keeps these beside its tree: a tree of files, directories and links cannot say that a name
        was unreadable (left out, it read "missing" offline), a FIFO or a device (an empty file, read ""
        offline), nor what a directory listed when the probe listed it (a name gone since, one that could not
        be listed)."""
        sets = {name: sorted(getattr(self, name)) for name in ANSWER_SETS}
        return {**sets, **{name: dict(sorted(getattr(self, name).items())) for name in ANSWER_MAPS}}

    @classmethod
    def replaying(cls, tree: Tree, own: tuple[str, ...], answers: dict[str, object]) -> Tape:
        """A tape over a captured tree that answers as the tape that saved `answers` did (`answers()`), and
        reads only regular files' bytes from the tree; ValueError when `answers` is not what `answers()` makes."""
        if set(answers) != {*ANSWER_SETS, *ANSWER_MAPS}:
            raise ValueError(f"expected the keys {', '.join((*ANSWER_SETS, *ANSWER_MAPS))}")
        tape = cls(tree, own, replayed=True)
        for name in ANSWER_SETS:
            if not _names(answers[name]):
                raise ValueError(f"{name} is not a list of names")
            getattr(tape, name).update(answers[name])
        for name, valid in ANSWER_MAPS.items():
            table = answers[name]
            if not isinstance(table, dict) or not all(map(valid, table.values())):
                raise ValueError(f"{name} is not a table of names")
            getattr(tape, name).update(table)
        return tape

    def _link(self, name: str) -> str | None:
        if name in self.links:
            return self.links[name]
        if any(name in known for known in (self.files, self.dirs, self.others, self.missing, self.unreadable)):
            if self.replayed and self.tree.readlink(name) is not None:
                # The OS would follow it when a name below is read: out of the tree, to the host's own files.
                raise UserError(
                    f"the tape kept with this tree (iolab/tape.json) says {name} is no link, but the tree holds one there; "
                    "capture it again"
                )
            return None
        target = self.tree.readlink(name)
        if target is None:
            return None
        self.links[name] = target
        return target

    def _known(self, name: str, read: bool) -> Seen | None:
        """What the tape already says of `name`, as it said it the first time; None where it must look (never
        looked, or a regular file seen and now to be read)."""
        if name in self.files:
            return Seen(name, "file", self.files[name])
        if name in self.dirs:
            return Seen(name, "dir")
        if name in self.missing or name in self.unreadable:
            return Seen(name, "missing" if name in self.missing else "unreadable")
        if name in self.others and (not read or self.others[name] != "file"):
            return Seen(name, self.others[name])
        return None

    def _end(self, name: str, read: bool) -> Seen:
        known = self._known(name, read)
        if known is not None:
            return known
        info = self.tree.lstat(name)  # the walk resolved every link: this name is none
        if info is None:  # gone since it was seen as a file: there, but not read
            return self._unread(name) if name in self.others else self._missing(name)
        mode = info.st_mode
        if stat.S_ISDIR(mode):
            self.dirs.add(name)
            return Seen(name, "dir")
        if not read or not stat.S_ISREG(mode):
            self.others[name] = "file" if stat.S_ISREG(mode) else "other"
            return Seen(name, self.others[name])
        data = self.tree.read(name)
        if data is None:
            return self._unread(name)
        self.others.pop(name, None)
        self.files[name] = data
        return Seen(name, "file", data)

    def _missing(self, name: str) -> Seen:
        self.missing.add(name)
        return Seen(name, "missing")

    def _unread(self, name: str) -> Seen:
        self.others.pop(name, None)
        self.unreadable.add(name)
        return Seen(name, "unreadable")


def _names(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


# The tape's fields that are its answers, all but `files` (what was read is the bundle tree's own files): sets of
# names, and tables from a name to what each may hold (a link's target, a listing or None, a kind).
ANSWER_SETS = ("dirs", "unreadable", "missing")
ANSWER_MAPS: dict[str, Callable[[object], bool]] = {
    "links": lambda value: isinstance(value, str),
    "listings": lambda value: value is None or _names(value),
    "others": lambda value: value in ("file", "other"),
}
