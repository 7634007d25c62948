"""A home that is yours: IOLAB_HOME and its database must belong to the user running iolab.

The database decides what iolab deletes (the scratch rows a killed run left)
and what it runs again (`--resume`). A home another user owns, or one that
group or others may write, lets that user plant a row naming any file the
running user may delete: as root, root's next run removed a root-owned file
named in a row planted in a world-writable home. So, as ssh requires of
`~/.ssh`, iolab refuses such a home with the commands that fix it, before it
reads a row.
"""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

from iolab import guards
from iolab.errors import UserError

# Bits that let someone other than the owner change what is there.
FOREIGN_WRITE = stat.S_IWGRP | stat.S_IWOTH


@guards.guard("home-ownership", "an IOLAB_HOME or database another user owns or may write", allow="")
def unsafe_owner(path: Path) -> str:
    """Why `path` (followed if a link: the home may be one) is not the running user's alone, or ""."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return ""  # not made yet: iolab makes it, private
    except OSError as exc:
        return exc.strerror or "unreadable"
    problems = []
    if info.st_uid != os.geteuid():
        problems.append(f"owned by uid {info.st_uid}, not by you (uid {os.geteuid()})")
    if info.st_mode & FOREIGN_WRITE:
        problems.append(f"writable by {'group and others' if info.st_mode & stat.S_IWOTH else 'group'}")
    return " and ".join(problems)


def require_own(path: Path, what: str) -> None:
    """UserError naming the chown/chmod that fixes `path`, when someone else owns it or may write it."""
    problem = unsafe_owner(path)
    if not problem:
        return
    quoted = shlex.quote(str(path))
    fixes = []
    if problem.startswith("owned by"):
        fixes.append(f"chown {os.geteuid()} {quoted}")
    fixes.append(f"chmod go-w {quoted}")
    raise UserError(
        f"{what} {path} is {problem}; another user could make iolab delete your files."
        f" Fix: {' && '.join(fixes)} (or set IOLAB_HOME to a directory of your own)"
    )
