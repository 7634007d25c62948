"""The bytes a direction moved, from a fio output without `io_kbytes` (fio 2 wrote `io_bytes` in KiB; fio 3
writes both): on a real fio 2.1.3 output, the figure is read as KiB when it matches bandwidth x runtime in KiB,
as bytes when it matches them in bytes (a file whose version was edited away), and as fio 2 wrote it (KiB)
when there is no bandwidth to check against."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iolab.fio.parse import aggregate, parse_output

PUBLISHED = Path(__file__).parent.parent / "data" / "fio" / "published"
NAME = "yardstick-fio_read_sample_output.json"  # 2166860 "io_bytes" (KiB) at 36113 KiB/s for 60.001 s


def _read_io_bytes(edit) -> tuple[int, dict]:
    doc = json.loads((PUBLISHED / NAME).read_text())
    own = doc["jobs"][0]["read"]
    assert "io_kbytes" not in own
    edit(own)
    output = parse_output(json.dumps(doc), NAME)
    return aggregate(output.groups[0].entries, output.version).directions["read"].io_bytes, own


@pytest.mark.parametrize("bandwidth", ["as written", "none"])
def test_a_fio_2_figure_in_kib_is_read_as_kib(bandwidth):
    def edit(own: dict) -> None:
        if bandwidth == "none":
            own["bw"] = 0

    io_bytes, own = _read_io_bytes(edit)
    assert io_bytes == own["io_bytes"] * 1024 == 2166860 * 1024


def test_a_figure_that_matches_the_bandwidth_in_bytes_is_read_as_bytes():
    def edit(own: dict) -> None:
        own["io_bytes"] *= 1024

    io_bytes, own = _read_io_bytes(edit)
    assert io_bytes == own["io_bytes"] == 2166860 * 1024
