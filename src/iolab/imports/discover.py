"""Which files an import reads: every file named or found under a directory, recognised by its content.

Harnesses name their outputs as they please (pbench: `fio-result.txt`, akrr: `appstdout`), so the
name decides nothing; the first recognisable mark of a format does (fio's `"fio version"`, a terse
line, IOR's banner...). A directory's other files are skipped, counted by reason, so a user sees
what was left and why. fio's own logs are not skipped: they are read with the output that names
their prefix.

A folder may be another user's (root imports alice's results), and a link in it points wherever its maker
chose: to a root-only file of fio output, whose job names, host and command lines would then be stored and
reported as alice's. So the walk holds each folder by a descriptor (`os.fwalk`: each opened from the one above,
no link followed), opens each file from it without following a link, and follows a link to a file only when
the link is root's or yours in a folder only root or you can change (`pathchain.directory_problem`, ACLs
read); any other link is skipped, counted as "a link another user could change". A path named on the command
line is read as given, links followed. The folders holding fio logs stay held after the walk (`Found.folders`):
the logs are read from them, when their outputs are parsed (`imports.folders`).
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from iolab import guards, pathchain
from iolab.errors import UserError
from iolab.fio import terse
from iolab.imports.folders import Folders
from iolab.textfile import MAX_INPUT_BYTES, Refused, read_input, read_regular
from iolab.tools import ior, iozone, mdtest

# fio's per-interval and histogram logs (<prefix>_bw.1.log, <prefix>_clat_hist.2.log.<host>).
FIO_LOG = re.compile(r"_(?:bw|iops|lat|clat|slat|clat_hist|lat_hist)\.\d+\.log(?:\.[^/]+)?$")
FORMATS = "fio JSON/json+/terse, IOR, mdtest or IOzone"
# fio's JSON by its keys as keys (a quoted name, then a colon), not by a page that mentions them.
FIO_KEYS = re.compile(r'"(?:fio version|fioversion)"\s*:\s*"|"client_stats"\s*:\s*\[')
FIO_JOBS = re.compile(r'"jobs"\s*:\s*\[\s*\{\s*"jobname"\s*:')


@dataclass
class Candidate:
    """A file to import: its path, its bytes and text, the format its content shows, and whether it was named."""

    path: Path
    data: bytes
    text: str
    kind: str  # "fio", "fio-terse", "ior", "ior-json", "mdtest", "iozone", or "" (not recognised)
    named: bool  # given on the command line, not found in a directory
    source: str = ""  # the path with links resolved, where the walk knew it (`_source`); else resolved when parsed
    folders: Folders | None = None  # the import's held folders of logs, where its logs are read from


@dataclass
class Found:
    candidates: list[Candidate] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=dict)  # reason -> paths
    logs: int = 0  # fio logs seen, read with the outputs that name them
    log_paths: list[str] = field(default_factory=list)  # the same, in the walk's order (`imports.prefetch`)
    problems: list[str] = field(default_factory=list)  # named files that could not be read
    folders: Folders = field(default_factory=Folders)  # the folders of fio logs, held: close() when done

    def skip(self, reason: str, path: Path) -> None:
        self.skipped.setdefault(reason, []).append(str(path))

    def close(self) -> None:
        """Let go of the folders of logs held (`folders`): once every output is parsed."""
        self.folders.close()


def kind_of(text: str) -> str:
    """The format `text` shows, by content alone; "" when none."""
    head = text[: 1 << 16]
    if FIO_KEYS.search(head):
        return "fio"
    if ior.looks_like_json(text):
        return "ior-json"
    if ior.looks_like_text(text):
        return "ior"
    if mdtest.looks_like(text):
        return "mdtest"
    if iozone.looks_like(text):
        return "iozone"
    if terse.looks_like(text):
        return "fio-terse"
    if FIO_JOBS.search(head):
        return "fio"
    return ""


def discover(paths: list[str]) -> Found:
    """Every file under `paths`, read and recognised; a named path that does not exist is an error. The folders
    of fio logs it found stay held (`Found.close` lets go of them)."""
    found = Found()
    try:
        for raw in paths:
            path = Path(raw)
            if path.is_dir():
                _found_in(path, found)
            elif path.exists():
                _named(path, found)
            else:
                raise UserError(
                    f"{raw}: no such file or directory; give benchmark outputs ({FORMATS}) or folders of them"
                )
    except BaseException:
        found.close()
        raise
    for folder in found.folders.unheld:
        found.skip("fio logs not read: more folders of them than may be held open (ulimit -n)", Path(folder))
    return found


def _found_in(path: Path, found: Found) -> None:
    """Every file under the folder `path`: outputs read, logs counted and their folders held."""
    resolved: dict[str, str] = {}  # each folder with its links resolved, once (this walk's: links change)
    for folder, name, held in _walk(path):
        if FIO_LOG.search(name):  # counted by name alone: no Path made for each of 100,000 logs
            found.logs += 1
            found.log_paths.append(os.path.join(folder, name))
            found.folders.add(held.key, held.fd, name)
        else:
            _consider(Path(folder, name), found, _source(folder, name, resolved), held)


@dataclass(frozen=True)
class Held:
    """A folder of the walk, held open (`fd`: valid while its files are yielded), and whether a link in it may
    be followed: only when no one but root or you can change the folder."""

    fd: int
    links_followed: bool
    key: str  # the folder as the outputs in it name it (`str(Path(folder))`): what `Folders` holds it by


def _walk(root: Path) -> Iterator[tuple[str, str, Held]]:
    """(folder, name, the folder held) of the files under `root` in name order, subfolders included (pbench
    keeps each client's logs in clients/HOST/); each folder is opened from the one above without following a
    link (`os.fwalk`; `root` itself, named, is followed), so a link to a folder is neither walked into nor
    swapped in later, and a link loop cannot make the walk endless. Strings, not Paths: making a Path of each of fio-plot's 110,000 files was
    most of the walk."""
    top = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # named, so a link to it is followed
    try:
        for inside, dirs, files, fd in os.fwalk(".", dir_fd=top):
            dirs.sort()
            folder = str(root) if inside == "." else os.path.join(root, inside[2:])  # as os.walk(root) names it
            held = Held(fd, not pathchain.seen(folder, fd).problem(), str(Path(folder)))
            for name in sorted(files):
                yield folder, name, held
    finally:
        os.close(top)


def _source(folder: str, name: str, resolved: dict[str, str]) -> str:
    """`os.path.realpath` of the folder's file, as its points' provenance keeps it: the folder resolved once for
    all its files, the name added unless it is a link itself (then resolved whole). realpath of each file
    took ~33 µs of CPU an output (an lstat per part of its path), the check for a link one lstat."""
    path = os.path.join(folder, name)
    if os.path.islink(path):
        return os.path.realpath(path)
    if folder not in resolved:
        resolved[folder] = os.path.realpath(folder)
    return os.path.join(resolved[folder], name)


def _named(path: Path, found: Found) -> None:
    """What the user named is read whatever it is (links followed); why it cannot be is a problem to report."""
    try:
        text = read_input(path, "benchmark output")
    except UserError as exc:
        found.problems.append(str(exc))
        return
    kind = kind_of(text)
    if kind in ("fio", "fio-terse", ""):  # read as fio's: its logs are read from its folder, opened as named
        found.folders.add_named(path.parent)
    found.candidates.append(Candidate(path, text.encode(), text, kind, True, folders=found.folders))


def _consider(path: Path, found: Found, source: str, held: Held) -> None:
    """A file found in a walked folder: read from the folder held, recognised by its content, or skipped."""
    data = _read(path, found, held)
    if data is None:
        return
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        found.skip("not text", path)
        return
    kind = kind_of(text)
    if kind:
        found.candidates.append(Candidate(path, data, text, kind, False, source, found.folders))
    else:
        found.skip("not a benchmark output", path)


def _read(path: Path, found: Found, held: Held) -> bytes | None:
    """A found file's bytes, opened from its held folder: a regular file of at most 256 MiB (a FIFO in a results
    folder would block); a link only where `held` lets links be followed and the link is root's or yours."""
    try:
        try:
            return read_regular(path.name, dir_fd=held.fd, follow=False)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            if guards.active("import-own-links") and not (held.links_followed and _own_link(path.name, held.fd)):
                found.skip("a link another user could change", path)
                return None
            return read_regular(path.name, dir_fd=held.fd)  # yours, where only you and root can change it
    except Refused as exc:
        found.skip(f"larger than {MAX_INPUT_BYTES >> 20} MiB" if exc.kind == "too large" else exc.kind, path)
    except OSError:
        found.skip("unreadable", path)
    return None


guards.register(
    "import-own-links",
    "a link in a folder `iolab import` walks followed when another user made it or could change it (a root-only "
    "output stored as theirs)",
    f"{__name__}._read",
)


def _own_link(name: str, folder: int) -> bool:
    """Whether `name` in the held folder is a link root or you made (its maker decides where it points)."""
    return pathchain.trusted(os.stat(name, dir_fd=folder, follow_symlinks=False).st_uid)
