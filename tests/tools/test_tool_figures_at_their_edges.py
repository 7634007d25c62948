"""Tools' figures at the edges of what their readers take (issue 41: `bench/mutation.py --whole` left these
held by no fast test): an IOzone figure two characters past its column's end is still under it and three is
not; an IOR JSON figure that is not a number is quoted cut at 40 characters; a throughput-only tool's result
carries no CPU figure of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.tools import ior, iozone
from iolab.tools.model import throughput

DATA = Path(__file__).resolve().parent.parent / "data"
TABLE = (DATA / "iozone" / "iozone2csv-iozone-3.434-a.txt").read_text()
ROW_END = "7687779  7659035\n"


def _freread(text: str) -> float:
    (point,) = [
        p
        for p in iozone.parse(text, "a").points
        if p.name == "freread" and p.options["bs"] == "512k" and p.options["size"] == "1g"
    ]
    return point.repeats[0].directions["read"].bw_bytes


def test_an_iozone_figure_up_to_two_characters_past_its_column_is_under_it():
    assert TABLE.count(ROW_END) == 1
    moved = TABLE.replace(ROW_END, ROW_END.replace("  ", "    "))
    assert _freread(moved) == _freread(TABLE) > 0
    with pytest.raises(UserError, match=r"IOzone figure \(7659035\) stands under no column"):
        iozone.parse(TABLE.replace(ROW_END, ROW_END.replace("  ", "     ")), "a")


def test_an_ior_json_figure_that_is_not_a_number_is_quoted_cut_at_40_characters():
    doc = json.loads((DATA / "ior" / "compspec-ior-4.0.0rc1.json").read_text())
    for test in doc["tests"]:
        del test["Results"]
    doc["summary"][0]["bwMeanMIB"] = "n" * 50
    with pytest.raises(UserError) as refused:
        ior.parse_json(json.dumps(doc), "j")
    assert str(refused.value) == f"j: IOR JSON bwMeanMIB is {'n' * 40!r}, not a number"


@pytest.mark.parametrize("seconds", [0.0, 2.5])
def test_a_throughput_only_tool_gives_no_cpu_figure(seconds):
    result = throughput("write", 5e8, 1000.0, seconds, 2, "ior-3.3.0")
    assert (result.usr_cpu, result.sys_cpu, result.jobs) == (0.0, 0.0, 2)
