"""What a long full read of a device says while it checks the device is blank (runner.blank._first_data_of_all):
after its first second how far it is, at what rate and how long is left, then every PROGRESS_S; nothing once
the last byte is read; and where the first non-zero byte lies. A file stands in for the device, read in 1 MiB
chunks against a clock that moves half a second a read (PROGRESS_S made 2 s)."""

from __future__ import annotations

import itertools
import os

import pytest

from iolab.runner import blank

MIB = 1 << 20


@pytest.fixture
def clock(monkeypatch):
    ticks = itertools.count()
    monkeypatch.setattr(blank.time, "monotonic", lambda: next(ticks) * 0.5)
    monkeypatch.setattr(blank, "CHUNK", MIB)
    monkeypatch.setattr(blank, "PROGRESS_S", 2.0)


def _read(tmp_path, data: bytes) -> tuple[blank.WholeRead, list[str]]:
    path = tmp_path / "device"
    path.write_bytes(data)
    told: list[str] = []
    fd = os.open(path, os.O_RDONLY)
    try:
        return blank._first_data_of_all(fd, len(data), told.append, 0.0, 1.0), told
    finally:
        os.close(fd)


def test_a_blank_read_says_how_far_it_is_after_a_second_then_every_few_seconds(tmp_path, clock):
    read, told = _read(tmp_path, bytes(11 * MIB))
    assert told == [
        "  27% read, 3 MB/s, about 3 s left",  # the clock reads 0 at the first chunk: 3 MiB by 1 s, 8 MiB left
        "  64% read, 2 MB/s, about 2 s left",  # 2 s later: 7 MiB in 3 s
    ]  # and at the last chunk, 2 s later again, nothing: the read is done
    assert read.first is None and read.seconds == 5.5 and read.rate_mb_s == pytest.approx(11 * MIB / 1e6 / 5.5)


def test_the_first_non_zero_byte_ends_the_read_where_it_lies(tmp_path, clock):
    data = bytearray(8 * MIB)
    data[3 * MIB + 17] = 1
    read, told = _read(tmp_path, bytes(data))
    assert read.first == 3 * MIB + 17 and told == ["  38% read, 3 MB/s, about 2 s left"] and read.seconds == 2.0
