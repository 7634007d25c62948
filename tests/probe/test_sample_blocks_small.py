"""Which blocks of a target hold data (probe.snapshot.sample_blocks, read for FIO-UNWRITTEN-READ): a target of
one 4 KiB block is sampled (that one block), one of less than a block cannot be, and zeros are told from data
at every size, the last block included."""

from __future__ import annotations

import pytest

from iolab.probe.snapshot import SAMPLED_BLOCKS, sample_blocks

BLOCK = 4096


@pytest.mark.parametrize(
    ("blocks", "data_at", "expected"),
    [
        (1, {0}, (1, 1)),  # one block holding data
        (1, set(), (1, 0)),  # one block never written: zeros
        (2, {1}, (2, 1)),  # the last block is sampled too
        (3, {0, 2}, (3, 2)),
        (SAMPLED_BLOCKS * 4, set(range(0, SAMPLED_BLOCKS * 4, 8)), (SAMPLED_BLOCKS, SAMPLED_BLOCKS // 2)),
    ],
)
def test_a_small_target_is_sampled_block_by_block(tmp_path, blocks, data_at, expected):
    target = tmp_path / "target"
    target.write_bytes(b"".join((b"\x01" * BLOCK if i in data_at else bytes(BLOCK)) for i in range(blocks)))
    assert sample_blocks(str(target)) == expected


def test_a_target_of_less_than_a_block_or_none_cannot_be_sampled(tmp_path):
    (tmp_path / "small").write_bytes(b"\x01" * (BLOCK - 1))
    assert sample_blocks(str(tmp_path / "small")) == (None, None)
    assert sample_blocks(str(tmp_path / "missing")) == (None, None)
