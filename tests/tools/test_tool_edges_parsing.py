"""Tool outputs at their edges, from the real files under tests/data edited one line each (issue 41:
`bench/mutation.py --whole` found these held by no fast test): IOzone's timer resolution at its bounds, an
mdtest `Path:` line whose directory holds a colon, and a throughput figure without a duration."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.tools import ior, iozone, mdtest
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


def test_an_ior_json_row_without_results_or_a_mean_time_has_no_runtime():
    """IOR 4's JSON gives each iteration's time under its test's Results; without them the summary's MeanTime
    is the repeat's time, and without that there is none (not a millisecond made up)."""
    doc = json.loads((DATA / "ior" / "compspec-ior-4.0.0rc1.json").read_text())
    for test in doc["tests"]:
        del test["Results"]
    times = {p.name: p.repeats[0].directions[p.name].runtime_ms for p in ior.parse_json(json.dumps(doc), "j").points}
    assert times["write"] == round(doc["summary"][0]["MeanTime"] * 1000) and times["write"] > 0
    for row in doc["summary"]:
        del row["MeanTime"]
    for point in ior.parse_json(json.dumps(doc), "j").points:
        assert (
            point.repeats[0].directions[point.name].runtime_ms == 0
            and point.repeats[0].directions[point.name].bw_bytes > 0
        )


def test_an_mdtest_run_without_its_launch_line_is_one_task_of_an_unknown_version():
    text = re.sub(r"^mdtest-\S+ was launched with.*\n", "", MDTEST, flags=re.M)
    assert text != MDTEST
    points = mdtest.parse(text, "m").points
    assert {(p.options["numjobs"], p.repeats[0].fio_version, p.repeats[0].jobs) for p in points} == {("1", "mdtest", 1)}


def test_an_iozone_report_row_with_more_figures_than_record_sizes_is_damage():
    text = (DATA / "iozone" / "ffs-local-iozone-3.493-R.txt").read_text()
    row = '"1024"   186358  335392  512232  827258  699870  1032244  1273788  1477555  873705 '
    assert row in text
    wider = text.replace(row, row + " 1" * 5)  # 14 figures under 13 record sizes
    with pytest.raises(UserError, match="Writer report has more figures than record sizes"):
        iozone.parse(wider, "r")
    assert iozone.parse(text.replace(row, row + " 1" * 4), "r").points  # 13 under 13 reads
