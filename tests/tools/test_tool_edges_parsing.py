"""Tool outputs at their edges, from the real files under tests/data edited one line each (issue 41:
`bench/mutation.py --whole` found these held by no fast test): IOzone's timer resolution at its bounds, an
mdtest `Path:` line whose directory holds a colon, and a throughput figure without a duration."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.tools import iozone, mdtest
from iolab.tools.model import throughput

DATA = Path(__file__).parent.parent / "data"
IOZONE = (DATA / "iozone" / "iozone2csv-iozone-3.434-a.txt").read_text()
MDTEST = (DATA / "mdtest" / "akrr-v1-mdtest-1.9.3.txt").read_text()


@pytest.mark.parametrize(("seconds", "possible"), [("0.000001", True), ("1", True), ("1.000001", False), ("0", False)])
def test_iozone_s_time_resolution_is_above_zero_and_at_most_a_second(seconds, possible):
    text = IOZONE.replace("Time Resolution = 0.000001 seconds", f"Time Resolution = {seconds} seconds")
    assert text != IOZONE or seconds == "0.000001"
    if possible:
        assert len(iozone.parse(text, "a").points) == 13 * 8
    else:
        with pytest.raises(UserError, match=rf"time resolution {seconds} s is not possible"):
            iozone.parse(text, "a")


def test_an_mdtest_path_holding_a_colon_is_read_whole():
    """mdtest 1.9 prints the directory after `Path: `; a directory may hold a colon (a Lustre or NFS-style
    `server:/export` mount name), and only the first colon is the label's."""
    assert "Path: /gpfs/scratch/xdtas/edge12core" in MDTEST
    text = MDTEST.replace("Path: /gpfs/scratch/xdtas/edge12core", "Path: /gpfs/scratch/run:3/edge12core")
    targets = {p.target for p in mdtest.parse(text, "m").points}
    assert targets == {"/gpfs/scratch/run:3/edge12core"}


@pytest.mark.parametrize("seconds", [0.0, -1.0, math.nan, math.inf])
def test_a_figure_without_a_duration_has_no_runtime_and_no_count(seconds):
    """A tool that printed a rate but no time it ran: neither a runtime nor an operation count is made up."""
    direction = throughput("read", 5e8, 1000.0, seconds, 2, "ior-3.3.0", io_bytes=4096).directions["read"]
    assert (direction.runtime_ms, direction.total_ios, direction.io_bytes) == (0, 0, 4096)


def test_a_figure_with_a_duration_counts_its_operations_and_bytes():
    direction = throughput("write", 5e8, 1000.0, 2.5, 2, "ior-3.3.0").directions["write"]
    assert (direction.runtime_ms, direction.total_ios, direction.io_bytes) == (2500, 2500, 1_250_000_000)
    assert throughput("write", 5e8, 1000.0, 0.0004, 2, "x").directions["write"].runtime_ms == 0  # rounds to none
