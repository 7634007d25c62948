"""The `iolab` command line run in this process, as `tests.iolab_cli.iolab` runs it in a subprocess: the same
entry point (`iolab.cli.main`, which maps iolab's errors to a message and an exit code), arguments, working
directory and environment, and a `CompletedProcess` with its exit code and both streams. A test of a command
that starts no fio and touches nothing outside its IOLAB_HOME needs no process of its own: here it runs in the
fast tier (`pytest -m "not e2e"`), and a slip in the command's wiring fails it there."""

from __future__ import annotations

import os
import subprocess
import sys

from typer.testing import CliRunner

from tests.iolab_cli import assert_clean_error

__all__ = ["assert_clean_error", "iolab"]


def iolab(*args: str, cwd=None, env: dict | None = None) -> subprocess.CompletedProcess:  # type: ignore[no-untyped-def]
    """`iolab ARGS` with this test's IOLAB_HOME (and `env` beside it), in `cwd`; never raises on a non-zero exit."""
    from iolab.cli import main

    argv, here = sys.argv, os.getcwd()
    with CliRunner().isolation(env=env) as (out, err, _):
        sys.argv = ["iolab", *args]
        try:
            if cwd is not None:
                os.chdir(cwd)
            main()
            code = 0
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
        finally:
            sys.stdout.flush()  # print() writes through a buffered text layer over the captured bytes
            sys.stderr.flush()
            sys.argv = argv
            os.chdir(here)
        stdout, stderr = out.getvalue().decode(), err.getvalue().decode()
    return subprocess.CompletedProcess(["iolab", *args], code, stdout, stderr)
