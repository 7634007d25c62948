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


def test_a_device_whose_size_reads_as_nothing_is_never_blank(tmp_path):
    """A node /sys has no size for read as 0 bytes, and 0 bytes read passed as blank: the size comes from
    the node itself, and a size of 0 is refused in words (checksums: nothing written)."""
    from iolab.runner.blank import content_problem

    holding = tmp_path / "holding"  # a name /sys/class/block has no entry for
    holding.write_bytes(b"\0" * 8192 + b"data" + b"\0" * 8188)
    before = holding.read_bytes()
    assert "holds data" in (content_problem(str(holding), tmp_path / "home") or "")
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert "0 bytes" in (content_problem(str(empty), tmp_path / "home") or "")
    assert holding.read_bytes() == before
