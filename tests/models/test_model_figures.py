"""What models/ gives a page to show, at the edges a user's job meets (issue 41: survivors of the mutation
sample drawn with seed 5813 over models/)."""

from __future__ import annotations

import pytest

from iolab.models.job_options import JobOptions


@pytest.mark.parametrize(("rw", "expected"), [("randtrim", 3072), ("trim", 3072), ("randwrite", 2048), ("read", 1024)])
def test_a_block_size_for_each_direction_takes_its_own_value_and_not_a_fourth(rw, expected):
    """fio reads `bs=1k,2k,3k,4k` as reads, writes, trims (and a fourth value it also parses, with
    `fio --debug=parse`): a trim job's I/O is the third value, 3 KiB."""
    assert JobOptions({"rw": rw, "bs": "1k,2k,3k,4k"}).bs == expected
