"""The fio-socket directory guard with each way another user could get in made alone, and its way out named
(issue 41: the guard's tests made one bad directory each, so a mode bit, the sticky bit's exemption, the
parent's owner or the fix chosen for each problem could change with no fast test failing). And `connectable`
against a socket that accepts, one that hangs up at once, one that speaks, and none."""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from iolab.cluster.sockets import connectable, private_socket_dir, socket_dir_problem
from iolab.errors import UserError


def _dir(path: Path, mode: int) -> Path:
    path.mkdir(exist_ok=True)
    os.chmod(path, mode)
    return path


@pytest.mark.parametrize(
    ("mode", "problem"), [(0o700, None), (0o500, None), (0o710, "0710"), (0o701, "0701"), (0o770, "0770")]
)
def test_any_group_or_other_bit_on_the_directory_is_a_way_in(tmp_path, mode, problem):
    _dir(tmp_path / "p", 0o755)
    said = socket_dir_problem(_dir(tmp_path / "p" / "s", mode))
    assert said == (None if problem is None else f"mode {problem}: group or others may enter it")


@pytest.mark.parametrize(
    ("mode", "open_to_swap"), [(0o755, False), (0o775, True), (0o757, True), (0o1777, False), (0o1775, False)]
)
def test_a_parent_others_may_write_lets_them_swap_the_directory_unless_it_is_sticky(tmp_path, mode, open_to_swap):
    parent = _dir(tmp_path / "p", mode)
    said = socket_dir_problem(_dir(parent / "s", 0o700))
    assert said == (f"in {parent}, which group or others may write, so they could replace it" if open_to_swap else None)
    assert socket_dir_problem(parent / "not-yet") == said  # a directory not made yet: its parent decides


def test_a_link_a_file_another_owner_and_a_missing_parent(tmp_path):
    _dir(tmp_path / "p", 0o755)
    (tmp_path / "p" / "link").symlink_to(_dir(tmp_path / "p" / "real", 0o700))
    assert socket_dir_problem(tmp_path / "p" / "link") == "a symbolic link"
    (tmp_path / "p" / "file").write_text("")
    assert socket_dir_problem(tmp_path / "p" / "file") == "not a directory"
    assert socket_dir_problem(tmp_path / "nowhere" / "s") is None  # nothing there to swap
    if os.geteuid() == 0:  # only root can give a directory away
        theirs = _dir(tmp_path / "p" / "theirs", 0o700)
        os.chown(theirs, 65534, 65534)
        assert socket_dir_problem(theirs) == "owned by uid 65534, not by you (uid 0)"
        os.chown(tmp_path / "p", 65534, 65534)
        assert (
            socket_dir_problem(tmp_path / "p" / "real")
            == f"in {tmp_path / 'p'}, owned by uid 65534, who could replace it"
        )


def test_each_problem_is_refused_with_its_own_fix_and_a_missing_directory_is_made_private(tmp_path):
    parent = _dir(tmp_path / "p", 0o755)
    made = private_socket_dir(parent / "new")
    assert made == parent / "new" and stat.S_IMODE(os.lstat(made).st_mode) == 0o700
    with pytest.raises(UserError, match=r"is mode 0750: group or others may enter it: .* Fix: chmod 700 "):
        private_socket_dir(_dir(parent / "open", 0o750))
    os.chmod(parent, 0o777)
    with pytest.raises(UserError, match=rf"Fix: chmod go-w {parent}$"):
        private_socket_dir(parent / "new")
    (tmp_path / "f").write_text("")
    with pytest.raises(UserError, match=r"is not a directory: .*Fix: remove it, or choose a place of your own"):
        private_socket_dir(tmp_path / "f")


def _serve(path: Path, answer: bytes | None) -> threading.Thread:
    """A Unix socket at `path` that accepts one connection and then hangs up (None), says `answer`, or waits."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)

    def once() -> None:
        with server:
            peer, _ = server.accept()
            with peer:
                if answer is None:
                    return
                if answer:
                    peer.sendall(answer)
                peer.recv(1)  # wait for the client to go

    thread = threading.Thread(target=once, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize(
    ("answer", "forwarded", "reached"),
    [(None, False, True), (None, True, False), (b"", True, True), (b"x", True, True)],
)
def test_a_forward_counts_only_if_the_far_end_does_not_hang_up(tmp_path, answer, forwarded, reached):
    path = tmp_path / "s.sock"
    thread = _serve(path, answer)
    assert connectable(str(path), 2.0, forwarded=forwarded) is reached
    thread.join(5)
    assert connectable(str(tmp_path / "none.sock"), 0.5) is False
