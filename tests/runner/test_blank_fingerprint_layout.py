"""Which blocks a device's fingerprint reads (runner.blank.sample_ranges), pinned across versions: the digest
an earlier run kept under $IOLAB_HOME is compared with one read again by this version, so the blocks must be
the very same ones (another spread would make every device iolab wrote last look foreign, and read in full).
Pinned by their count and a digest of the list, for sizes at and past each edge; the sampled check
(`dense_ranges`) likewise."""

from __future__ import annotations

import hashlib
import json

import pytest

from iolab.runner.blank import BLOCK, EDGE_BYTES, dense_ranges, sample_ranges

MIB = 1 << 20


def _pin(ranges: list[tuple[int, int]]) -> tuple[int, str]:
    return len(ranges), hashlib.sha256(json.dumps(ranges).encode()).hexdigest()[:16]


@pytest.mark.parametrize(
    ("size", "sampled", "dense"),
    [
        (1 << 30, (258, "71f89679a257e815"), (1024, "52f67dbe363e6dda")),
        ((1 << 30) + 12345, (258, "a7f9364117fbb09c"), (1025, "9d980efe67627af2")),
        (3 * MIB, (258, "099d585324cdd269"), (3, "203c107ca0308b6b")),  # 256 blocks between: each read once
        (3 * MIB + BLOCK, (258, "aa350de2dd25b48f"), (4, "ea1f898076204b19")),  # 257: spread
        (10**12, (258, "8750cf70af96daf2"), None),  # the sampled check of a 1 TB device: not listed here
    ],
)
def test_a_devices_fingerprint_reads_the_blocks_earlier_versions_read(size, sampled, dense):
    assert _pin(sample_ranges(size)) == sampled
    if dense is not None:
        assert _pin(dense_ranges(size)) == dense


def test_the_ends_are_one_mib_each_and_the_spread_blocks_one_block_each_within_them():
    ranges = sample_ranges(1 << 30)
    assert ranges[:2] == [(0, EDGE_BYTES), ((1 << 30) - EDGE_BYTES, EDGE_BYTES)] and EDGE_BYTES == MIB
    spread = ranges[2:]
    assert len(spread) == 256 and all(length == BLOCK == 4096 for _, length in spread)
    assert all(EDGE_BYTES <= offset and offset + BLOCK <= (1 << 30) - EDGE_BYTES for offset, _ in spread)
