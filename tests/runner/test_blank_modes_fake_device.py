"""How a device's content is checked as the user asked (runner.blank), on an ordinary file standing in for a
device (opened here, never a real device): `full` reads every byte and finds data the samples miss, `sample`
reads both ends and one block per MiB and says so; without a run's checks the full read is the default."""

from __future__ import annotations

import os

import pytest

from iolab.runner.blank import BlankChecks, _content_problem

MIB = 1 << 20


@pytest.fixture
def device(tmp_path):
    """8 MiB of zeros, and what it is opened as."""
    path = tmp_path / "fake-device"
    path.write_bytes(b"\0" * (8 * MIB))
    return path


def _check(path, checks: BlankChecks | None, home) -> str | None:
    fd = os.open(path, os.O_RDONLY)
    try:
        return _content_problem(fd, "/dev/fake", home, checks)
    finally:
        os.close(fd)


@pytest.mark.parametrize("mode", ["full", "sample"])
def test_zeros_pass_either_way_and_the_acceptance_says_which(device, tmp_path, mode):
    checks = BlankChecks(mode)
    assert _check(device, checks, tmp_path / "home") is None
    (how,) = checks.accepted.values()
    if mode == "full":
        assert how.startswith("blank: read in full, 8.0 MiB in ")
    else:
        assert how == "sampled, not checked in full: both ends and one 4 KiB block per MiB (8 ranges) read as zero"


def test_data_between_the_samples_is_found_only_by_the_full_read(device, tmp_path):
    with open(device, "r+b") as handle:
        handle.seek(MIB + 8192)  # past the first block of its MiB, between the fingerprint's blocks
        handle.write(b"\x01")
    full = _check(device, BlankChecks("full"), tmp_path / "home")
    assert full == (
        f"it holds data (a non-zero byte at offset {MIB + 8192:,}, found reading all of it) that iolab did not"
        " write; if it may go, blank it first with `blkdiscard /dev/fake`"
    )
    assert _check(device, None, tmp_path / "home") == full  # no run's checks: read in full
    sampled = BlankChecks("sample")
    assert _check(device, sampled, tmp_path / "home") is None and list(sampled.accepted) == ["/dev/fake"]


def test_data_in_a_sampled_block_is_refused_before_any_full_read(device, tmp_path):
    with open(device, "r+b") as handle:
        handle.seek(3)
        handle.write(b"\x07")
    checks = BlankChecks("full")
    said = _check(device, checks, tmp_path / "home")
    assert said is not None and "a non-zero byte at offset 3; 1 of 258 sampled ranges are not zero" in said
    assert checks.accepted == {}
