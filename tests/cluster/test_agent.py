"""`iolab agent`: a server that cannot listen says so and exits non-zero (fio's own server exits 0)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time

import pytest

from tests.iolab_cli import assert_clean_error, iolab

needs_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")


@needs_fio
def test_a_port_in_use_is_exit_2_in_one_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        message = assert_clean_error(iolab("agent", "--insecure", "--bind", "127.0.0.1", "--port", str(port)))
    assert f"cannot listen on 127.0.0.1:{port}" in message and "in use" in message


@needs_fio
def test_an_address_not_of_this_host_is_exit_2():
    message = assert_clean_error(iolab("agent", "--insecure", "--bind", "192.0.2.1", "--port", "18799"))  # TEST-NET-1
    assert "cannot listen on 192.0.2.1:18799" in message


def test_a_server_that_stops_by_itself_is_exit_3(tmp_path):
    """A bind lost to a race, or a dead fio: the server ends without being asked, which is a failure."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    proc = iolab(
        "agent", "--insecure", "--bind", "127.0.0.1", "--port", str(port), "--fio", shutil.which("true") or "/bin/true"
    )
    assert proc.returncode == 3 and "stopped by itself" in proc.stderr and "Traceback" not in proc.stderr


@needs_fio
def test_sigterm_stops_the_server_cleanly():
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    agent = subprocess.Popen(
        [sys.executable, "-m", "iolab", "agent", "--insecure", "--bind", "127.0.0.1", "--port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        else:
            pytest.fail("fio's server never listened")
        agent.terminate()
        assert agent.wait(timeout=20) == 0
    finally:
        agent.kill()
    # fio went with it: the port is free. Within seconds, not at once: on a loaded host the port was still
    # busy for a moment after the agent's exit (1 run in 15 beside two CPU hogs); a fio server left running
    # would hold it for good.
    deadline = time.monotonic() + 5
    while True:
        with socket.socket() as again:
            again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                again.bind(("127.0.0.1", port))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
        time.sleep(0.05)
