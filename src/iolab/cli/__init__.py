"""The command line: parse, call one package, print, exit with a documented code.

Exit codes: 0 ok; 1 a gate the user asked for failed; 2 usage or input
error; 3 the run itself failed or was interrupted (finished points kept).
Command modules register themselves on `app` (`iolab.cli.application`);
each imports its heavy dependencies inside the command so `iolab --help`
stays fast.
"""

from __future__ import annotations

import copy
import sqlite3
import sys
from collections.abc import Callable
from functools import cache
from typing import Any, Protocol

import typer
import typer.main

# Registration by import: each module adds its commands to `app`.
from iolab import programs
from iolab.cli import agent, doctor, history, plans, report, results, runs, schedule, tags  # noqa: F401
from iolab.cli.application import app
from iolab.errors import RunFailed, UserError
from iolab.printable import guard_streams


def main() -> None:
    """Console-script entry point: maps iolab's errors to messages and exit codes.

    A command-line mistake is one line too (typer's own display is a usage
    line, a hint and a boxed panel): what was wrong, and where help is.
    Whatever it prints, a message quoting a user's path included, shows
    control characters escaped (`iolab.printable`).
    """
    guard_streams()
    try:
        programs.check_root_python()  # as root, from a Python only root (and you) can change: before any command
        code = click_command(_named(sys.argv[1:]))(standalone_mode=False)
    except (UserError, RunFailed) as exc:
        print(f"iolab: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except sqlite3.Error as exc:  # the store could not be written mid-command (a run handles its own)
        print(
            f"iolab: the iolab database could not be written ({exc}): free space in IOLAB_HOME or set it"
            " to a writable directory",
            file=sys.stderr,
        )
        sys.exit(RunFailed.exit_code)
    except typer.Abort:  # Ctrl-C outside a run, which handles its own
        print("iolab: interrupted", file=sys.stderr)
        sys.exit(1)
    except typer.TyperException as exc:  # click's usage errors: bad option, bad value, unknown command
        if type(exc).__name__ == "NoArgsIsHelpError":  # `iolab` alone: its message is the help
            print(exc, file=sys.stderr)
        else:
            command = _command_path(getattr(exc, "ctx", None))
            message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
            print(f"{command}: {message} (see `{command} --help`)", file=sys.stderr)
        sys.exit(getattr(exc, "exit_code", 2))
    if code == INTERRUPTED:  # typer's answer to Ctrl-C outside a run or an import, which say their own
        print("iolab: interrupted", file=sys.stderr)
    sys.exit(code if isinstance(code, int) else 0)


@cache
def click_command(name: str | None = None) -> Callable[..., Any]:
    """The command tree typer builds from `app`, built once per process: building it is ~20 ms (typer reads
    every command's signature), which a caller of `main` in a loop (the malformed-input corpus, forked
    per case after building it) need not pay each time. With `name`, a command or group of `app` the command
    line names (`_named`), the tree of the root and that one alone: the others cannot run, and building them
    was ~20 ms of CPU at the start of every command (5% of `iolab import` of 100 outputs, whose start nothing
    else can overlap)."""
    from iolab.cli.numeric import bounded

    if name is None:
        return bounded(typer.main.get_command(app))  # every int and float option through iolab.numbers
    return bounded(typer.main.get_group(_only(name)))  # a group whatever is in it, as the whole app's is


def _command_names(typer_app: typer.Typer) -> dict[str, Any]:
    """The top-level commands and groups of `typer_app` by the name the command line gives them (typer's own
    rule: the name given, else the function's, lower case, `_` as `-`)."""
    names: dict[str, Any] = {}
    for command in typer_app.registered_commands:
        callback_name = command.callback.__name__ if command.callback else ""
        names[command.name or typer.main.get_command_name(callback_name)] = command
    for group in typer_app.registered_groups:
        if group.name:
            names[group.name] = group
    return names


def _named(args: list[str]) -> str | None:
    """The command or group of `app` the arguments start with, else None (`iolab`, `iolab --help`, a typo:
    the whole tree answers those, as before)."""
    return args[0] if args and args[0] in _command_names(app) else None


def _only(name: str) -> typer.Typer:
    """`app` (its settings, help and callback) with the one command or group `name` registered."""
    trimmed = copy.copy(app)
    found = _command_names(app)[name]
    trimmed.registered_commands = [c for c in app.registered_commands if c is found]
    trimmed.registered_groups = [g for g in app.registered_groups if g is found]
    return trimmed


INTERRUPTED = 130  # what typer returns for a KeyboardInterrupt (128 + SIGINT), as a shell would


class _CommandContext(Protocol):
    """What `_command_path` reads of a click context: typer.Context's parents are typer's vendored click
    contexts, not typer.Context, and that class lives in a private module."""

    @property
    def parent(self) -> _CommandContext | None: ...

    @property
    def info_name(self) -> str | None: ...


def _command_path(context: _CommandContext | None) -> str:
    """ "iolab plan check" for an error inside that command, whatever name iolab was started by."""
    names = []
    while context is not None and context.parent is not None:
        names.append(context.info_name or "")
        context = context.parent
    return " ".join(["iolab", *reversed(names)])
