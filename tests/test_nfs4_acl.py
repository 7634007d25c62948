"""NFSv4 ACLs in the path rule (`iolab.acl.nfs4_writers`): a directory whose NFSv4 ACL lets another principal add,
delete or rename its entries is refused naming them, whatever its mode bits say (a filer reports 0755 for a
directory whose ACL lets alice write).

No NFS server or OpenZFS pool is here, so the ACLs are encoded by the test in the two formats the kernel hands
out (`system.nfs4_acl`: RFC 7530's XDR of `nfsace4`; `system.nfs4_acl_xdr`: OpenZFS's `nfsacl41i`), and the walk
reads them through a getxattr that answers for one real directory as such a file system would.
"""

from __future__ import annotations

import os
import random
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from iolab import acl
from iolab.errors import UserError
from iolab.private import write_private
from tests.other_user import root_only, shared_dir, tmpfs_directory

ALLOW, DENY = 0, 1
INHERIT_ONLY, GROUP_FLAG = 0x08, 0x40
READ, WRITE_DATA, APPEND, DELETE_CHILD, DELETE, WRITE_ACL = 0x1, 0x2, 0x4, 0x40, 0x10000, 0x40000
EXECUTE, READ_ATTRIBUTES = 0x20, 0x80


def _client(*aces: tuple[int, int, int, str]) -> bytes:
    """An ACL as the NFS client shows it: a count, then type, flags, mask and the name (XDR opaque, padded)."""
    out = struct.pack(">I", len(aces))
    for kind, flags, mask, who in aces:
        name = who.encode()
        out += struct.pack(">4I", kind, flags, mask, len(name)) + name + b"\0" * (-len(name) % 4)
    return out


def _zfs(*aces: tuple[int, int, int, int, int]) -> bytes:
    """An OpenZFS NFSv4 ACL: its flags, then a counted array of type, flags, iflag, mask and numeric id."""
    return struct.pack(">II", 0, len(aces)) + b"".join(struct.pack(">5I", *ace) for ace in aces)


RWX = READ | WRITE_DATA | APPEND | EXECUTE | DELETE_CHILD
RX = READ | EXECUTE | READ_ATTRIBUTES


def test_a_filer_s_0755_directory_names_those_its_acl_lets_change_it():
    raw = _client(
        (ALLOW, 0, RWX | WRITE_ACL, "OWNER@"),  # the owner: the owner rule's to judge
        (ALLOW, 0, RX, "GROUP@"),
        (ALLOW, 0, RX, "EVERYONE@"),
        (ALLOW, 0, WRITE_DATA, "nobody@example.com"),  # a named user: no mode bit shows it
        (ALLOW, 0, RWX, "root@example.com"),  # root, mapped by the local password file
        (ALLOW, GROUP_FLAG, DELETE_CHILD, "staff@example.com"),
        (ALLOW, 0, WRITE_ACL, "4242"),  # may give themselves the rest
        (DENY, 0, RWX, "mallory@example.com"),  # a deny grants nothing
        (ALLOW, INHERIT_ONLY, RWX, "eve@example.com"),  # for what is made in it, not for it
    )
    assert acl.parse_nfs4(raw, root_only) == ["nobody@example.com", "group staff@example.com", "uid 4242"]
    assert acl.parse_nfs4(_client((ALLOW, 0, RWX, "EVERYONE@")), root_only) == ["EVERYONE@"]
    assert acl.parse_nfs4(_client((ALLOW, 0, RX, "alice@example.com")), root_only) == []
    forged = "eve@x\nFix: chmod 777 /"  # a principal's name is the server's: it stays one quoted line
    assert acl.parse_nfs4(_client((ALLOW, 0, WRITE_DATA, forged)), root_only) == [repr(forged)]


