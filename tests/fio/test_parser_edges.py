"""Tests that kill mutants bench/mutation.py found alive in fio's parsers: cases the other tests of these
modules never reached (jobs with different means pooled, a status block without runtime or bytes,
rates in I/O per second to the digit, a terse file's missing timestamp)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from iolab.fio.parse import _pooled_stddev
from iolab.fio.status import Counters, counters, rates
from iolab.fio.terse import parse_terse

DATA = Path(__file__).resolve().parent.parent / "data" / "fio"


def test_jobs_with_different_means_pool_their_spread_around_the_common_mean():
    """Two jobs of 2 samples each, means 0 and 10, no spread within: every sample is 5 from the mean 5."""
    assert _pooled_stddev([2, 2], [0.0, 10.0], [0.0, 0.0]) == pytest.approx(math.sqrt(4 * 25 / 3))


def test_a_status_block_without_runtime_or_bytes_counts_them_as_zero():
    block = counters({"jobs": [{"jobname": "j", "read": {"total_ios": 7}}]})
    assert block is not None
    assert block.runtime_ms == 0.0
    assert block.ios["read"] == 7 and block.io_bytes["read"] == 0


def test_rates_are_ios_per_second_to_the_digit():
    blocks = [Counters(1000.0, {"read": 500}, {}), Counters(3000.0, {"read": 2500}, {})]
    assert rates(blocks) == [500.0, 1000.0]


def test_terse_output_has_no_timestamp():
    text = next(iter(sorted((DATA / "terse").glob("terse-v*.txt")))).read_text()
    assert parse_terse(text, "terse").timestamp_ms == 0


def test_a_document_after_fios_own_warning_lines_is_found():
    """fio prints notes before its JSON on stdout ("note: both iodepth >= 1 and synchronous I/O engine are
    selected, queue depth will be capped at 1"): the document after them is the one parsed, not an error."""
    from iolab.fio.parse import parse_output

    text = (DATA / "randread-4jobs.json").read_text()
    note = "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n"
    plain, noted = parse_output(text), parse_output(note + text)
    assert [g.name for g in noted.groups] == [g.name for g in plain.groups]
    assert len(noted.groups[0].entries) == len(plain.groups[0].entries) == 4
