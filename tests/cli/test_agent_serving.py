"""`iolab agent` serving (`cli.agent._serve`), with a stand-in server (a Python process, no fio): a server that
stops by itself is a failed run (exit 3, said so), one stopped by Ctrl-C or SIGTERM is not, and a socket the
server leaves behind is removed either way (the next agent could not bind over it)."""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

from iolab.cli.agent import _serve
from iolab.errors import RunFailed

QUITS = [sys.executable, "-S", "-c", "import sys; sys.exit(5)"]
WAITS = [sys.executable, "-S", "-c", "import time; time.sleep(30)"]


@pytest.fixture
def handlers():
    """The signal handlers _serve installs are this test process's: put back after."""
    kept = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    yield
    for sig, handler in kept.items():
        signal.signal(sig, handler)


def _left_socket(path: Path) -> Path:
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.close()  # the file stays: a socket nobody serves
    assert path.is_socket()
    return path


def test_a_server_that_stops_by_itself_is_a_failed_run_and_its_socket_is_removed(tmp_path, handlers):
    sock = _left_socket(tmp_path / "fio.sock")
    with pytest.raises(RunFailed) as failed:
        _serve(QUITS, sock)
    assert failed.value.exit_code == 3
    assert str(failed.value).startswith("fio's server stopped by itself (exit 5;")
    assert not sock.exists()


def test_a_file_in_the_socket_s_place_is_not_removed(tmp_path, handlers):
    kept = tmp_path / "fio.sock"
    kept.write_text("not a socket")
    with pytest.raises(RunFailed):
        _serve(QUITS, kept)
    assert kept.read_text() == "not a socket"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_server_stopped_by_a_signal_ends_quietly_and_its_socket_is_removed(tmp_path, handlers, sig):
    sock = _left_socket(tmp_path / "fio.sock")
    # As an agent started in the background by a non-interactive shell (`iolab agent &` in a script): SIGINT
    # ignored, which a server started before the handlers inherited (ci17 failed on it where the worker had it so)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    before = signal.getsignal(signal.SIGTERM)

    def stop_when_served() -> None:  # once _serve has put its handler in place, the signal a user sends
        deadline = time.monotonic() + 10
        while signal.getsignal(signal.SIGTERM) is before and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), sig)

    sender = threading.Thread(target=stop_when_served)
    sender.start()
    started = time.monotonic()
    _serve(WAITS, sock)  # no RunFailed: the server was stopped, it did not stop
    sender.join()
    assert time.monotonic() - started < 10  # the signal reached the server, which ended
    assert not sock.exists()
