"""POSIX ACLs in the path rule (`iolab.acl`): a directory whose access ACL lets another user write is refused
naming them and the `setfacl -x` that removes them; a default ACL gives another user no write to what iolab
makes there (0600 files, 0700 directories: the inherited entries are masked by the mode they are made with).
The real `setfacl` on the file system of /tmp; skipped, saying why, where either lacks ACLs."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from iolab import acl, pathchain
from iolab.errors import UserError
from iolab.private import write_private
from tests.other_user import OTHER, as_other_user

USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER_TAG = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20


def _raw(*entries: tuple[int, int, int]) -> bytes:
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *entry) for entry in entries)


def _base(mask: int) -> list[tuple[int, int, int]]:
    return [(USER_OBJ, 7, 0xFFFFFFFF), (GROUP_OBJ, 5, 0xFFFFFFFF), (MASK, mask, 0xFFFFFFFF), (OTHER_TAG, 5, 0xFFFFFFFF)]


def test_named_writers_are_read_with_the_mask_applied_and_root_left_out():
    def trusted(uid: int) -> bool:
        return uid == 0

    entries = [(USER, 7, OTHER), (USER, 7, 0), (GROUP, 6, 100), (USER, 5, 1000)]
    assert acl.parse_writers(_raw(*_base(7), *entries), trusted) == [f"u:{OTHER}", "g:100"]
    assert acl.parse_writers(_raw(*_base(5), *entries), trusted) == []  # `setfacl -n`, or `chmod g-w` after
    assert acl.parse_writers(_raw(*_base(7))[:-3], trusted) == []  # not the kernel's format: the mode bits judge


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: uid 65534 acts as the other user")


@pytest.fixture
def public() -> Iterator[Path]:
    """Root's 0755 directory in /tmp (uid 65534 can reach it; tmp_path's parents are 0700), where ACLs can be set."""
    if shutil.which("setfacl") is None:
        pytest.skip("setfacl is not installed (apt-get install acl)")
    top = Path(tempfile.mkdtemp(prefix="iolab-acl-", dir="/tmp"))
    top.chmod(0o755)
    probe = subprocess.run(["setfacl", "-m", "u:0:rwx", str(top)], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        shutil.rmtree(top, ignore_errors=True)
        pytest.skip(f"the file system of /tmp keeps no ACLs here: {probe.stderr.strip()}")
    subprocess.run(["setfacl", "-b", str(top)], check=True)
    try:
        yield top
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _setfacl(*args: str) -> None:
    subprocess.run(["setfacl", *args], check=True, capture_output=True)


@needs_root
def test_a_directory_whose_acl_lets_another_user_write_is_refused_naming_them(public):
    shared = public / "shared"
    shared.mkdir(mode=0o755)
    _setfacl("-m", f"u:{OTHER}:rwx", str(shared))
    as_other_user(lambda: (shared / "theirs").write_text("uid 65534 can write here"))  # the ACL does grant it
    with pytest.raises(UserError) as refused:
        write_private(shared / "report.json", "{}")
    said, advice = str(refused.value).splitlines()
    assert said == (
        f"{shared}/report.json: {shared} is writable through its ACL by u:{OTHER}, so another user could redirect"
        " what iolab writes there."
    )
    assert advice.startswith(f"Fix: setfacl -x u:{OTHER} {shared} && chmod go-w {shared}")
    assert not (shared / "report.json").exists()
    _setfacl("-x", f"u:{OTHER}", str(shared))  # the fix given
    shared.chmod(0o755)
    pathchain.check(str(shared))


@needs_root
def test_a_default_acl_gives_another_user_no_write_to_what_iolab_makes(public):
    made = public / "made"
    made.mkdir(mode=0o755)
    _setfacl("-d", "-m", f"u:{OTHER}:rwx", str(made))  # on what is made in it, not on itself
    pathchain.check(str(made))
    write_private(made / "report.json", "{}")
    os.close(pathchain.create_file(str(made / "scratch.dat"), os.O_WRONLY))
    pathchain.make_dir(str(made / "work"))
    before = {name: (made / name).read_bytes() for name in ("report.json", "scratch.dat")}

    def attempt() -> None:
        for name in ("report.json", "scratch.dat", "work/planted"):
            try:
                with open(made / name, "ab") as handle:
                    handle.write(b"x")
            except PermissionError:
                continue
            raise AssertionError(f"uid {OTHER} could write {name}")

    as_other_user(attempt)
    assert {name: (made / name).read_bytes() for name in before} == before
