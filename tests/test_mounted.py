"""Mounts on which another user decides what a directory's owner and mode say (`iolab.mounted`): a FUSE file
system another user mounted, an SMB share mounted noperm. The path rule refuses a directory on one, whatever its
stat says (a FUSE daemon of uid 65534 can call its root root's own 0755 directory).

Mounting either needs a daemon or a server this machine lacks, so the walk test gives one real directory the
statfs magic and mountinfo line such a mount has (the line in the kernel's own format, as
`Documentation/filesystems/proc.rst` gives it and as sshfs and mount.cifs leave it)."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from iolab import mounted
from iolab.errors import UserError
from iolab.private import write_private
from tests.other_user import root_only, shared_dir, tmpfs_directory

MOUNTINFO = (
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
    "135 27 0:65 / /srv/remote\\040box rw,nosuid,nodev,relatime shared:367 - fuse.sshfs dave@box:/ "
    "rw,user_id=65534,group_id=65534,allow_other\n"
    "136 27 0:66 / /srv/fuse-root rw,nosuid,nodev,relatime - fuse.sshfs root@box:/ rw,user_id=0,group_id=0\n"
    "137 27 0:67 / /mnt/share rw,relatime shared:12 - cifs //nas/share rw,vers=3.1.1,cache=strict,username=bench,"
    "uid=0,noforceuid,gid=0,noforcegid,addr=10.0.0.5,file_mode=0755,dir_mode=0755,soft,nounix,serverino,"
    "mapposix,noperm,rsize=4194304,wsize=4194304,bsize=1048576,echo_interval=60,actimeo=1,closetimeo=1\n"
    "138 27 0:68 / /mnt/share2 rw,relatime - cifs //nas/share rw,vers=3.1.1,uid=0,file_mode=0755,dir_mode=0755\n"
    "139 27 0:69 / /mnt/odd rw - fuse fuse rw,group_id=0\n"
)


def test_the_mount_of_a_device_is_judged_by_its_superblock_options():
    def judged(dev: str) -> str:
        found = mounted.super_options(MOUNTINFO, dev)
        assert found is not None
        return mounted.judge(*found, root_only)

    assert judged("254:0") == ""
    assert (
        judged("0:65")
        == "on a FUSE file system (fuse.sshfs) uid 65534 mounted, whose daemon decides what every name there is"
    )
    assert judged("0:66") == ""  # root's own daemon
    assert judged("0:67") == "on an SMB share (cifs) mounted noperm, where every local user may change every directory"
    assert judged("0:68") == ""  # the client checks its modes for local users
    assert "whose mounting user mountinfo does not say" in judged("0:69")
    assert mounted.super_options(MOUNTINFO, "0:99") is None


def test_generated_option_lists_are_judged_by_the_two_options_alone():
    """1,000 generated superblocks: a problem exactly for FUSE mounted by another user (or by no one it says) and
    for SMB with noperm, wherever those options sit among others."""
    rng = random.Random(56)
    filler = ["rw", "ro", "relatime", "group_id=0", "allow_other", "default_permissions", "vers=3.0", "soft", "uid=0"]
    for _ in range(1000):
        fs_type = rng.choice(["fuse", "fuse.sshfs", "fuseblk", "cifs", "smb3", "ext4", "nfs4", "tmpfs"])
        words = rng.sample(filler, rng.randint(0, len(filler)))
        uid = rng.choice([None, 0, 1000, 65534])
        if uid is not None:
            words.insert(rng.randint(0, len(words)), f"user_id={uid}")
        noperm = rng.random() < 0.5
        if noperm:
            words.insert(rng.randint(0, len(words)), "noperm")
        fuse = fs_type.startswith("fuse")
        expected = (fuse and uid != 0) or (fs_type in ("cifs", "smb3") and noperm)
        assert bool(mounted.judge(fs_type, ",".join(words), root_only)) == expected, (fs_type, words)


@pytest.fixture
def on_mount(monkeypatch) -> Iterator[tuple[Path, list[tuple[int, str]]]]:
    """A real 0755 directory of root's in /tmp, which the test puts on whatever mount the list's last entry says
    (statfs magic, mountinfo line for its device); nothing in the list: its own mount."""
    with shared_dir("iolab-mount-") as shared:
        dev = os.stat(shared).st_dev
        major_minor = f"{os.major(dev)}:{os.minor(dev)}"
        held: list[tuple[int, str]] = []
        real_magic, real_info = mounted._magic, mounted._mountinfo

        def magic(fd: int) -> int | None:
            if held and os.path.realpath(f"/proc/self/fd/{fd}") == str(shared):
                return held[-1][0]
            return real_magic(fd)

        def info() -> str:
            if held:
                return f"140 27 {major_minor} / {shared} rw,relatime - {held[-1][1]}\n"
            return real_info()

        monkeypatch.setattr(mounted, "_magic", magic)
        monkeypatch.setattr(mounted, "_mountinfo", info)
        yield shared, held


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: a directory only root can write, as a root run's is")
def test_a_directory_on_another_user_s_fuse_mount_or_a_noperm_share_is_refused(on_mount):
    shared, held = on_mount
    held.append((mounted.FUSE_MAGIC, "fuse.sshfs dave@box:/ rw,user_id=65534,group_id=65534,allow_other"))
    with pytest.raises(UserError) as refused:
        write_private(shared / "report.json", "{}")
    said, advice = str(refused.value).splitlines()
    assert advice == "Fix: choose a directory only you and root can change"
    assert said == (
        f"{shared}/report.json: {shared} is on a FUSE file system (fuse.sshfs) uid 65534 mounted, whose daemon"
        " decides what every name there is, so another user could redirect what iolab writes there."
    )
    held.append((0xFE534D42, "smb3 //nas/share rw,vers=3.1.1,uid=0,dir_mode=0755,noperm"))
    with pytest.raises(UserError, match="mounted noperm"):
        write_private(shared / "report.json", "{}")
    assert not (shared / "report.json").exists()
    held.append((mounted.FUSE_MAGIC, "fuse.sshfs root@box:/ rw,user_id=0,group_id=0"))  # root's own daemon
    write_private(shared / "report.json", "{}")
    assert (shared / "report.json").read_text() == "{}"


def test_a_tmpfs_directory_is_asked_once_and_passes():
    with tmpfs_directory() as fd:
        assert mounted._magic(fd) == TMPFS_MAGIC
        assert mounted.mount_problem(fd, root_only) == ""


TMPFS_MAGIC = 0x01021994
