"""Who a file's POSIX access ACL lets write besides its owner, read from the file itself.

An ACL entry (`setfacl -m u:alice:rwx DIR`) grants a named user or group access that no owner or "other"
mode bit shows. What the mode bits still show is the ACL's mask, in the group bits: the kernel grants a
named entry only what the mask allows, and keeps the group bits equal to the mask. So the path rule's
"writable by its group" already refuses a directory whose ACL lets another user write (tested: root's
0755 directory given `u:65534:rwx` reads 0775), but it names the wrong culprit and a fix (`chmod g-w`)
that works only by lowering the mask. Reading the ACL names who may write, and the `setfacl -x` that
removes them. The format is the kernel's (include/uapi/linux/posix_acl_xattr.h): a 4-byte version (2),
then 8-byte entries of tag (u16), permissions (u16) and id (u32), little-endian.

A default ACL on a directory grants nothing on the directory itself: it is copied to what is made in it,
masked by the mode it is made with (the umask is ignored there). iolab makes its files 0600 and its
directories 0700, so a named entry of a default ACL gets no access to them (tested).

NFSv4 ACLs are another model: the server enforces them, and a named user's write need not show in the mode
bits the client reports (knfsd maps them to POSIX ACLs, so the mask shows; a filer computes the mode from
OWNER@, GROUP@ and EVERYONE@ only). The client shows the ACL as `system.nfs4_acl` (XDR, RFC 7530 section
6.2.1: a count, then type, flags, access mask and the principal's name per entry, big-endian); OpenZFS with
`acltype=nfsv4` as `system.nfs4_acl_xdr` (the ACL's flags, then a counted array of type, flags, iflag, access
mask and a numeric id). `nfs4_writers` reads either whatever the mode bits say.
"""

from __future__ import annotations

import errno
import os
import pwd
import struct
from collections.abc import Callable

ACCESS = "system.posix_acl_access"
_VERSION = 2
_HEADER = struct.Struct("<I")
_ENTRY = struct.Struct("<HHI")
_USER, _GROUP, _MASK = 0x02, 0x08, 0x10  # ACL_USER, ACL_GROUP, ACL_MASK (named entries, and the mask)
_WRITE = 0x02


def writers(fd: int, trusted: Callable[[int], bool]) -> list[str]:
    """Named users and groups the access ACL of the open descriptor `fd` (an O_PATH one too) lets write, mask
    applied, as setfacl names them ("u:65534", "g:100"); users `trusted` passes are left out.

    Every named group counts, as the group bits do: its members are not known to be root or you. A file
    system that keeps no ACL gives []; an ACL that cannot be read is the mode bits' to judge (their group bits
    are its mask, so a named writer shows there)."""
    try:  # getxattr refuses an O_PATH descriptor (EBADF); its /proc/self/fd link does not
        raw = os.getxattr(f"/proc/self/fd/{fd}", ACCESS)
    except OSError:  # none kept (ENODATA, EOPNOTSUPP), or unreadable: the mode rule, which sees the mask, decides
        return []
    return parse_writers(raw, trusted)


def parse_writers(raw: bytes, trusted: Callable[[int], bool]) -> list[str]:
    """The named writers of an ACL in the kernel's xattr format (see `writers`). One in another format names
    no one: the mode rule judges it by its group bits, which are the mask."""
    if len(raw) < _HEADER.size or (len(raw) - _HEADER.size) % _ENTRY.size or _HEADER.unpack_from(raw)[0] != _VERSION:
        return []
    entries = [_ENTRY.unpack_from(raw, at) for at in range(_HEADER.size, len(raw), _ENTRY.size)]
    mask = next((perm for tag, perm, _ in entries if tag == _MASK), 0o7)
    found = []
    for tag, perm, ident in entries:
        if not perm & mask & _WRITE:
            continue
        if tag == _USER and not trusted(ident):
            found.append(f"u:{ident}")
        elif tag == _GROUP:
            found.append(f"g:{ident}")
    return found


NFS4_CLIENT = "system.nfs4_acl"  # the Linux NFS client's view of the server's ACL
NFS4_ZFS = "system.nfs4_acl_xdr"  # OpenZFS's native NFSv4 ACL (acltype=nfsv4)
_NOT_KEPT = {errno.ENODATA, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS}
_WORD = struct.Struct(">I")
_ALLOW = 0  # ACE4_ACCESS_ALLOWED_ACE_TYPE; deny, audit and alarm entries grant nothing
_INHERIT_ONLY, _IDENTIFIER_GROUP = 0x08, 0x40  # ACE4_INHERIT_ONLY_ACE: not this object's; who is a group
# Rights that let a principal change what a directory's names mean, or give themselves that right: add a file
# (WRITE_DATA) or a subdirectory (APPEND_DATA), delete a child, delete (rename) the directory itself, rewrite
# its ACL or its owner.
_STEER = 0x2 | 0x4 | 0x40 | 0x10000 | 0x40000 | 0x80000
_SPECIAL = {1: "OWNER@", 2: "GROUP@", 3: "EVERYONE@"}  # OpenZFS's ACEI4_SPECIAL_WHO ids
UNREADABLE = "an NFSv4 ACL iolab cannot read"


