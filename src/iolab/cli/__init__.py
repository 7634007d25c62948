"""The command line: parse, call one package, print, exit with a documented code.

Exit codes: 0 ok; 1 a gate the user asked for failed; 2 usage or input
error; 3 the run itself failed or was interrupted (finished points kept).
Command modules register themselves on `app`; each imports its heavy
dependencies inside the command so `iolab --help` stays fast.
"""

from __future__ import annotations

import sys

import typer

from iolab.errors import RunFailed, UserError

app = typer.Typer(
    name="iolab",
    help="A storage-performance lab: plans and runs fio, keeps every result, explains the numbers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# Registration by import: each module adds its commands to `app`.
from iolab.cli import agent, doctor, history, plans, report, results, runs, schedule, tags  # noqa: E402,F401


def main() -> None:
    """Console-script entry point: maps iolab's errors to messages and exit codes."""
    try:
        app()
    except (UserError, RunFailed) as exc:
        print(f"iolab: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
