"""A device no bigger than the fingerprint's two 1 MiB ends is read whole, in one range from its start
(runner.blank.sample_ranges): at exactly 2 MiB the ends meet, and two ranges there would count two regions
sampled where there is one device's worth of bytes; just above it the two ends and the blocks between."""

from __future__ import annotations

from iolab.runner.blank import BLOCK, EDGE_BYTES, dense_ranges, sample_ranges


def test_a_device_of_both_ends_or_less_is_one_range_of_its_whole_blocks():
    assert sample_ranges(2 * EDGE_BYTES) == [(0, 2 * EDGE_BYTES)]
    assert sample_ranges(2 * EDGE_BYTES - 1) == [(0, 2 * EDGE_BYTES - BLOCK)]
    assert sample_ranges(BLOCK) == [(0, BLOCK)] and sample_ranges(BLOCK - 1) == []


def test_one_block_more_is_both_ends_and_the_block_between():
    assert sample_ranges(2 * EDGE_BYTES + BLOCK) == [
        (0, EDGE_BYTES),
        (EDGE_BYTES + BLOCK, EDGE_BYTES),
        (EDGE_BYTES, BLOCK),
    ]


def test_the_dense_sample_of_a_small_device_is_its_whole_too():
    assert dense_ranges(2 * EDGE_BYTES) == [(0, 2 * EDGE_BYTES)]
    assert dense_ranges(2 * EDGE_BYTES + BLOCK) == [
        (0, EDGE_BYTES),
        (EDGE_BYTES, BLOCK),
        (EDGE_BYTES + BLOCK, EDGE_BYTES),
    ]