def nfs4_writers(fd: int, trusted: Callable[[int], bool]) -> list[str]:
    """Who the NFSv4 ACL of the open descriptor `fd` lets change the directory's entries, besides its owner
    (OWNER@: the owner rule judges them) and users `trusted` passes: "EVERYONE@", "GROUP@", "alice@example.com",
    "group staff@example.com", "uid 1000", "gid 100". A file system without such an ACL gives []. One that
    keeps one iolab cannot read or parse gives [UNREADABLE]: the mode bits cannot stand in for it."""
    for name, parse in ((NFS4_CLIENT, parse_nfs4), (NFS4_ZFS, parse_nfs4_zfs)):
        try:
            raw = os.getxattr(f"/proc/self/fd/{fd}", name)
        except OSError as exc:
            if exc.errno in _NOT_KEPT:
                continue
            return [UNREADABLE]
        found = parse(raw, trusted)
        return [UNREADABLE] if found is None else found
    return []


def parse_nfs4(raw: bytes, trusted: Callable[[int], bool]) -> list[str] | None:
    """The writers of an ACL as the NFS client shows it (`nfs4_writers`); None when it is not in that format."""
    words = _Reader(raw)
    count = words.word()
    if count is None or count > len(raw) // 16:  # an entry is at least 16 bytes
        return None
    found: list[str] = []
    for _ in range(count):
        kind, flags, mask, who = words.word(), words.word(), words.word(), words.opaque()
        if kind is None or flags is None or mask is None or who is None:
            return None
        if kind == _ALLOW and mask & _STEER and not flags & _INHERIT_ONLY:
            found += _named(who, bool(flags & _IDENTIFIER_GROUP), trusted)
    return found if words.done() else None


def parse_nfs4_zfs(raw: bytes, trusted: Callable[[int], bool]) -> list[str] | None:
    """The writers of an OpenZFS NFSv4 ACL (`nfs4_writers`); None when it is not in that format."""
    if len(raw) < 8 or (len(raw) - 8) % 20:
        return None
    (count,) = _WORD.unpack_from(raw, 4)
    if count != (len(raw) - 8) // 20:
        return None
    found: list[str] = []
    for at in range(8, len(raw), 20):
        kind, flags, iflag, mask, who = struct.unpack_from(">5I", raw, at)
        if kind != _ALLOW or not mask & _STEER or flags & _INHERIT_ONLY:
            continue
        if iflag & 1:  # ACEI4_SPECIAL_WHO
            special = _SPECIAL.get(who, f"special id {who}")
            found += [] if special == "OWNER@" else [special]
        elif flags & _IDENTIFIER_GROUP:
            found.append(f"gid {who}")
        elif not trusted(who):
            found.append(f"uid {who}")
    return found


def _named(who: bytes, group: bool, trusted: Callable[[int], bool]) -> list[str]:
    """A principal as the NFS client names it: OWNER@ left to the owner rule, a user the local password file
    maps to a trusted uid left out, every group and every other name kept (as the server might map it)."""
    name = who.decode("utf-8", "replace")
    if not name.isprintable() or any(c.isspace() for c in name):  # a name from the server: one line, as it is
        return [repr(name)]  # a newline in it would forge a line of the refusal ("Fix: ...")
    if name == "OWNER@":
        return []
    if name in ("GROUP@", "EVERYONE@"):
        return [name]
    if group:
        return [f"group {name}"]
    local = name.split("@", 1)[0]
    uid = int(local) if local.isdigit() else _uid_of(local)
    return [] if uid is not None and trusted(uid) else [name if not local.isdigit() else f"uid {local}"]


def _uid_of(user: str) -> int | None:
    try:
        return pwd.getpwnam(user).pw_uid
    except KeyError:
        return None


class _Reader:
    """Big-endian XDR words and opaques read in turn from a buffer; None once it runs out."""

    def __init__(self, raw: bytes) -> None:
        self.raw, self.at = raw, 0

    def word(self) -> int | None:
        if self.at + 4 > len(self.raw):
            return None
        (value,) = _WORD.unpack_from(self.raw, self.at)
        self.at += 4
        return int(value)

    def opaque(self) -> bytes | None:
        size = self.word()
        if size is None or self.at + size > len(self.raw):
            return None
        value = self.raw[self.at : self.at + size]
        self.at += (size + 3) // 4 * 4  # XDR pads to four bytes
        return value

    def done(self) -> bool:
        return self.at == len(self.raw)
