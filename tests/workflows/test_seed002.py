"""Seed 002, an SPDK initiator's queue-depth tables, as its engineer's session: a QD sweep with repeats,
side figures beside fio's (the wire's bandwidth, a metric command standing for "Bufs in-flight"), and the
Markdown table the seed pastes into its report: one row per queue depth, the repeats summarised.

The wire is the loopback interface with 20 MB/s pushed through it meanwhile (`tests.loopback`).
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests import in_process
from tests.iolab_cli import iolab
from tests.loopback import Loopback
from tests.loopdev import loop_devices

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")

QDS = [1, 4, 16, 32]
PLAN = """name = "qd-table"
repeat = 3
metrics = { bufs_in_flight = "echo 64" }
[options]
rw = "randread"
bs = "4k"
ioengine = "libaio"
runtime = 1
ramp_time = 0
time_based = 1
[axes]
iodepth = [1, 4, 16, 32]
"""


def test_a_qd_table_with_repeats_and_side_figures_in_markdown(tmp_path, iolab_home):
    plan = tmp_path / "qd.toml"
    plan.write_text(PLAN)
    data = tmp_path / "data"
    data.mkdir()
    with Loopback(20e6):
        proc = iolab("run", str(plan), str(data), "--size", "32M", "--allow-commands", "-q", timeout=240)
    assert proc.returncode == 0, proc.stderr

    md = in_process.iolab("report", "last", "-f", "md")
    assert md.returncode == 0, md.stderr
    lines = md.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("| iodepth |"))
    header = [c.strip() for c in lines[at].strip("|").split("|")]
    rows = []
    for line in lines[at + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True)))
    for column in ("MB/s", "mean lat", "BW stddev MB/s", "lo rx MB/s", "bufs\\_in\\_flight mean", "repeats"):
        assert column in header, (column, header)
    assert [int(r["iodepth"]) for r in rows] == QDS  # one row per queue depth, in order
    assert all(r["repeats"] == "3" and r["bufs\\_in\\_flight mean"] == "64 ± 0" for r in rows), rows
    assert all(r["bufs\\_in\\_flight max"] == "64 ± 0" for r in rows), rows
    assert all(" ± " in r["MB/s"] for r in rows)  # a mean of three repeats with its spread
    assert all(5 <= float(r["lo rx MB/s"].split(" ± ")[0]) <= 40 for r in rows), rows

    # every repeat kept as its own point, summarised from the samples: the table's mean is theirs
    points = json.loads(in_process.iolab("report", "last", "-f", "json").stdout)["points"]
    assert len(points) == len(QDS) * 3
    qd32 = [p for p in points if p["options"]["iodepth"] == "32"]
    mean = sum(p["result"]["directions"]["read"]["bw_bytes"] for p in qd32) / 3 / 1e6
    shown = float(rows[-1]["MB/s"].split(" ± ")[0])
    assert shown == pytest.approx(mean, rel=0.01, abs=0.05)


GAUGE_PLAN = """name = "in-flight"
metrics = {{ bufs_in_flight = ["sh", "-c", "find /proc/[0-9]*/fd -lname /dev/{name} 2>/dev/null | wc -l"] }}
[options]
rw = "randread"
bs = "4k"
ioengine = "libaio"
direct = 1
iodepth = 32
runtime = 3
ramp_time = 0
time_based = 1
"""


def test_an_in_flight_gauge_is_read_while_fio_runs_and_reported_as_mean_and_max(tmp_path, iolab_home):
    """The seed's "Bufs in-flight" is a gauge. Read once after the point (before issue 42 item 4), it always
    read `0 ± 0`; read every second while fio runs, it reads what is true during the point. The gauge here is
    the number of open descriptors of the test's own loop device, certain to be above zero exactly while fio
    runs: the kernel's own in-flight count for a loop device is not (one CI kernel read 0 throughout)."""
    with loop_devices(1, size_mib=64) as (device,):
        plan = tmp_path / "gauge.toml"
        plan.write_text(GAUGE_PLAN.format(name=device.name))
        proc = iolab("run", str(plan), device.path, "--allow-commands", "--json", timeout=120)
        assert proc.returncode == 0, proc.stderr
        command = ["sh", "-c", f"find /proc/[0-9]*/fd -lname /dev/{device.name} 2>/dev/null | wc -l"]
        after = subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()
    assert after == "0"  # what a reading after the point sees
    (point,) = json.loads(proc.stdout)["points"]
    mean, top = point["side"]["cmd.bufs_in_flight"], point["side"]["cmd.bufs_in_flight.max"]
    assert mean["problem"] == top["problem"] == "", (mean, top)
    assert 0 < mean["value"] <= top["value"] <= 4, (mean, top)
    table = in_process.iolab("show", "last").stdout
    assert "bufs_in_flight mean" in table and "bufs_in_flight max" in table, table
