"""Merged-histogram percentiles against the truth: every I/O's latency logged by fio."""

from __future__ import annotations

import math
import shutil
import subprocess

import pytest

from iolab.fio.logs import read_logs
from iolab.fio.parse import aggregate, parse_output

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")


def test_merged_percentiles_match_exact_percentiles_of_all_ios(tmp_path):
    data = tmp_path / "data"
    data.write_bytes(b"\0" * (16 << 20))
    subprocess.run(
        [
            "fio",
            "--output-format=json+",
            f"--output={tmp_path / 'out.json'}",
            "--name=p",
            f"--filename={data}",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=libaio",
            "--iodepth=2",
            "--numjobs=3",
            "--time_based",
            "--runtime=1",
            "--rate_iops=1500",
            "--lat_percentiles=1",
            f"--write_lat_log={tmp_path / 'io'}",
        ],
        check=True,
        capture_output=True,
    )
    out = parse_output((tmp_path / "out.json").read_text())
    latency = aggregate(out.groups[0].entries).directions["read"].latency
    every_io = sorted(v for s in read_logs(tmp_path, "io") if s.metric == "lat" for v in s.values.tolist())
    assert len(every_io) == latency.count  # without log_avg_msec fio logs each I/O
    for p in (50.0, 90.0, 99.0):
        exact = every_io[max(math.ceil(p / 100 * len(every_io)) - 1, 0)]
        # fio's histogram buckets have a relative width of at most 1/64.
        assert latency.percentiles[p] == pytest.approx(exact, rel=1 / 32), p
