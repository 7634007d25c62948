"""fio's status blocks read back from a real --status-interval=1 output file (see tests/data/fio/stopping)."""

from __future__ import annotations

from pathlib import Path

from iolab.fio.status import StatusReader, counters, rates

DATA = Path(__file__).parents[1] / "data" / "fio" / "stopping" / "status-interval.json"


def test_status_blocks_give_per_second_rates(tmp_path: Path) -> None:
    text = DATA.read_text()
    out = tmp_path / "fio.json"
    out.write_text(text[: len(text) // 2])  # fio is still writing: the half block waits for the next poll
    reader = StatusReader(out)
    first = reader.poll()
    out.write_text(text)
    rest = reader.poll()
    assert len(first) + len(rest) == text.count('"fio version"') >= 3
    blocks = [c for c in (counters(d) for d in reader.documents) if c is not None]
    per_second = rates(blocks)
    assert all(1900 < r < 2100 for r in per_second[:-1])  # rate_iops=2000
    assert blocks[-1].ios["read"] == reader.documents[-1]["jobs"][0]["read"]["total_ios"]
