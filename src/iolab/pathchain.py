"""Paths no other user can steer: every directory iolab or fio writes in, checked up to `/`, then never re-followed.

fio opens its files by name, at the moment it needs them. A name is only as
fixed as the directories it runs through: whoever may rename an entry in one
of them can put a symlink there between iolab's check and fio's open, and
fio, as root, then writes wherever the link points (a user who owned the
parent of root's `P/work` swapped `work` for a link to their own directory,
holding a link to a root-only file, and fio wrote 32 MiB into it). Pinning
the target's identity cannot help: the swap comes after the pin. So a path
iolab or fio will create or write must lie in a chain of directories that
only root or the running user can change, as ssh's StrictModes and systemd's
`chase()` with CHASE_SAFE require:

- every directory from `/` down, the last one included, is owned by root or
  by the running user, and is writable by neither its group nor others,
  unless it is sticky (then only an entry's owner can rename or remove it,
  and the next entry down is itself held to this rule);
- a link the user gave (`/dev/disk/by-id/...`, a symlinked `/home`) is
  resolved once, here, and must itself be owned by root or the user (its
  owner decides where it points); the resolved chain is what is checked, and
  what iolab hands on;
- after the check nothing is followed: iolab walks the resolved chain from
  `/` one component at a time, each opened `O_NOFOLLOW|O_DIRECTORY` relative
  to the directory before it, and creates what it creates relative to the
  last one it holds (`create_file`, `make_dir`, `replace_file`).

A refusal names the directory, what is wrong with it, and the `chown`/`chmod`
that fixes it (exit 2).
"""

from __future__ import annotations

import errno
import os
import pwd
import shlex
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import NamedTuple

from iolab import acl, guards, mounted
from iolab.errors import UserError

FOREIGN_WRITE = stat.S_IWGRP | stat.S_IWOTH
_MAX_LINKS = 40  # as the kernel's own limit on links followed in one lookup (ELOOP)
_WALK = os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC  # O_PATH: a directory one may search but not list is walked too

guards.register(
    "path-link-owner",
    "a link owned by another user in a path iolab writes through (its owner can point it anywhere)",
    f"{__name__}.resolve",
)
guards.register(
    "path-no-follow",
    "a link in a checked chain followed after the check (each component opened O_NOFOLLOW from the one above)",
    f"{__name__}.walk",
)


@dataclass(frozen=True)
class Chain:
    """A path as checked: what was given, what it resolved to, the directories walked, and the links resolved."""

    given: str
    resolved: str
    directories: tuple[str, ...]
    links: tuple[str, ...] = field(default=())  # "LINK -> TARGET" for each link resolved on the way

    def passed(self) -> str:
        """What `--dry-run` says this path passed."""
        links = f"; links resolved once: {', '.join(self.links)}" if self.links else ""
        return (
            f"owner chain ok ({len(self.directories)} directories from / owned by root or you, none writable by"
            f" others unless sticky); no links followed after the check{links}"
        )


def trusted(uid: int) -> bool:
    """Whether a directory or link of owner `uid` is one only root or the running user can change."""
    return uid in (0, os.geteuid())


class Seen(NamedTuple):
    """A directory (or file) of a chain as it was looked at: its path, its stat, who its access ACL lets write
    besides root and you (`acl.writers`: "u:N", "g:N", as setfacl names them), and who its NFSv4 ACL lets
    change its entries (`acl.nfs4_writers`)."""

    where: str
    info: os.stat_result
    acl_writers: tuple[str, ...] = ()
    nfs4_writers: tuple[str, ...] = ()
    mount: str = ""  # why its mount lets another user decide what is in it (`mounted.mount_problem`), or ""

    def problem(self) -> str:
        """Why another user could change it, or "" (`directory_problem`)."""
        return directory_problem(self.info, self.acl_writers, self.nfs4_writers, self.mount)


def seen(where: str, fd: int) -> Seen:
    """What the descriptor `fd` (an O_PATH one too) of `where` is now: its stat and its ACLs' writers. The POSIX
    ACL is read only where the group bits or others may write: a named writer shows there (the mask), and only a
    refusal names them. An NFSv4 ACL is read everywhere: its named writers need not show in the mode (a file
    system without one answers at once, so all of sysfs a device walk holds costs a refused getxattr each)."""
    info = os.fstat(fd)
    posix = tuple(acl.writers(fd, trusted)) if _open_to_others(info) else ()
    return Seen(where, info, posix, tuple(acl.nfs4_writers(fd, trusted)), mounted.mount_problem(fd, trusted))


