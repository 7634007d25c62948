"""`iolab agent`'s server command line and start notice for each combination of its listening options, and
its socket path's refusals (issue 41: `bench/mutation.py` found the agent's default socket, its notice on
who can drive it, and the TCP notice's loopback test reached only end to end). No fio is started."""

from __future__ import annotations

import os
import pwd
import socket

import pytest

from iolab.cli.agent import FIO_PORT, listen_argv
from iolab.errors import UserError

ME = pwd.getpwuid(os.geteuid()).pw_name
WHO = "root" if os.geteuid() == 0 else f"{ME} and root"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_without_options_the_server_listens_on_the_homes_private_socket(iolab_home):
    argv, said, sock = listen_argv("/usr/bin/fio", None, None, None, False)
    assert sock == iolab_home / "agent" / "fio.sock" and argv == ["/usr/bin/fio", f"--server=sock:{sock}"]
    assert said == (
        f"fio server on the Unix socket {sock} (its directory is 0700: only {WHO} can drive it); "
        f"on the controller, a host-file line: NAME ssh={ME}@THIS-HOST socket={sock}"
    )
    assert oct(os.stat(sock.parent).st_mode & 0o777) == "0o700"


@pytest.mark.parametrize(("bind", "loopback"), [("127.0.0.1", True), ("localhost", True), ("0.0.0.0", False)])
def test_tcp_with_insecure_says_who_can_drive_it(bind, loopback):
    port = _free_port()
    argv, said, sock = listen_argv("fio", None, bind, port, True)
    assert (argv, sock) == (["fio", f"--server={bind},{port}"], None)
    who = "every user of this host" if loopback else f"every user of this host and of every host that can reach {bind}"
    assert said == (
        f"INSECURE: fio server on TCP {bind}:{port}: {who} can make it read and write any file {ME} can "
        f"(it runs whatever job it is sent); on the controller: NAME address={bind} port={port} ssh=no"
    )


def test_the_default_port_is_fios():
    try:
        argv, _, _ = listen_argv("fio", None, "127.0.0.1", None, True)
    except UserError as busy:  # another process on this host has 8765: the refusal names it
        assert f"cannot listen on 127.0.0.1:{FIO_PORT}" in str(busy)
    else:
        assert argv == ["fio", f"--server=127.0.0.1,{FIO_PORT}"]


@pytest.mark.parametrize(
    ("socket_path", "bind", "port", "insecure", "refusal"),
    [
        (None, "127.0.0.1", None, False, "--bind/--port listen on TCP"),
        (None, None, 9000, False, "--bind/--port listen on TCP"),
        (None, None, None, True, "--insecure goes with --bind ADDRESS"),
        (None, None, 9000, True, "--insecure goes with --bind ADDRESS"),
        ("/tmp/x.sock", "127.0.0.1", 9000, True, "give --socket (a Unix socket) or --bind (TCP), not both"),
        (None, "203.0.113.77", 9000, True, "cannot listen on 203.0.113.77:9000: "),  # not an address of this host
    ],
)
def test_each_combination_that_cannot_be_is_refused_naming_why(socket_path, bind, port, insecure, refusal):
    with pytest.raises(UserError, match=refusal.replace("(", r"\(").replace(")", r"\)")):
        listen_argv("fio", socket_path, bind, port, insecure)


def test_a_socket_path_taken_by_a_file_or_a_stale_socket(tmp_path):
    private = tmp_path / "agent"
    private.mkdir(mode=0o700)
    (private / "file.sock").write_text("")
    with pytest.raises(UserError, match="exists and is not a socket: remove it, or give another --socket"):
        listen_argv("fio", str(private / "file.sock"), None, None, False)
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(private / "old.sock"))
    stale.close()  # bound, never listening: what a stopped server leaves
    _, _, sock = listen_argv("fio", str(private / "old.sock"), None, None, False)
    assert sock == private / "old.sock" and not sock.exists()  # removed, so fio can bind there
