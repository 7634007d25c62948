"""mdtest's rate summary read from real outputs (tests/data/mdtest, README there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.tools import mdtest

DATA = Path(__file__).parent.parent / "data" / "mdtest"


def test_two_iterations_are_the_two_repeats_the_table_fixes():
    # mdtest 1.9.3, -i 2: Max and Min are the two iterations, their mean the printed Mean
    text = (DATA / "akrr-v1-mdtest-1.9.3.txt").read_text()
    out = mdtest.parse(text, "v1")
    assert (out.tool, out.version, len(out.points), out.notes) == ("mdtest", "mdtest-1.9.3", 36, [])
    creation = out.points[0]
    assert creation.name == "directory creation"
    assert creation.options == {"tool": "mdtest", "numjobs": "96", "items_per_dir": "32", "depth": "0", "branch": "0"}
    rates = [r.directions["write"].iops for r in creation.repeats]
    assert rates == [96.640, 104.022]  # the row:   Directory creation:  104.022  96.640  100.331  3.691
    assert sum(rates) / 2 == pytest.approx(100.331, abs=0.001)
    stat = out.points[1]
    assert stat.name == "directory stat" and list(stat.repeats[0].directions) == ["read"]
    assert {p.options.get("unique_dir") for p in out.points} == {None, "1"}  # runs with and without -u


def test_more_iterations_keep_the_mean_and_say_so():
    out = mdtest.parse((DATA / "akrr-v2-mdtest-1.9.3.txt").read_text(), "v2")
    assert all(len(p.repeats) == 1 for p in out.points)
    assert out.points[0].repeats[0].directions["write"].iops == 670.582
    assert out.notes == ["mdtest-1.9.3 with 10 iterations: each rate kept as its mean (mdtest prints no more)"]
    assert out.points[0].started is not None  # "-- started at 05/01/2019 15:35:12 --"


def test_a_run_cut_before_its_summary_is_refused():
    text = (DATA / "akrr-v1-mdtest-1.9.3.txt").read_text()
    with pytest.raises(UserError, match="did mdtest finish"):
        mdtest.parse(text[: text.index("SUMMARY")], "cut")
