"""Errors a user can cause, and failures of the run itself.

The CLI turns these into a one- or two-line message and an exit code
(2 for input, 3 for a run that failed), so no traceback reaches a user.
"""


class UserError(Exception):
    """Bad input: a malformed plan, an unknown target, fio missing. Exit code 2."""

    exit_code = 2


class RunFailed(Exception):
    """The run itself failed or was interrupted; completed points are kept. Exit code 3."""

    exit_code = 3
