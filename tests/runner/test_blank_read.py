"""The full read of the blank check (`blank.read_all`): the first non-zero byte wherever it lies, across
chunk boundaries, and what it says before it starts."""

from __future__ import annotations

import pytest

from iolab.runner.blank import CHUNK, read_all

SIZE = 2 * CHUNK + (1 << 20)  # three reads, the last one short


@pytest.mark.parametrize("at", [0, 4095, CHUNK - 1, CHUNK, 2 * CHUNK + 12345, SIZE - 1, None])
def test_the_first_non_zero_byte_is_found_wherever_it_lies(tmp_path, at):
    disk = tmp_path / "disk"
    with open(disk, "wb") as f:
        f.truncate(SIZE)
        if at is not None:
            f.seek(at)
            f.write(b"\x01")
            f.seek(SIZE - 1 if at != SIZE - 1 else 0)  # a second byte after (or before) it: the first is named
            f.write(b"\x02")
    said: list[str] = []
    found = read_all(str(disk), SIZE, said.append)
    assert found.first == (0 if at == SIZE - 1 else at)
    assert said[0] == f"checking {disk} is blank: reading all 33.0 MiB of it"
    assert found.rate_mb_s > 0
