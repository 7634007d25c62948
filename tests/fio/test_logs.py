"""Per-second log parsing on real fio logs (tests/data/fio/logs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iolab.fio.logs import parse_log, read_logs

LOGS = Path(__file__).parent.parent / "data" / "fio" / "logs"


def test_read_logs_finds_every_metric_of_both_jobs():
    samples, raw = read_logs(LOGS, "point")
    assert {s.metric for s in samples} == {"bw", "iops", "lat", "clat", "slat"}
    assert {s.source for s in samples} == {"job1", "job2"}
    assert len(raw) == 10


def test_bandwidth_is_converted_to_bytes_per_second_and_matches_the_summary():
    samples, _ = read_logs(LOGS, "point")
    doc = json.loads((LOGS / "logged.json").read_text())
    per_job_bw = {f"job{i + 1}": job["read"]["bw_bytes"] for i, job in enumerate(doc["jobs"])}
    for source, expected in per_job_bw.items():
        values = [s.value for s in samples if s.metric == "bw" and s.source == source]
        assert values
        assert sum(values) / len(values) == pytest.approx(expected, rel=0.1)


def test_repeated_final_window_keeps_the_first_row_and_bad_lines_are_skipped():
    text = "1000, 100, 0, 0, 0\n2000, 110, 0, 0, 0\n2000, 9999, 0, 0, 0\n1000, 50, 1, 0, 0\ngarbage\n30"
    samples = parse_log(text, "iops", "job1")
    assert [(s.t_ms, s.ddir, s.value) for s in samples] == [
        (1000, "read", 100),
        (2000, "read", 110),
        (1000, "write", 50),
    ]
