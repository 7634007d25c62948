"""What the path-chain refusal tells the user to run (pathchain.chain_refusal): a chown for a directory another
user owns, a chmod go-w only for one others may write that is not sticky (/tmp's sticky bit already keeps
others' hands off its names), and, for another owner, the other way out: running iolab as that user."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from iolab.pathchain import Seen, chain_refusal

OTHER = 54321


def _info(uid: int, mode: int) -> os.stat_result:
    return SimpleNamespace(st_uid=uid, st_mode=0o040000 | mode)  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("uid", "mode", "fix"),
    [
        (OTHER, 0o755, f"Fix: chown {os.geteuid()} /srv/data, or run iolab as uid {OTHER}"),
        (OTHER, 0o1777, f"Fix: chown {os.geteuid()} /srv/data, or run iolab as uid {OTHER}"),
        (os.geteuid(), 0o775, "Fix: chmod go-w /srv/data"),
        (OTHER, 0o777, f"Fix: chown {os.geteuid()} /srv/data && chmod go-w /srv/data, or run iolab as uid {OTHER}"),
    ],
)
def test_the_fix_names_only_the_commands_the_directory_needs(uid, mode, fix):
    refusal = chain_refusal("/srv/data/x.dat", [Seen("/", _info(0, 0o755)), Seen("/srv/data", _info(uid, mode))])
    assert refusal is not None
    said, advice = str(refusal).split("\n")
    assert said.startswith("/srv/data/x.dat: /srv/data is ") and said.endswith(
        "so another user could redirect what iolab writes there."
    )
    assert advice == f"{fix}, or choose a directory only you and root can change"


def test_a_sticky_world_writable_directory_of_root_or_yours_passes():
    assert chain_refusal("/tmp/x", [Seen("/", _info(0, 0o755)), Seen("/tmp", _info(0, 0o1777))]) is None


def test_a_home_directory_is_not_to_be_chowned_but_run_as_its_user():
    """`sudo .venv/bin/iolab run` from a checkout in a user's home is refused (root-python-owner); the way out
    is running as that user, not `chown 0` of their home."""
    import pwd

    users = [u for u in pwd.getpwall() if u.pw_uid not in (0, os.geteuid()) and os.path.normpath(u.pw_dir) != "/"]
    if not users:
        pytest.skip("no passwd entry of another user with a home directory to name")
    user = users[0]
    home = os.path.normpath(user.pw_dir)
    for where in (home, os.path.join(home, "src", "iolab")):
        refusal = chain_refusal(f"{where}/x.dat", [Seen("/", _info(0, 0o755)), Seen(where, _info(user.pw_uid, 0o755))])
        advice = str(refusal).split("\n")[1]
        assert "chown" not in advice
        assert advice.startswith(f"Fix: run iolab as uid {user.pw_uid} ({where} is in their home), or ")
