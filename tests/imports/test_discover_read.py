"""How `discover` reads a file: whole, by its size, and on past it when the file grew since `fstat`."""

from __future__ import annotations

import importlib
import os

# the module, not the function `iolab.imports` exports under the same name
discover = importlib.import_module("iolab.imports.discover")


def test_a_file_is_read_whole_even_when_it_grew_since_its_size_was_taken(tmp_path):
    path = tmp_path / "out.json"
    data = os.urandom(3 << 20)
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert discover._whole(fd, 1000) == data  # fstat said 1,000 bytes; 3 MiB are there by the read
    finally:
        os.close(fd)


def test_no_more_than_the_cap_and_one_byte_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(discover, "MAX_INPUT_BYTES", 100)
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 5000)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert len(discover._whole(fd, 5000)) == 101
    finally:
        os.close(fd)
