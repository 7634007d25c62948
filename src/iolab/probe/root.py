"""One place every host read goes through, so a captured tree can stand in for `/`.

Tests and `--root DIR` / support bundles point a `Root` at a copy of /sys,
/proc and /etc; the live machine is `Root("/")`. Inputs that are not files
(command output such as `nvme smart-log`, statvfs fullness) also go through
the Root: on the live machine it runs or calls them and keeps the answer so
a bundle can carry it; on a captured tree it reads that kept answer back
from `/iolab/...` inside the tree.

A captured tree is read through a `Tape` walk, never through the
operating system's own lookup: a link inside it (`/srv -> /data`, as
`--root` copies and unpacked bundles hold) names a place inside the tree,
which `os.path.realpath` and `open` would instead look up on the machine
running the probe. This machine's answers then stood in for the captured
host's (a loop device backed by /srv/disk.img judged by this machine's
/srv), and a path the captured host has but this one lacks resolved to
nothing. The tape's walk reads through a `Tree`, the tree held by a
descriptor, so nothing it decided is looked up by a path again, and a tree
another user could change is refused (`probe.tree`).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from iolab import programs
from iolab.errors import UserError
from iolab.probe.tape import Tape
from iolab.probe.tree import Tree

# Where captured non-file inputs live inside a tree or bundle.
COMMANDS_DIR = "/iolab/commands"
STATVFS_FILE = "/iolab/statvfs.json"
# A bundle's tape answers but the files' bytes (`Tape.answers`): what the tree of the bundle cannot hold.
ANSWERS_FILE = "/iolab/tape.json"


class Root:
    """Reads files and lists directories below a root directory.

    With `record=True` every file, listing and link is read once into a
    `Tape` and every answer is made from it, and the command and statvfs
    answers are kept too: `probe.bundle` saves that tape, so a bundle holds
    exactly what the snapshot was built from, even on a host that changes
    while it is read.
    """

    def __init__(self, base: str | os.PathLike[str] = "/", record: bool = False, shown_as: str | None = None) -> None:
        self.base = Path(base)
        self.shown_as = shown_as or str(self.base)  # how messages name the tree (a bundle: not its unpacked copy)
        self.record = record
        self.captured: dict[str, bytes] = {}
        self._statvfs: dict[str, dict[str, int]] = {}
        # Where the tree lies on this machine, looked up once: the only lookups outside a captured tree.
        self._live = self.base.resolve() == Path("/")
        self._own = () if self._live else tuple(dict.fromkeys((str(self.base), os.path.realpath(self.base))))
        # Held open once (a captured tree checked first: `Tree`); the live machine unrecorded needs none.
        tree = None if self._live and not record else Tree(str(self.base), self.shown_as, not self._live)
        self._tree = tree
        self.tape: Tape | None = Tape(tree) if record and tree is not None else None
        self._replay = None if self._live or record or tree is None else self._kept_tape(tree)

    def path(self, absolute: str) -> Path:
        """Map an absolute host path (e.g. "/proc/mounts") into this root."""
        return self.base / absolute.lstrip("/")

    def _walk(self) -> Tape | None:
        """What resolves names in this root: the recording tape, the tape a bundle kept (answering as the live
        one did), a fresh tape over a captured tree (links followed inside the tree, nothing kept between
        calls), or None for the live machine's own lookup."""
        if self.tape is not None:
            return self.tape
        if self._tree is None:
            return None
        return self._replay or Tape(self._tree, self._own)

    def _kept_tape(self, tree: Tree) -> Tape | None:
        """The tape of a bundle's tree (its ANSWERS_FILE), or None for a tree that has none (a `--root` copy)."""
        text = Tape(tree, self._own).see(ANSWERS_FILE, read=True).data
        if text is None:
            return None
        try:
            answers = json.loads(text)
            if not isinstance(answers, dict):
                raise ValueError("not a JSON object")
            return Tape.replaying(tree, self._own, answers)
        except (ValueError, RecursionError) as exc:  # nested past the parser's depth: a hostile tape, refused too
            raise UserError(
                f"{ANSWERS_FILE} in {self.shown_as} is not a probe's tape ({exc}); capture it again"
            ) from None

    def read_text(self, absolute: str) -> str | None:
        """The file's text, or None when it is missing or unreadable."""
        walk = self._walk()
        if walk is not None:
            data = walk.see(absolute, read=True).data
            return None if data is None else data.decode(errors="replace")
        try:
            return self.path(absolute).read_text(errors="replace")
        except OSError:
            return None

    def read_value(self, absolute: str) -> str | None:
        """A one-value sysfs/proc file, stripped; None when missing or empty."""
        text = self.read_text(absolute)
        if text is None:
            return None
        text = text.strip()
        return text or None

    def read_int(self, absolute: str) -> int | None:
        """An integer file (sysfs style); None when missing or not a number."""
        value = self.read_value(absolute)
        try:
            return int(value) if value is not None else None
        except ValueError:
            return None

    def listdir(self, absolute: str) -> list[str]:
        """Sorted entries of a directory; empty when it is missing or unreadable."""
        walk = self._walk()
        if walk is not None:
            return list(walk.listing(absolute) or [])
        try:
            return sorted(os.listdir(self.path(absolute)))
        except OSError:
            return []

    def exists(self, absolute: str) -> bool:
        walk = self._walk()
        if walk is not None:
            return walk.see(absolute).kind in ("file", "dir", "other", "unreadable")
        return self.path(absolute).exists()

    def is_symlink(self, absolute: str) -> bool:
        walk = self._walk()
        if walk is not None:
            walk.see(absolute)  # keeps every link on the way, this one too
            parent, name = os.path.split("/" + absolute.strip("/"))
            return f"{walk.see(parent).resolved.rstrip('/')}/{name}" in walk.links
        return self.path(absolute).is_symlink()

    def realpath(self, absolute: str) -> str:
        """The host path `absolute` resolves to, following symlinks inside the tree (a captured tree's links
        name places inside it, whether this machine has them or not)."""
        walk = self._walk()
        if walk is not None:
            return walk.see(absolute).resolved
        resolved = os.path.realpath(self.path(absolute))
        rel = os.path.relpath(resolved, os.path.realpath(self.base))
        return "/" if rel == "." else "/" + rel

    def link_name(self, absolute: str) -> str | None:
        """Last component of a symlink's target (a driver or group name), or None."""
        if not self.is_symlink(absolute):
            return None
        # Resolved rather than read, so `../../nvme0` and `..` name the same directory.
        return os.path.basename(self.realpath(absolute))

    @property
    def is_live(self) -> bool:
        """True when this root is the running machine itself."""
        return self._live

    def command(self, key: str, argv: list[str], timeout: float = 15.0) -> tuple[str | None, str]:
        """Output of a command, live or as captured under `key`; (None, reason) if unavailable.

        The argv is run only on the live machine (never through a shell);
        a captured tree answers from `/iolab/commands/<key>`.
        """
        if not self.is_live:
            text = self.read_text(f"{COMMANDS_DIR}/{key}")
            return (text, "") if text is not None else (None, f"`{' '.join(argv)}` not captured in this tree")
        program = programs.find(argv[0])  # UserError where another user could have put it
        if program is None:
            return None, f"`{argv[0]}` is not installed"
        try:
            proc = programs.run([program, *argv[1:]], capture_output=True, text=True, timeout=timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, f"`{' '.join(argv)}` failed: {exc}"
        if proc.returncode != 0:
            detail = (proc.stderr or proc.stdout).strip().splitlines()
            return None, f"`{' '.join(argv)}` failed: {detail[0] if detail else f'exit {proc.returncode}'}"
        if self.record:
            self.captured[f"{COMMANDS_DIR}/{key}"] = proc.stdout.encode()
        return proc.stdout, ""

    def statvfs(self, mount_point: str) -> dict[str, int] | None:
        """Size, used and available bytes of a mounted file system, or None.

        Used is (blocks - free) and available is what an unprivileged user
        may still write, as `df` reports them.
        """
        if not self.is_live:
            text = self.read_text(STATVFS_FILE)
            try:
                table = json.loads(text) if text else {}
                entry = table.get(mount_point) if isinstance(table, dict) else None
                return {k: int(v) for k, v in entry.items()} if isinstance(entry, dict) else None
            except (ValueError, TypeError, RecursionError):  # a tree's file, as its author wrote it
                return None
        try:
            st = os.statvfs(mount_point)
        except OSError:
            return None
        entry = {
            "size_bytes": st.f_blocks * st.f_frsize,
            "used_bytes": (st.f_blocks - st.f_bfree) * st.f_frsize,
            "avail_bytes": st.f_bavail * st.f_frsize,
        }
        if self.record:
            self._statvfs[mount_point] = entry
            self.captured[STATVFS_FILE] = json.dumps(self._statvfs, indent=1, sort_keys=True).encode()
        return entry
