"""What the blank check reads, on plain files (O_DIRECT works on them as on a device): the fingerprint's ranges
for every size, the first non-zero byte a whole read or a sample finds, and a read that ends where the data ends.
(test_blank_full.py and test_blank_read.py check real loop devices end to end.)"""

from __future__ import annotations

import random

import pytest

from iolab.runner.blank import (
    BLOCK,
    EDGE_BYTES,
    SPREAD_BLOCKS,
    dense_ranges,
    first_data,
    read_all,
    read_samples,
    sample_ranges,
)

MIB = 1 << 20
SIZES = [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 2 * EDGE_BYTES, 2 * EDGE_BYTES + 1, 2 * EDGE_BYTES + BLOCK, 3 * MIB + 123]
SIZES += random.Random(41).sample(range(2 * EDGE_BYTES, 1 << 28), 30)  # up to 256 MiB: a dense list per MiB


@pytest.mark.parametrize("ranges_of", [sample_ranges, dense_ranges])
def test_every_range_is_aligned_inside_the_device_and_both_ends_are_read(ranges_of):
    for size in SIZES:
        ranges = ranges_of(size)
        usable = size - size % BLOCK
        if usable == 0:
            assert ranges == []
            continue
        assert all(o % BLOCK == 0 and n % BLOCK == 0 and n > 0 and o + n <= usable for o, n in ranges), size
        assert ranges[0][0] == 0 and max(o + n for o, n in ranges) == usable  # the first and the last bytes
        if size > 2 * EDGE_BYTES:
            assert ranges[0] == (0, EDGE_BYTES) and ranges[-1 if ranges_of is dense_ranges else 1][1] == EDGE_BYTES


def test_the_sample_spreads_its_blocks_evenly_and_the_dense_one_takes_each_mib():
    size = 2 * EDGE_BYTES + SPREAD_BLOCKS * MIB
    spread = sample_ranges(size)[2:]
    assert len(spread) == SPREAD_BLOCKS and spread[0] == (EDGE_BYTES, BLOCK)
    assert {b[0] - a[0] for a, b in zip(spread, spread[1:], strict=False)} == {MIB}
    dense = dense_ranges(size)
    assert len(dense) == 2 + SPREAD_BLOCKS and dense[1:-1] == [
        (EDGE_BYTES + i * MIB, BLOCK) for i in range(SPREAD_BLOCKS)
    ]


def _device(tmp_path, size: int, data_at: dict[int, bytes]) -> str:
    path = tmp_path / "device"
    with open(path, "wb") as f:
        f.truncate(size)
        for at, data in data_at.items():
            f.seek(at)
            f.write(data)
    return str(path)


def test_a_whole_read_finds_the_first_non_zero_byte_and_stops_there(tmp_path):
    device = _device(tmp_path, 3 * MIB, {2 * MIB + 77: b"\x01", 2 * MIB + 900: b"\x02"})
    said: list[str] = []
    found = read_all(device, 3 * MIB, said.append)
    assert found.first == 2 * MIB + 77 and found.seconds > 0 and found.rate_mb_s > 0
    assert said == [f"checking {device} is blank: reading all 3.0 MiB of it"]
    assert read_all(_device(tmp_path, 3 * MIB, {}), 3 * MIB, said.append).first is None


def test_a_whole_read_of_a_device_shorter_than_said_ends_at_its_end(tmp_path):
    device = _device(tmp_path, MIB, {})
    found = read_all(device, 4 * MIB, lambda _: None)
    assert found.first is None and found.rate_mb_s == pytest.approx(1.048576 / found.seconds)


def test_samples_are_the_bytes_at_their_offsets_and_the_first_data_is_found_in_them(tmp_path):
    device = _device(tmp_path, 4 * MIB, {MIB + 10: b"\x00\x07", 3 * MIB: b"\x09"})
    samples = read_samples(device, [(0, BLOCK), (MIB, BLOCK), (3 * MIB, BLOCK)])
    assert [(o, len(d)) for o, d in samples] == [(0, BLOCK), (MIB, BLOCK), (3 * MIB, BLOCK)]
    assert samples[1][1][11] == 7 and samples[2][1][0] == 9
    assert first_data(samples) == (MIB + 11, 2)
    assert first_data([(0, bytes(BLOCK))]) is None
    assert read_samples(device, [(4 * MIB, BLOCK)]) == [(4 * MIB, b"")]  # past the end: nothing, not an error
