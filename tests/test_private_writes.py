"""iolab's private writes: a file written with the umask's mode gets exactly that mode, and a temporary name that
is taken already is passed over, never opened or removed."""

from __future__ import annotations

import os
import stat

from iolab import private
from iolab.private import AS_UMASK, write_private


def test_a_file_written_as_the_umask_says_has_the_umask_s_mode_and_the_umask_is_kept(tmp_path):
    old = os.umask(0o027)
    try:
        write_private(tmp_path / "shared.txt", "x", mode=AS_UMASK)
        assert os.umask(0o027) == 0o027
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "shared.txt").st_mode) == 0o640
    write_private(tmp_path / "own.txt", b"y")
    assert stat.S_IMODE(os.stat(tmp_path / "own.txt").st_mode) == 0o600 and (tmp_path / "own.txt").read_bytes() == b"y"


def test_a_temporary_name_someone_holds_is_passed_over_and_left_alone(tmp_path, monkeypatch):
    taken = tmp_path / ".out.json.aaaa.tmp"
    taken.write_text("theirs")
    names = iter(["aaaa", "bbbb"])
    monkeypatch.setattr(private.secrets, "token_hex", lambda n: next(names))
    write_private(tmp_path / "out.json", "{}")
    assert (tmp_path / "out.json").read_text() == "{}" and taken.read_text() == "theirs"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.json.aaaa.tmp", "out.json"]
