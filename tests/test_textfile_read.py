"""`textfile.read_regular`: a regular file read whole by its size, on past it when it grew, never more than the
limit and one byte; anything else refused at once, without blocking."""

from __future__ import annotations

import os
import threading

import pytest

from iolab import textfile
from iolab.textfile import Refused, read_regular


def test_a_file_that_grew_since_its_size_was_taken_is_read_whole(tmp_path, monkeypatch):
    path = tmp_path / "out.json"
    data = os.urandom(3 << 20)
    path.write_bytes(data)
    real = os.fstat

    def earlier(fd: int) -> os.stat_result:  # as fstat saw it before the file grew to 3 MiB
        info = real(fd)
        return os.stat_result((info.st_mode, *info[1:6], 1000, *info[7:]))

    monkeypatch.setattr(textfile.os, "fstat", earlier)
    assert read_regular(path) == data


def test_no_more_than_the_limit_and_one_byte(tmp_path, monkeypatch):
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 5000)
    with pytest.raises(Refused) as refused:
        read_regular(path, limit=100)
    assert refused.value.kind == "too large" and refused.value.size == 5000
    real = os.fstat
    monkeypatch.setattr(textfile.os, "fstat", lambda fd: os.stat_result((*real(fd)[:6], 50, *real(fd)[7:])))
    assert len(read_regular(path, limit=100)) == 101  # grown past the limit after fstat: cut there


def test_a_fifo_or_a_directory_is_refused_at_once_and_a_link_is_followed(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(_refusal(fifo)), daemon=True)
    reader.start()
    reader.join(5)
    assert got == ["not a regular file"], "a FIFO blocked the read or was read"
    assert _refusal(tmp_path) == "a directory"
    (tmp_path / "real.json").write_text("{}")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    assert read_regular(tmp_path / "link.json") == b"{}"


def _refusal(path) -> str:
    try:
        read_regular(path)
    except Refused as exc:
        return exc.kind
    return "read"
