"""The shared pieces every tool parser hands its figures through (`iolab.tools.model`), over generated figures
and at their bounds (issue 41: held only through three parsers' real files, where every time is positive and
every size a round MiB, a size suffix or a rate bound moved by one, or a missing CPU figure, passed)."""

from __future__ import annotations

import math
import random

import pytest

from iolab.errors import UserError
from iolab.tools.model import MAX_RATE, Columns, command_tokens, count, number, rate, size_text, throughput


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0"),
        (1, "1"),
        (1023, "1023"),
        (1024, "1k"),
        (1536, "1536"),
        (3 << 10, "3k"),
        (1 << 20, "1m"),
        ((1 << 20) + 1024, "1025k"),
        (5 << 30, "5g"),
        ((1 << 30) * 3 // 2, "1536m"),
    ],
)
def test_a_size_is_written_in_the_largest_unit_it_is_a_whole_number_of(n, text):
    assert size_text(n) == text


def test_generated_sizes_read_back_as_the_same_bytes():
    rng = random.Random(41)
    scale = {"g": 1 << 30, "m": 1 << 20, "k": 1 << 10}
    for _ in range(200):
        n = rng.choice([rng.randrange(1, 1 << 12), rng.randrange(1, 1 << 12) << rng.choice([10, 20, 30])])
        text = size_text(n)
        assert (int(text[:-1]) * scale[text[-1]] if text[-1] in scale else int(text)) == n
        if text[-1] in scale and text[-1] != "g":
            assert int(text[:-1]) % 1024 != 0  # never 1024m where 1g is meant


@pytest.mark.parametrize("seconds", [0.5, 2.0, 61.25])
def test_a_throughput_result_takes_its_runtime_operations_and_bytes_from_the_time(seconds):
    result = throughput("write", 2e8, 400.0, seconds, 4, "IOR-4.0")
    d = result.directions["write"]
    assert (d.bw_bytes, d.iops, d.runtime_ms) == (2e8, 400.0, round(seconds * 1000))
    assert (d.total_ios, d.io_bytes) == (round(400.0 * seconds), round(2e8 * seconds))
    assert (result.usr_cpu, result.sys_cpu, result.jobs, result.fio_version) == (0.0, 0.0, 4, "IOR-4.0")
    given = throughput("write", 2e8, 400.0, seconds, 4, "IOR-4.0", io_bytes=12345)
    assert given.directions["write"].io_bytes == 12345  # the bytes the tool printed win


@pytest.mark.parametrize("seconds", [0.0, -1.0, math.nan, math.inf])
def test_without_a_positive_time_nothing_is_made_up(seconds):
    d = throughput("read", 1e8, 50.0, seconds, 1, "mdtest", io_bytes=7).directions["read"]
    assert (d.bw_bytes, d.iops, d.total_ios, d.io_bytes, d.runtime_ms) == (1e8, 50.0, 0, 7, 0)


def test_a_time_under_half_a_millisecond_counts_no_operations():
    d = throughput("read", 1e8, 1e6, 0.0004, 1, "IOzone").directions["read"]
    assert (d.runtime_ms, d.total_ios) == (0, 0)


def test_a_rate_from_zero_to_the_bound_is_taken_and_past_it_refused():
    assert rate(0.0, "bw", "f") == 0.0 and rate(MAX_RATE, "bw", "f") == MAX_RATE
    for bad in (-1e-9, MAX_RATE * 1.0001, math.inf, math.nan):
        with pytest.raises(UserError, match=r"^f: bw .* is not a possible figure; is the file damaged\?$"):
            rate(bad, "bw", "f")


def test_numbers_and_counts_name_their_source_and_what_they_are():
    assert number("1.5", "time", "out.txt") == 1.5 and count("3", "tasks", "out.txt") == 3
    assert count("1", "tasks", "out.txt", low=1) == 1
    with pytest.raises(UserError, match="out.txt: tasks"):
        count("0", "tasks", "out.txt", low=1)
    with pytest.raises(UserError, match="out.txt: tasks"):
        count("-1", "tasks", "out.txt")
    with pytest.raises(UserError, match="out.txt: time"):
        number("nan", "time", "out.txt")


def test_a_missing_column_is_the_files_fault_in_one_line():
    row = Columns({"Mean(s)": "1.0"}, "IOR's summary table", "run.txt")
    assert row["Mean(s)"] == "1.0" and row.get("Max(s)") is None
    with pytest.raises(UserError, match=r"^run.txt: IOR's summary table has no Max\(s\) column; is the file"):
        row["Max(s)"]


def test_a_command_line_is_split_as_a_shell_would_else_on_spaces():
    assert command_tokens("mdtest -d '/mnt/a b' -n 10") == ["mdtest", "-d", "/mnt/a b", "-n", "10"]
    assert command_tokens("ior -o 'unbalanced -b 1m") == ["ior", "-o", "'unbalanced", "-b", "1m"]