def directory_problem(
    info: os.stat_result, acl_writers: tuple[str, ...] = (), nfs4_writers: tuple[str, ...] = (), mount: str = ""
) -> str:
    """Why a directory lets another user change what its names mean, or "" (the rule, on one directory).

    Who may write it besides root and you: its owner, others (mode bits), its group, the users and groups its
    POSIX ACL names (their write shows in the group bits too, as the ACL's mask; named here so the refusal says
    who), and those its NFSv4 ACL lets add, delete or rename entries (the server's to enforce, whatever the mode
    says; sticky or not, as RFC 7530 knows no sticky bit); and anyone at all where its mount lets another user
    decide what its owner and mode say (`mounted`: a FUSE daemon of theirs, an SMB share mounted noperm)."""
    problems = []
    if not trusted(info.st_uid):
        problems.append(f"owned by uid {info.st_uid}")
    if _open_to_others(info):
        if acl_writers:
            problems.append(f"writable through its ACL by {', '.join(acl_writers)}")
        else:
            problems.append(f"writable by {'others' if info.st_mode & stat.S_IWOTH else 'its group'}")
    if nfs4_writers:
        problems.append(f"open to changes through its NFSv4 ACL by {', '.join(nfs4_writers)}")
    if mount:
        problems.append(mount)
    return " and ".join(problems)


def _open_to_others(info: os.stat_result) -> bool:
    """Group or others may write it (an ACL's named writers among them: its mask is the group bits), and it is
    not sticky (in a sticky directory only an entry's owner can rename or remove it)."""
    return bool(info.st_mode & FOREIGN_WRITE) and not info.st_mode & stat.S_ISVTX


_ELSE = "choose a directory only you and root can change"


def fix(
    directory: str,
    info: os.stat_result,
    acl_writers: tuple[str, ...] = (),
    instead: str = _ELSE,
    nfs4_writers: tuple[str, ...] = (),
) -> str:
    """The commands that make `directory` pass, or what to do `instead`."""
    quoted = shlex.quote(directory)
    fixes = []
    home = not trusted(info.st_uid) and _in_home_of(info.st_uid, directory)
    if not trusted(info.st_uid) and not home:
        fixes.append(f"chown {os.geteuid()} {quoted}")
    if _open_to_others(info):
        fixes += [f"setfacl -x {','.join(acl_writers)} {quoted}"] if acl_writers else []
        fixes.append(f"chmod go-w {quoted}")
    if nfs4_writers:  # an entry is removed by its whole text, which `nfs4_getfacl` prints
        fixes.append(f"nfs4_setfacl -x ENTRY {quoted} for each entry of theirs that `nfs4_getfacl {quoted}` lists")
    if home:  # taking a user's home from them is no fix: run as them, or install elsewhere
        return f"Fix: run iolab as uid {info.st_uid} ({directory} is in their home), or {instead}"
    owner = "" if trusted(info.st_uid) else f", or run iolab as uid {info.st_uid}"
    if not fixes:  # nothing on the directory itself to change: its mount decides (`mounted`)
        return f"Fix: {instead}{owner}"
    return f"Fix: {' && '.join(fixes)}{owner}, or {instead}"


def _in_home_of(uid: int, directory: str) -> bool:
    """`directory` is user `uid`'s home directory or lies inside it (their passwd entry says where)."""
    try:
        home = os.path.normpath(pwd.getpwuid(uid).pw_dir)
    except KeyError:
        return False
    return home != "/" and (directory == home or directory.startswith(home + "/"))


def resolve(path: str) -> tuple[str, tuple[str, ...]]:
    """`path` made absolute with every link in it resolved once; a link owned by another user is refused
    (its owner could point it elsewhere at any time). A missing tail is kept as it is (made later)."""
    if not os.path.isabs(path):
        path = os.path.join(os.getcwd(), path)
    done = "/"
    todo = _parts(path)
    links: list[str] = []
    while todo:
        part = todo.pop(0)
        if part == ".":
            continue
        if part == "..":
            done = os.path.dirname(done)
            continue
        here = os.path.join(done, part)
        info = _looked_up(path, here)
        if info is None:
            return os.path.join(here, *todo), tuple(links)
        if not stat.S_ISLNK(info.st_mode):
            done = here
            continue
        _check_link(path, here, info, len(links))
        target = os.readlink(here)
        links.append(f"{here} -> {target}")
        todo = _parts(target) + todo
        if target.startswith("/"):
            done = "/"
    return done, tuple(links)


