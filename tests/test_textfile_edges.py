"""Reading a user's input file at its edges (issue 41 item 8): an empty file, one of exactly the limit and one
byte more, a sparse file past the default 256 MiB, a directory and a FIFO (refused without waiting for a
writer), a byte-order mark, and where the first byte that is not UTF-8 sits."""

from __future__ import annotations

import os

import pytest

from iolab.errors import UserError
from iolab.textfile import MAX_INPUT_BYTES, Refused, read_input, read_regular


def test_an_empty_file_is_empty_text(tmp_path):
    empty = tmp_path / "empty.toml"
    empty.write_bytes(b"")
    assert read_regular(empty) == b"" and read_input(empty, "plan") == ""


@pytest.mark.parametrize("size", [1, 4095, 4096, (1 << 20) + 3, 3 << 20])
def test_a_file_up_to_the_limit_is_read_whole_and_one_byte_more_is_refused(tmp_path, size):
    data = os.urandom(size)
    path = tmp_path / "data"
    path.write_bytes(data)
    assert read_regular(path, limit=size) == data  # read in parts of at most 1 MiB after the first
    with pytest.raises(Refused) as refused:
        read_regular(path, limit=size - 1)
    assert (refused.value.kind, refused.value.size) == ("too large", size)


def test_the_default_limit_is_256_mib_and_the_refusal_says_both_sizes(tmp_path):
    big = tmp_path / "huge.json"
    with open(big, "wb") as handle:
        handle.truncate(MAX_INPUT_BYTES + (1 << 20))  # sparse: no disk
    assert MAX_INPUT_BYTES == 256 * 2**20
    with pytest.raises(UserError, match=f"fio output {big} is 257 MiB; iolab reads at most 256 MiB"):
        read_input(big, "fio output")


def test_a_directory_or_a_fifo_is_refused_by_what_it_is(tmp_path):
    with pytest.raises(UserError, match=f"cannot read plan {tmp_path}: it is a directory; give a file"):
        read_input(tmp_path, "plan")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match="it is not a regular file; give a file"):
        read_input(fifo, "plan")  # opened without blocking: no writer needed to be refused
    with pytest.raises(UserError, match=f"cannot read plan {tmp_path / 'none'}: No such file or directory"):
        read_input(tmp_path / "none", "plan")


def test_a_byte_order_mark_is_not_the_text_s_and_a_byte_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "plan.toml"
    path.write_bytes(b"\xef\xbb\xbfname = 1\n")
    assert read_input(path, "plan") == "name = 1\n"
    path.write_bytes(b"name = 1\n\xff")
    with pytest.raises(UserError, match=r"plan .* is not UTF-8 text \(byte 9\); give the file as text"):
        read_input(path, "plan")
