"""Blank means what it says (issue 39, observation 3): a device is read in full before iolab first writes it,
so 64 KiB of data with no signature between any two sampled blocks is refused; sampling is the user's choice
and the run then says it was sampled."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pytest

from iolab.runner.blank import dense_ranges, sample_ranges
from tests.iolab_cli import assert_clean_error, iolab
from tests.loopdev import loop_devices, loop_skip_reason

needs_loop = pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
MIB = 1 << 20
DEVICE = 256 * MIB
DATA = 64 << 10


def _digest(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _seen_by(ranges: list[tuple[int, int]], at: int) -> bool:
    return any(offset < at + DATA and at < offset + length for offset, length in ranges)


def test_sampling_reads_both_ends_and_a_block_in_every_mib():
    for size in (3 * MIB, DEVICE, DEVICE + 4096 * 3, 10 * 2**30):
        ranges = dense_ranges(size)
        assert ranges[0] == (0, MIB) and ranges[-1][0] + ranges[-1][1] >= size - 4096
        starts = [o for o, _ in ranges]
        assert all(b - a <= MIB for a, b in zip(starts, starts[1:], strict=False)), size


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    path = tmp_path / "write.toml"
    path.write_text('[options]\nrw = "write"\nbs = "1m"\nrate = "32m"\ntime_based = 1\nruntime = "1s"\n')
    return path


@needs_loop
@pytest.mark.parametrize("at", [102 * MIB, 102 * MIB + 512 * 1024])
def test_data_between_the_fingerprint_s_blocks_is_refused_by_the_full_read(plan, at):
    """At 102 MiB (the issue's place) and half a MiB further: neither is in a fingerprint block, so only
    reading every byte finds them; exit 2 naming the offset, the device unchanged."""
    assert not _seen_by(sample_ranges(DEVICE), at)
    with loop_devices(1, size_mib=DEVICE // MIB) as (dev,):
        with open(dev.backing, "r+b") as handle:
            handle.seek(at)
            # the first byte non-zero: random data starts with a zero one time in 256, and the refusal names the
            # first non-zero byte (the project's CI, stop 61: "offset 107,479,041")
            handle.write(b"\xa5" + os.urandom(DATA - 1))
        before = _digest(dev.backing)
        err = assert_clean_error(iolab("run", str(plan), dev.path, "--allow-write", "--no-telemetry", "--ramp", "0"))
        assert "holds data" in err and f"offset {at:,}" in re.sub(r"\s+", " ", err), err
        sampled = iolab("run", str(plan), dev.path, "--allow-write", "--verify-blank", "sample", "--dry-run")
        if _seen_by(dense_ranges(DEVICE), at):  # one block per MiB lands on it: sampling refuses it too
            assert "holds data" in assert_clean_error(sampled)
        else:  # what sampling can miss: it says it only sampled, and the full read (the default) is what saw it
            assert sampled.returncode == 0, sampled.stderr
            assert "sampled, not checked in full" in sampled.stdout + sampled.stderr
        assert _digest(dev.backing) == before


@needs_loop
def test_a_blank_device_is_read_in_full_and_iolab_s_own_write_passes_by_its_fingerprint(plan):
    with loop_devices(1, size_mib=32) as (dev,):
        run = ["run", str(plan), dev.path, "--allow-write", "--no-telemetry", "--ramp", "0"]
        first = iolab(*run)
        assert first.returncode == 0, first.stderr
        assert re.search(rf"{dev.path}: blank: read in full, 32(\.0)? MiB in [\d.]+ s \([\d,]+ MB/s\)", first.stderr)
        again = iolab(*run, "--verify-blank", "sample")
        assert again.returncode == 0, again.stderr
        assert f"{dev.path}: iolab wrote it last" in again.stderr
        assert "sampled" not in again.stderr


@needs_loop
def test_sampling_is_said_and_a_mode_that_is_not_one_is_refused(plan):
    with loop_devices(1, size_mib=32) as (dev,):
        sampled = iolab("run", str(plan), dev.path, "--allow-write", "--verify-blank", "sample", "--no-telemetry")
        assert sampled.returncode == 0, sampled.stderr
        assert f"{dev.path}: sampled, not checked in full" in sampled.stderr
        assert "holds" not in sampled.stderr
    wrong = assert_clean_error(iolab("run", str(plan), "/dev/null", "--verify-blank", "some"))
    assert "--verify-blank 'some'" in wrong
