"""A worker of `make test`'s parallel tier leads a session of its own (tests/worker_sessions.py), and only when
asked: each case runs in a forked child, so this process's session is never changed."""

from __future__ import annotations

import os

import pytest

from tests.worker_sessions import ASKED, lead_own_session


def _in_a_child(environ: dict[str, str]) -> tuple[bool, bool]:
    """(what `lead_own_session` said, whether the child then led its session), from a forked child."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            if environ.get("LEADER"):
                os.setpgid(0, 0)  # a group leader cannot make a session
            said = lead_own_session(environ)
            os.write(write, bytes([said, os.getsid(0) == os.getpid()]))
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 2)
    os.close(read)
    os.waitpid(pid, 0)
    return bool(answer[0]), bool(answer[1])


@pytest.mark.parametrize(
    ("environ", "leads"),
    [
        ({"PYTEST_XDIST_WORKER": "gw0", ASKED: "1"}, True),
        ({"PYTEST_XDIST_WORKER": "gw0"}, False),  # `pytest -n` in a terminal: Ctrl-C still reaches it
        ({ASKED: "1"}, False),  # the controller, or a run without workers
        ({"PYTEST_XDIST_WORKER": "gw0", ASKED: "1", "LEADER": "1"}, False),  # EPERM: stays where it is
    ],
)
def test_a_worker_leads_a_session_only_when_make_test_asks(environ, leads):
    assert _in_a_child(environ) == (leads, leads)


@pytest.mark.skipif(
    not (os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get(ASKED)), reason="only in `make test`'s workers"
)
def test_this_worker_leads_its_own_session():
    assert os.getsid(0) == os.getpid()
