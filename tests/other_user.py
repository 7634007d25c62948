"""Acting as another local user in a test: uid 65534 (nobody), by a forked child that drops to it."""

from __future__ import annotations

import os
from collections.abc import Callable

OTHER = 65534


def as_other_user(act: Callable[[], None]) -> None:
    """`act` run by uid 65534 (a forked child that drops to it, no groups); its failure fails the caller."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setgid(OTHER)
            os.setuid(OTHER)
            act()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "uid 65534's move failed"
