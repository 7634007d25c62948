"""Each worker of `make test`'s parallel tier in a session of its own, so the tier gets the CPU share of its
workers and not of one process.

Linux shares the CPU between sessions before it shares it between their processes (the scheduler's autogroups,
`/proc/sys/kernel/sched_autogroup_enabled`, on by default): every session weighs the same, however many
processes it runs, and a process's nice value counts only inside its own session. fio's job processes call
setsid() and so are a session each: one fio job spinning on a RAM-backed target weighed as much as the whole
suite, pytest-xdist's six workers and all they started (here, a fio job of the null engine beside four busy
loops of one session: 28% of a CPU to the job, 24% to the four together). A pure-Python bench smoke
(page_consistency: 5 CPU s) took 45 s of the last CI. The six workers the Makefile starts on two CPUs so that
unit tests fill the end-to-end tests' waits filled them only with the share of one session.

A worker that leads a session of its own weighs what one fio job does: six workers, six shares. Only where
`make test` asks for it (IOLAB_TEST_WORKER_SESSIONS), so a `pytest -n` in a terminal keeps its workers in the
terminal's foreground group, where Ctrl-C reaches them and what they started.
"""

from __future__ import annotations

import os

ASKED = "IOLAB_TEST_WORKER_SESSIONS"


def lead_own_session(environ: dict[str, str] | None = None) -> bool:
    """Make this process (a pytest-xdist worker, when `make test` asks) the leader of a new session; whether it
    now leads one. A process that already leads a process group cannot (EPERM): it stays where it is."""
    env = os.environ if environ is None else environ
    if not (env.get("PYTEST_XDIST_WORKER") and env.get(ASKED)):
        return False
    try:
        os.setsid()
    except OSError:
        return False
    return True