def test_an_acl_the_file_system_keeps_but_will_not_hand_over_is_unreadable(monkeypatch):
    """getxattr refusing (EACCES: root squashed on the server) is not "no ACL kept": the mode bits cannot stand in."""
    import errno

    def refused(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(os, "getxattr", refused)
    assert acl.nfs4_writers(0, root_only) == [acl.UNREADABLE]


def test_an_openzfs_acl_names_them_by_id():
    special, owner, group, everyone = 1, 1, 2, 3
    raw = _zfs(
        (ALLOW, 0, special, RWX, owner),
        (ALLOW, 0, special, RX, group),
        (ALLOW, 0, special, DELETE, everyone),  # may rename the directory itself
        (ALLOW, 0, 0, APPEND, 1000),
        (ALLOW, GROUP_FLAG, 0, WRITE_DATA, 100),
        (ALLOW, 0, 0, RWX, 0),
        (DENY, 0, 0, RWX, 1001),
    )
    assert acl.parse_nfs4_zfs(raw, root_only) == ["EVERYONE@", "uid 1000", "gid 100"]


def _random_client_acl(rng: random.Random) -> tuple[list[tuple[int, int, int, str]], set[str]]:
    """A generated ACL and, read independently of the parser, the principals it lets change the directory."""
    names = ["OWNER@", "GROUP@", "EVERYONE@", "root@d", "0", "nobody@d", "ab", "x" * rng.randint(1, 9), "4242"]
    aces, steer = [], set()
    for _ in range(rng.randint(0, 12)):
        kind = rng.choice([ALLOW, ALLOW, DENY, 2, 3])
        flags = rng.choice([0, 0, INHERIT_ONLY, GROUP_FLAG, 0x3])
        mask = rng.getrandbits(20) if rng.random() < 0.5 else rng.choice([RX, READ, EXECUTE | READ_ATTRIBUTES])
        who = rng.choice(names)
        aces.append((kind, flags, mask, who))
        grants = kind == ALLOW and not flags & INHERIT_ONLY
        grants = grants and bool(mask & (WRITE_DATA | APPEND | DELETE_CHILD | DELETE | WRITE_ACL | 0x80000))
        if not grants or who == "OWNER@":
            continue
        if flags & GROUP_FLAG and who not in ("GROUP@", "EVERYONE@"):
            steer.add(f"group {who}")
        elif who in ("GROUP@", "EVERYONE@", "nobody@d", "ab") or who.startswith("x"):
            steer.add(who)
        elif who == "4242":
            steer.add("uid 4242")
    return aces, steer


def test_generated_acls_name_exactly_who_may_change_the_directory_and_cut_ones_are_unreadable():
    """2,000 generated ACLs: the parser names a principal exactly when an allow entry of theirs (not inherit-only)
    grants a right that changes the directory's entries or its ACL; every strict prefix of an ACL is not an ACL
    (None: unreadable, never a shorter list of writers)."""
    rng = random.Random(56)
    for _ in range(2000):
        aces, steer = _random_client_acl(rng)
        raw = _client(*aces)
        assert set(acl.parse_nfs4(raw, root_only) or []) == steer, aces
        cut = rng.randrange(len(raw))
        assert acl.parse_nfs4(raw[:cut], root_only) is None, (aces, cut)
        assert acl.parse_nfs4(raw + b"\0\0\0\0", root_only) is None


@pytest.fixture
def filer_directory(monkeypatch) -> Iterator[tuple[Path, list[bytes]]]:
    """Root's 0755 directory in /tmp whose `system.nfs4_acl` is whatever the test puts in the list (nothing: none
    kept), as an NFS mount of a filer answers; every other path gets the real getxattr."""
    with shared_dir("iolab-nfs4-") as shared:
        held: list[bytes] = []
        real = os.getxattr

        def getxattr(path, attribute, *args, **kwargs):  # type: ignore[no-untyped-def]
            if attribute == acl.NFS4_CLIENT and os.path.realpath(path) == str(shared) and held:
                return held[-1]
            return real(path, attribute, *args, **kwargs)

        monkeypatch.setattr(os, "getxattr", getxattr)
        yield shared, held


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: a directory only root can write, as a root run's is")
def test_a_directory_whose_nfs4_acl_lets_another_user_write_is_refused_naming_them(filer_directory):
    shared, held = filer_directory
    held.append(_client((ALLOW, 0, RWX, "OWNER@"), (ALLOW, 0, RX, "EVERYONE@"), (ALLOW, 0, RWX, "nobody@example")))
    with pytest.raises(UserError) as refused:
        write_private(shared / "report.json", "{}")
    said, advice = str(refused.value).splitlines()
    assert said == (
        f"{shared}/report.json: {shared} is open to changes through its NFSv4 ACL by nobody@example, so another"
        " user could redirect what iolab writes there."
    )
    assert f"nfs4_setfacl -x ENTRY {shared}" in advice and f"nfs4_getfacl {shared}" in advice
    assert not (shared / "report.json").exists()
    held.append(b"\0\0\0\1garbage")  # one iolab cannot read is not taken for none
    with pytest.raises(UserError, match="an NFSv4 ACL iolab cannot read"):
        write_private(shared / "report.json", "{}")
    held.append(_client((ALLOW, 0, RWX, "OWNER@"), (ALLOW, 0, RX, "EVERYONE@")))  # the fix given
    write_private(shared / "report.json", "{}")
    assert (shared / "report.json").read_text() == "{}"


def test_a_file_system_without_nfs4_acls_names_no_one():
    with tmpfs_directory() as fd:
        assert acl.nfs4_writers(fd, root_only) == []
