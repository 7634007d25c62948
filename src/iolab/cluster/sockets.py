"""Unix sockets of fio servers: in a directory only their user can enter, so only that user and root connect.

fio's server runs whatever job it is sent, as the user it runs as. On TCP
that is every local user (loopback is everyone's) and every host that can
reach the address: uid 65534 sent root's `iolab agent` on 127.0.0.1 a job
that overwrote a root-only file. A Unix socket is reached through the file
system, so a directory of mode 0700 owned by the server's user bars everyone
else (root excepted) before fio sees a byte; the controller reaches a
remote one through ssh, which forwards Unix sockets as the logged-in user.
fio creates its socket with the umask's mode, so the directory is the
boundary, and it is checked, not assumed: `socket_dir_problem` is the guard.
"""

from __future__ import annotations

import os
import shlex
import socket
import stat
import tempfile
from pathlib import Path

from iolab import guards
from iolab.errors import UserError
from iolab.private import private_dir

# Bits that let anyone but the owner into the directory (to connect to a socket in it, or to replace it).
FOREIGN_ACCESS = stat.S_IRWXG | stat.S_IRWXO


@guards.guard(
    "fio-socket-private-dir",
    "a fio server's Unix socket (iolab agent's, or the controller's ssh forward) in a directory that is a "
    "link, another user's, or open to group or others",
)
def socket_dir_problem(directory: Path) -> str | None:
    """Why another user could connect to a socket in `directory` (or swap it), or None when only its owner can
    (a directory not made yet: None unless its parent lets others swap it)."""
    try:
        info = os.lstat(directory)
    except FileNotFoundError:
        return _parent_problem(Path(directory).parent) if Path(directory).parent.is_dir() else None
    except OSError as exc:
        return exc.strerror or "unreadable"
    if stat.S_ISLNK(info.st_mode):
        return "a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "not a directory"
    if info.st_uid != os.geteuid():
        return f"owned by uid {info.st_uid}, not by you (uid {os.geteuid()})"
    if info.st_mode & FOREIGN_ACCESS:
        return f"mode {stat.S_IMODE(info.st_mode):04o}: group or others may enter it"
    return _parent_problem(Path(directory).parent)


def _parent_problem(parent: Path) -> str | None:
    """Why someone else could rename the directory away and put theirs in its place before fio binds (its
    parent is theirs, or writable by others without the sticky bit), or None. The chain above is the home's
    and the system's (`iolab.store.ownership` checks the home)."""
    try:
        info = os.stat(parent)
    except OSError as exc:
        return f"in {parent}, which is {exc.strerror or 'unreadable'}"
    if info.st_uid not in (0, os.geteuid()):
        return f"in {parent}, owned by uid {info.st_uid}, who could replace it"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not info.st_mode & stat.S_ISVTX:
        return f"in {parent}, which group or others may write, so they could replace it"
    return None


def private_socket_dir(directory: Path) -> Path:
    """`directory` made (0700) if missing, and refused with the command that fixes it unless only you can enter it."""
    problem = socket_dir_problem(directory)  # a missing one: its parent, before anything is made there
    if problem is None and not os.path.lexists(directory):
        private_dir(directory)
        problem = socket_dir_problem(directory)
    if problem:
        quoted = shlex.quote(str(directory))
        if problem.startswith("mode"):
            fix = f"chmod 700 {quoted}"
        elif "may write" in problem:
            fix = f"chmod go-w {shlex.quote(str(Path(directory).parent))}"
        else:
            fix = "remove it, or choose a place of your own (--socket DIR/fio.sock, DIR made 0700)"
        raise UserError(
            f"the socket directory {directory} is {problem}: another user could drive the fio server there. Fix: {fix}"
        )
    return directory


def tunnel_dir() -> Path:
    """A new private directory (`mkdtemp`: 0700, a name nobody can predict) for the controller's ends of ssh
    forwards, checked as any socket directory is."""
    return private_socket_dir(Path(tempfile.mkdtemp(prefix="iolab-fio-")))


# How long a connection through an ssh forward must stay open to count as reaching a server: ssh closes it
# as soon as the far end refuses, one round trip after the connect.
FORWARD_SILENCE_S = 0.3


def connectable(path: str, timeout_s: float, forwarded: bool = False) -> bool:
    """Whether a server accepts connections on the Unix socket `path`.

    An ssh forward accepts every connection while ssh runs, and closes it at
    once when the far end refuses: a forwarded socket counts only if the
    connection is still open after `FORWARD_SILENCE_S` (a fio server speaks
    only when spoken to, so silence is the answer of one that is there).
    """
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(timeout_s)
            client.connect(path)
            if not forwarded:
                return True
            client.settimeout(FORWARD_SILENCE_S)
            try:
                return client.recv(1) != b""
            except TimeoutError:
                return True
    except OSError:
        return False
