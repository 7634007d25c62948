"""The sampler's read of a /proc file returns the whole file whatever its size relative to its read chunk
(issue 41: the fast tier's /proc files were all smaller than one chunk; a 2,000-disk host's diskstats is
larger than several)."""

from __future__ import annotations

import os

import pytest

from iolab.telemetry.sampler import _READ_CHUNK, _read_all


@pytest.mark.parametrize(
    "size", [0, 1, _READ_CHUNK - 1, _READ_CHUNK, _READ_CHUNK + 1, 2 * _READ_CHUNK, 3 * _READ_CHUNK + 7]
)
def test_the_whole_file_is_read_from_its_start_each_time(tmp_path, size):
    path = tmp_path / "diskstats"
    data = bytes(i % 251 for i in range(size))
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert _read_all(fd) == data
        assert _read_all(fd) == data  # read again from the start, as each tick does
    finally:
        os.close(fd)
