"""IOR's text report (3.0, 3.2, 3.3) and JSON summary (4.0) read from real outputs (tests/data/ior, README there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.tools import ior

DATA = Path(__file__).parent.parent / "data" / "ior"
MIB = 1 << 20


def _summary_rows(text: str) -> list[list[str]]:
    """Every row of every "Summary of all tests" table, as IOR printed it."""
    lines = text.splitlines()
    rows = []
    for at, line in enumerate(lines):
        if line.startswith("Summary of all tests"):
            for row in lines[at + 2 :]:
                if not row.startswith(("write", "read")):
                    break
                rows.append(row.split())
    return rows


@pytest.mark.parametrize(
    ("name", "version", "points"),
    [
        ("akrr-v30-ior-3.0.1.txt", "IOR-3.0.1", 20),
        ("akrr-v32-ior-3.2.0.txt", "IOR-3.2.0", 20),
        ("akrr-v33-ior-3.3.0.txt", "IOR-3.3.0+dev", 20),
        ("akrr-doc-ior-3.0.1.md", "IOR-3.0.1", 4),  # the output inside a Markdown page: text before and after
    ],
)
def test_every_summary_row_is_a_point_at_iors_own_bandwidth(name, version, points):
    text = (DATA / name).read_text()
    out = ior.parse_text(text, name)
    assert (out.tool, out.version, len(out.points), out.notes) == ("ior", version, points, [])
    rows = _summary_rows(text)
    assert len(rows) == points
    for point, row in zip(out.points, rows, strict=True):
        assert point.name == row[0] == point.options["rw"]
        assert point.options["api"] in row and point.options["tool"] == "ior"
        assert point.options["numjobs"] in row[4:]  # #Tasks
        mean_mib = float(row[3])  # Mean(MiB)
        bw = [r.directions[point.name].bw_bytes for r in point.repeats]
        assert sum(bw) / len(bw) == pytest.approx(mean_mib * MIB, rel=0.01)
        assert point.repeats[0].directions[point.name].iops == pytest.approx(bw[0] / (20 * MIB))  # -t 20m


def test_options_say_what_differs_between_iors_runs():
    out = ior.parse_text((DATA / "akrr-v33-ior-3.3.0.txt").read_text(), "v33")
    first, fpp, collective = out.points[0], out.points[2], out.points[6]
    assert first.options | {"file_per_proc": "1"} == fpp.options | {"rw": "write"}
    assert collective.options["api"] == "MPIIO" and collective.options["collective"] == "1"
    assert (first.options["bs"], first.options["blocksize"], first.options["numjobs"]) == ("20m", "200m", "2")
    assert first.target.endswith("ior_test_file__a_POSIX") and first.started is not None


def test_iterations_are_repeats_from_the_results_table():
    # The Markdown page's runs each did one iteration: one repeat each, the results row's own figure
    out = ior.parse_text((DATA / "akrr-doc-ior-3.0.1.md").read_text(), "doc")
    assert [len(p.repeats) for p in out.points] == [1, 1, 1, 1]
    assert out.points[0].repeats[0].directions["write"].bw_bytes == pytest.approx(158.39 * MIB)
    assert out.points[0].repeats[0].directions["write"].runtime_ms == 20200  # total(s) 20.20


def test_json_summary_of_ior_4():
    text = (DATA / "compspec-ior-4.0.0rc1.json").read_text()
    out = ior.parse_json(text, "json")
    doc = json.loads(text)
    assert out.version == "IOR-4.0.0rc1" and [p.name for p in out.points] == ["write", "read"]
    for point, row in zip(out.points, doc["summary"], strict=True):
        assert point.repeats[0].directions[point.name].bw_bytes == pytest.approx(row["bwMeanMIB"] * MIB, rel=0.01)
        assert (point.options["bs"], point.options["blocksize"], point.options["numjobs"]) == ("256k", "1m", "1")
        assert point.target == "testFile"


def test_a_run_cut_before_its_summary_is_refused_or_left_out():
    text = (DATA / "akrr-v33-ior-3.3.0.txt").read_text()
    cut = text[: text.index("Summary of all tests")]
    with pytest.raises(UserError, match="did IOR finish"):
        ior.parse_text(cut, "cut")
    second = text.index("IOR-3.3.0+dev", text.index("Finished"))  # the second run of the file
    partial = ior.parse_text(text[: second + 2000], "partial")
    assert len(partial.points) == 2 and partial.notes  # the first run whole, the cut one named


def test_truncated_json_is_refused():
    text = (DATA / "compspec-ior-4.0.0rc1.json").read_text()
    with pytest.raises(UserError, match="truncated"):
        ior.parse_json(text[: len(text) // 2], "half")