def _parts(path: str) -> list[str]:
    """A path's components, empty ones (`//`, a trailing `/`) left out."""
    return [part for part in path.split("/") if part]


def _looked_up(path: str, here: str) -> os.stat_result | None:
    """What is at `here` without following a link; None when nothing is (a tail made later)."""
    try:
        return os.lstat(here)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UserError(f"{path}: cannot look up {here} ({exc.strerror})") from None


def _check_link(path: str, here: str, info: os.stat_result, followed: int) -> None:
    """Refuse a link another user owns (they could point it anywhere at any time) and a chain of too many."""
    if not trusted(info.st_uid) and guards.active("path-link-owner"):
        raise UserError(
            f"{path}: {here} is a link owned by uid {info.st_uid}, who can point it anywhere.\n"
            f"Fix: give the path it points to ({os.path.realpath(here)}) if you trust it, or remove the link"
        )
    if followed >= _MAX_LINKS:
        raise UserError(f"{path}: too many links to resolve; give the real path")


def first_refusal(path: str, entries: Sequence[Seen], does: str, instead: str = _ELSE) -> UserError | None:
    """The refusal for the first of `entries` (directories from `/` down, or the file at their end) another
    user could change, or None; `does` says what they could then steer ("redirect what iolab writes"), `instead`
    the way out besides the fix."""
    for entry in entries:
        problem = entry.problem()
        if problem:
            where = entry.where
            lead = "" if os.path.normpath(path) == where else f"{path}: "
            said = f"{lead}{where} is {problem}, so another user could {does} there."
            return UserError(f"{said}\n{fix(where, entry.info, entry.acl_writers, instead, entry.nfs4_writers)}")
    return None


@guards.guard(
    "path-owner-chain",
    "a path iolab or fio writes under a directory another user owns or may write (not sticky), up to /",
)
def chain_refusal(path: str, directories: Sequence[Seen]) -> UserError | None:
    """The refusal for the first directory of a walked chain that breaks the rule, or None."""
    return first_refusal(path, directories, "redirect what iolab writes")


# The check of one walked chain: (the path given, [what each directory was seen to be]) -> the refusal, or None.
Rule = Callable[[str, Sequence[Seen]], UserError | None]


@guards.guard(
    "input-owner-chain",
    "an input root trusts another user could change: a captured tree (--root, a bundle's copy; a directory from / "
    "to it or one inside it that is read), a scheduled plan and the job files it names",
)
def read_refusal(path: str, entries: Sequence[Seen]) -> UserError | None:
    """The refusal for the first of `entries` (directories on the way to an input, or the input itself) that
    another user could change, or None: the rule of `chain_refusal`, for what iolab reads."""
    return first_refusal(path, entries, "change what iolab reads")


def check_input(path: str) -> None:
    """Refuse a file iolab will read on trust (a scheduled plan) when it, or a directory from `/` down to it,
    is one another user owns or may write; a link to it is resolved once, as for a write."""
    check_file(path, read_refusal)


def check_file(path: str, rule: Rule) -> str:
    """`path` resolved once (links another user owns refused), then the directories from `/` down to it and
    the file itself held to `rule`: its resolved path, or the rule's UserError."""
    resolved, _ = resolve(path)
    directory, name = os.path.split(resolved)
    with walk(directory or "/", given=path, rule=rule) as (held, _chain):
        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=held)
    try:
        refusal = rule(path, [seen(resolved, fd)])
    finally:
        os.close(fd)
    if refusal is not None:
        raise refusal
    return resolved


@contextmanager
def walk(
    directory: str, given: str | None = None, make: bool = False, rule: Rule | None = None
) -> Iterator[tuple[int, Chain]]:
    """Hold `directory` (resolved once, checked from `/` down, never re-followed) for creating in it.

    Yields an O_PATH descriptor of the directory and the `Chain` checked. `make` creates missing
    directories on the way, 0700, each relative to the one above it. UserError when the chain breaks the
    rule (`chain_refusal`, or `rule`: a captured tree read, whose refusal speaks of reads), a component is not
    a directory, or one changed into a link since it was resolved.
    """
    given = given if given is not None else directory
    resolved, links = resolve(directory)
    parts = [p for p in resolved.split("/") if p]
    fd = os.open("/", os.O_RDONLY | _WALK)
    here = "/"
    seen = [here]
    check = rule or chain_refusal
    try:
        _hold_to_rule(check, given, here, fd)
        for part in parts:  # each directory checked before anything is looked up, or made, in it
            here = os.path.join(here, part)
            fd = _step(fd, part, here, given, make)
            _hold_to_rule(check, given, here, fd)
            seen.append(here)
        yield fd, Chain(given, resolved, tuple(seen), links)
    finally:
        os.close(fd)


