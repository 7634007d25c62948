"""Programs iolab runs (fio, the probe's commands), found on PATH by one function and run by the path it checked.

A name is looked up on PATH each time a program starts, and root's PATH is root's choice, but each of its
directories is only as trusted as whoever may write it: a world-writable directory early in PATH, or a
/usr/local/bin another user owns, lets that user put a `fio` there and run their code as root at the next
run (tested: uid 65534's `fio`, first on PATH, appended to a root-only file at `iolab run --dry-run`, which
asks fio for its options). So every program iolab starts is found here: the first match on PATH, as the
shell finds it, its links resolved once, and the file and every directory from `/` down to it held to the
rule of what iolab trusts (`pathchain`: owned by root or you, writable by no one else unless sticky, ACLs
read). A program that breaks it is refused in two lines (exit 2) naming what another user could change,
never skipped for the next match: the PATH is wrong, and the user is told. What runs is the absolute path
checked. A name not on PATH is None, for the caller's own "not installed".

Every process iolab starts is started here (`run`, `start`), so none can miss the check: no other module of
iolab calls subprocess, os.system, os.exec*, os.spawn*, os.posix_spawn*, asyncio's subprocesses, pty.spawn or
shutil.which (tests/test_process_starts.py parses every module and fails on one; the one exception is fio's
keeper, a standard-library script that execs the absolute path iolab checked here).
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from iolab import guards, pathchain
from iolab.errors import UserError

if TYPE_CHECKING:  # subprocess itself is loaded when a program starts, not by `iolab --help`
    import subprocess


@guards.guard(
    "program-owner-chain",
    "a program iolab runs (fio, the probe's commands) found on PATH where another user could have put it or "
    "could change it: the file, or a directory from / down to it, another user's or writable by others",
)
def program_refusal(path: str, entries: Sequence[pathchain.Seen], instead: str = "") -> UserError | None:
    """The refusal for the first of `entries` (directories from `/` to a program, or the program) another user
    could change, or None: the rule of `pathchain.read_refusal`, for what iolab runs; `instead`: the way out
    besides the fix (taking the program's directory off PATH, unless said)."""
    instead = instead or f"take {os.path.dirname(path)} off PATH"
    return pathchain.first_refusal(path, entries, "change what iolab runs", instead)


def find(name: str) -> str | None:
    """The absolute path of program `name` (a name with a `/` is taken as given) once it is checked, or None
    when PATH has none; UserError when another user could have put it there or could change it."""
    found = shutil.which(name)
    if found is None:
        return None
    return pathchain.check_file(found, program_refusal)


def check_python() -> None:
    """Refuse to schedule this Python and this iolab where another user could change them: every scheduled run
    starts the interpreter, reads its venv's pyvenv.cfg, runs the `.pth` files of its site-packages and imports
    iolab and its libraries from its module path, as root, unattended, every interval. So the interpreter (its
    links resolved once), the venv's pyvenv.cfg, each directory on the module path and each `.pth` file in one,
    with every directory from `/` down to them, must be ones only root or you can change. UserError otherwise.
    """
    instead = "install iolab and its Python where only you and root can change them"
    rule = functools.partial(program_refusal, instead=instead)
    pathchain.check_file(sys.executable, rule)
    places = {os.path.dirname(os.path.abspath(__file__)), sys.prefix}
    places.update(entry for entry in sys.path if os.path.isabs(entry) and os.path.isdir(entry))
    for place in sorted(places):
        with pathchain.walk(place, rule=rule):
            pass
        names = sorted(os.listdir(place))
        for name in [n for n in names if n.endswith(".pth")] + [n for n in names if n == "pyvenv.cfg"]:
            pathchain.check_file(os.path.join(place, name), rule)


@guards.guard(
    "root-python-owner",
    "any command as root (run, clean, import, ls, show, report...) started from a Python or an iolab another user "
    "could change: the interpreter, its venv's pyvenv.cfg, a directory on its module path or a .pth file in one",
)
def root_python_refusal() -> UserError | None:
    """Why root may not run a command from this Python (`check_python`'s refusal), or None (not root, or
    nothing another user could change). Such a user's module, imported as the command goes on (iolab imports
    a command's heavy modules inside it), or their interpreter at root's next run, runs as root: the very
    thing `schedule install` refuses to set up, done by hand."""
    if os.geteuid() != 0:
        return None
    said = _python_refusal(sys.executable, sys.prefix, tuple(sys.path), guards.switched_off_now())
    return None if said is None else UserError(said)


@functools.lru_cache(maxsize=4)
def _python_refusal(
    executable: str, prefix: str, module_path: tuple[str, ...], switched_off: frozenset[str]
) -> str | None:
    """`check_python`'s refusal for this interpreter, prefix and module path, read once a process: every
    private write checks it again (`private.write_private`), and a run writes hundreds of files. `switched_off`
    (the guards off now: `check_python` is made of guarded checks) is part of the key, not read."""
    try:
        check_python()
    except UserError as exc:
        return str(exc)
    return None


def check_root_python() -> None:
    """Refuse (UserError, exit 2, two lines) root's command started from a Python another user could change: every
    command, at the entry (`iolab.cli.main`) before it imports its own modules, reading ones too, since `show`
    or `report` import the analysis and numpy as they go and would run that user's module as root as surely as
    `run`; and again in every private write and every store opened for writing, for callers that do not come
    through the entry. Help is held too: a word that reads as help may be an option's value."""
    refusal = root_python_refusal()
    if refusal is not None:
        raise refusal


def command(argv: Sequence[str]) -> list[str]:
    """`argv` with its program replaced by the checked path `find` gives; left as given when not on PATH (its
    start then fails as it always did: "No such file or directory")."""
    found = find(argv[0])
    return [found if found is not None else argv[0], *argv[1:]]


def run(argv: Sequence[str], **options: Any) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run` of `argv` by its program's checked path (`command`), `options` as subprocess takes them:
    how iolab runs a program to its end."""
    import subprocess

    return subprocess.run(command(argv), **options)  # noqa: PLW1510 (check= is the caller's, in `options`)


def start(argv: Sequence[str], **options: Any) -> subprocess.Popen[Any]:
    """`subprocess.Popen` of `argv` by its program's checked path (`command`): how iolab starts a program it
    watches (fio's keeper, perf, ssh, fio's server)."""
    import subprocess

    return subprocess.Popen(command(argv), **options)
