"""The blank check's fingerprint and sample read no block twice, at every size: the fingerprint spread 256
offsets over the blocks between its two 1 MiB ends, so on a device just over 2 MiB several offsets aligned onto
one block (or onto the last end), and a block was read, and digested, up to 256 times."""

from __future__ import annotations

import random

import pytest

from iolab.runner.blank import BLOCK, EDGE_BYTES, SPREAD_BLOCKS, dense_ranges, sample_ranges

MIB = 1 << 20
# Every size from 2 MiB to 2 MiB + 1 MiB + 2 blocks, block by block, each also one byte over and one under
# (the sizes where the blocks between the ends are fewer than the spread), and random sizes up to 1 TiB.
EDGE_SIZES = [2 * EDGE_BYTES + k * BLOCK + d for k in range(SPREAD_BLOCKS + 3) for d in (-1, 0, 1, BLOCK // 2)]
RANDOM_SIZES = random.Random(7).sample(range(BLOCK, 1 << 40), 300)
DENSE_SIZES = random.Random(8).sample(range(BLOCK, 1 << 34), 20)  # a range per MiB: up to 16 GiB


def _overlaps(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Each range that starts before the one below it ends (aligned ranges: a block read twice)."""
    ordered = sorted(ranges)
    return [b for a, b in zip(ordered, ordered[1:], strict=False) if b[0] < a[0] + a[1]]


def _blocks(ranges: list[tuple[int, int]]) -> int:
    return sum(length // BLOCK for _, length in ranges)


@pytest.mark.parametrize(("ranges_of", "sizes"), [(sample_ranges, RANDOM_SIZES), (dense_ranges, DENSE_SIZES)])
def test_no_block_is_read_twice(ranges_of, sizes):
    for size in EDGE_SIZES + sizes:
        assert _overlaps(ranges_of(size)) == [], size


def test_the_fingerprint_reads_its_spread_blocks_or_every_block_between_its_ends_when_fewer():
    for size in EDGE_SIZES + RANDOM_SIZES:
        if size <= 2 * EDGE_BYTES:
            continue
        between = (size - size % BLOCK - 2 * EDGE_BYTES) // BLOCK
        assert _blocks(sample_ranges(size)) == 2 * EDGE_BYTES // BLOCK + min(between, SPREAD_BLOCKS), size
