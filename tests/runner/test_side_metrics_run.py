"""Side figures of a real run: CPU per I/O, the loopback's wire bandwidth and a plan's metric commands, in
the Markdown, JSON and CSV reports (one 1-s point on a scratch file, 20 MB/s pushed through lo meanwhile)."""

from __future__ import annotations

import csv
import io
import json

from tests import in_process
from tests.iolab_cli import assert_clean_error, iolab
from tests.loopback import Loopback

PLAN = """name = "side"
metrics = { answer = "echo 42", words = ["sh", "-c", "echo hello"] }
[options]
rw = "randread"
bs = "4k"
ioengine = "psync"
runtime = 1
ramp_time = 0
time_based = 1
"""


def test_cpu_per_io_wire_and_metric_commands_are_columns_of_every_report(tmp_path):
    plan = tmp_path / "side.toml"
    plan.write_text(PLAN)
    data = tmp_path / "data"
    data.mkdir()
    refused = iolab("run", str(plan), str(data), "--size", "32M")
    assert "metric answer, every second during each point: echo 42" in assert_clean_error(refused)
    with Loopback(20e6):
        proc = iolab("run", str(plan), str(data), "--size", "32M", "--allow-commands")
    assert proc.returncode == 0, proc.stderr

    md = in_process.iolab("report", "last", "-f", "md")
    assert md.returncode == 0, md.stderr
    lines = md.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("| ") and "MB/s" in line)
    cells, row = ([c.strip() for c in lines[i].strip("|").split("|")] for i in (at, at + 2))
    for column in ("fio CPU µs/IO", "host CPU µs/IO", "lo rx MB/s", "lo tx MB/s", "answer mean", "answer max", "words"):
        assert column in cells, (column, cells)
    values = dict(zip(cells, row, strict=True))
    assert values["answer mean"] == values["answer max"] == "42" and values["words"] == "not a number: 'hello'"
    # at least the 20 MB/s this test sends over lo (give or take the point's edges); no upper bound: other
    # tests' fio servers and ssh share lo, and the figure is the interface's, as a user's would be
    assert float(values["lo rx MB/s"]) >= 5
    assert "- **wire:** lo is this host" in md.stdout
    assert "LLC hit %" in cells or "- **hardware counters:** not available: " in md.stdout

    points = json.loads(in_process.iolab("report", "last", "-f", "json").stdout)["points"]
    side = points[0]["side"]
    assert side["fio_cpu_us_per_io"]["value"] > 0 and side["host_cpu_us_per_io"]["value"] > 0
    assert side["cmd.answer"] == side["cmd.answer.max"] == {"value": 42.0, "problem": ""}
    assert side["cmd.words"] == {"value": None, "problem": "not a number: 'hello'"}

    [row_csv] = csv.DictReader(io.StringIO(in_process.iolab("report", "last", "-f", "csv").stdout))
    assert float(row_csv["side_cmd.answer"]) == 42.0
    assert float(row_csv["side_wire.lo.rx"]) == side["wire.lo.rx"]["value"]
