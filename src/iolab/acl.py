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
"""

from __future__ import annotations

import os
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