def _hold_to_rule(rule: Rule, given: str, directory: str, fd: int) -> None:
    refusal = rule(given, [seen(directory, fd)])
    if refusal is not None:
        raise refusal


def _step(parent: int, part: str, here: str, given: str, make: bool) -> int:
    """Open `part` of the directory held as `parent`, without following a link. The parent is closed once
    the child is open; on an error it stays open, for the caller's `finally` to close. A link or a file where
    a directory was resolved is a UserError; any other error (a missing directory, no permission) is the
    OSError as os.open gave it, for the caller's own message (a report's "cannot write the report")."""
    flags = os.O_RDONLY | _WALK | (os.O_NOFOLLOW if guards.active("path-no-follow") else 0)
    try:
        try:
            child = os.open(part, os.O_RDONLY | flags, dir_fd=parent)
        except FileNotFoundError:
            if not make:
                raise
            _mkdir_at(part, parent)
            child = os.open(part, os.O_RDONLY | flags, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ENOTDIR, errno.ELOOP):
            raise UserError(
                f"{given}: {here} is not a directory (a link or a file now, where a directory was resolved);"
                " check who changed it"
            ) from None
        raise OSError(exc.errno, exc.strerror, here) from None
    os.close(parent)
    return child


def _mkdir_at(name: str, parent: int) -> None:
    try:
        os.mkdir(name, 0o700, dir_fd=parent)
    except FileExistsError:
        return  # made meanwhile (by this user or root, the only ones who can): opened and checked next
    made = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    try:
        os.fchmod(made, 0o700)  # mkdir's mode is masked by the umask
    finally:
        os.close(made)


def check(path: str) -> Chain:
    """The chain of the directory `path` (followed once if a link), checked; UserError when it is not safe."""
    with walk(path) as (_, chain):
        return chain


def refusal(path: str) -> UserError | None:
    """Why the chain of `path` (or of its nearest existing directory, when it is not made yet) is not safe,
    or None: for a caller that decides what to do about it (a store opened for reading only)."""
    resolved, _ = resolve(path)
    while not os.path.isdir(resolved) and resolved != "/":
        resolved = os.path.dirname(resolved)
    try:
        with walk(resolved, given=path):
            return None
    except UserError as exc:
        return exc


def check_parent(path: str) -> Chain:
    """The chain of the directory a file `path` is (or will be) in: what decides where a write by name goes."""
    resolved, _ = resolve(os.path.dirname(os.path.abspath(path)) or "/")
    with walk(resolved, given=path) as (_, chain):
        return chain


def create_file(path: str, flags: int, mode: int = 0o600) -> int:
    """A new file `path` (`O_CREAT|O_EXCL|O_NOFOLLOW` added to `flags`), made in its checked, held directory;
    returns its descriptor. FileExistsError as os.open gives it when something is already there."""
    directory, name = os.path.split(path)
    with walk(directory or ".", given=path) as (held, _):
        return os.open(name, flags | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=held)


def make_dir(path: str, mode: int = 0o700) -> os.stat_result:
    """A new directory `path` in its checked, held directory (mkdir never follows nor reuses); its stat."""
    directory, name = os.path.split(path.rstrip("/"))
    with walk(directory or ".", given=path) as (held, _):
        os.mkdir(name, mode, dir_fd=held)
        return os.stat(name, dir_fd=held, follow_symlinks=False)


def make_dirs(path: str) -> Chain:
    """`path` and its missing parents made 0700, each in the checked directory above it; its chain."""
    with walk(path, make=True) as (_, chain):
        return chain


def identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of what is at `path` now, reached without following any link; None when nothing is
    there. UserError when a directory on the way is no longer one (a link put in its place)."""
    directory, name = os.path.split(path)
    resolved = os.path.normpath(os.path.join(os.getcwd(), directory))
    parts = [p for p in resolved.split("/") if p]
    fd = os.open("/", os.O_RDONLY | _WALK)
    here = "/"
    try:
        for part in parts:
            here = os.path.join(here, part)
            fd = _step(fd, part, here, path, make=False)
        info = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None  # the file, or a directory above it, is gone
    finally:
        os.close(fd)
    if stat.S_ISLNK(info.st_mode):
        raise UserError(f"{path} is a link now, not what iolab created")
    return info.st_dev, info.st_ino
