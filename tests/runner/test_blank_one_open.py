"""The blank check opens the device once and reads its size, its key and every byte it judges through that one
descriptor: opened by name for each (size, samples, the full read, the key), a name switched to another device
between two opens made the check judge the device the name had become while the size (or the refusal) was the
first one's. Here a link is switched from a file holding data to a blank one right after the check's first open
of it; plain files stand in for devices (O_DIRECT works on them as on a device)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from iolab.runner import blank

MIB = 1 << 20
SIZE = 4 * MIB + 12 * 1024  # the fingerprint's spread blocks miss the block at 2 MiB; the dense sample reads it
DATA_AT = 2 * MIB + 5  # so only the full read or the dense sample finds this byte: every read goes through


def _file(path: Path, data_at: int | None) -> Path:
    with open(path, "wb") as f:
        f.truncate(SIZE)
        if data_at is not None:
            f.seek(data_at)
            f.write(b"\x07")
    return path


@pytest.fixture
def switching(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    """A link to a file holding one byte of data; after the first open of the link it points to a blank file.
    Returns the link and every path opened."""
    holding, empty = _file(tmp_path / "holding", DATA_AT), _file(tmp_path / "blank", None)
    link = tmp_path / "device"
    link.symlink_to(holding)
    opened: list[str] = []
    real_open = os.open

    def open_then_switch(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        opened.append(str(path))
        if str(path) == str(link) and opened.count(str(link)) == 1:
            link.unlink()
            link.symlink_to(empty)
        return fd

    monkeypatch.setattr(blank.os, "open", open_then_switch)
    return link, opened


@pytest.mark.parametrize("mode", ["full", "sample"])
def test_the_check_judges_the_device_it_opened_first_and_opens_it_once(tmp_path, switching, mode):
    link, opened = switching
    with blank.verifying(mode):
        problem = blank.content_problem(str(link), tmp_path / "home")
    assert problem is not None and f"holds data (a non-zero byte at offset {DATA_AT:,}" in problem
    assert opened.count(str(link)) == 1


def test_what_a_run_leaves_is_keyed_and_digested_from_one_open(tmp_path, switching):
    link, opened = switching
    blank.remember_written([str(link)], tmp_path / "home")
    assert opened.count(str(link)) == 1
    (kept,) = blank._marks(tmp_path / "home").values()
    with blank._descriptor(str(tmp_path / "holding")) as fd:
        assert kept == blank.digest(blank.read_samples(fd, blank.sample_ranges(SIZE)))
