"""IOzone's -a table and -R report read from real outputs (tests/data/iozone, README there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.tools import iozone

DATA = Path(__file__).parent.parent / "data" / "iozone"


def _figures(out) -> dict[tuple[str, str, str], float]:
    return {(p.name, p.options["size"], p.options["bs"]): p.repeats[0].directions for p in out.points}


def test_the_a_table_puts_every_figure_under_its_test():
    text = (DATA / "iozone2csv-iozone-3.434-a.txt").read_text()
    out = iozone.parse(text, "a")
    assert (out.version, len(out.points)) == ("iozone-3.434", 13 * 8)
    figures = _figures(out)
    # "1048576     512  5169375  7712220  7634280  7649870  7541971  8989992  7688128  11968815 ..."
    assert figures[("write", "1g", "512k")]["write"].bw_bytes == 5169375 * 1024
    assert figures[("random write", "1g", "512k")]["write"].bw_bytes == 8989992 * 1024
    assert figures[("record rewrite", "1g", "512k")]["write"].bw_bytes == 11968815 * 1024
    assert figures[("freread", "2g", "4m")]["read"].bw_bytes == 6736193 * 1024
    assert figures[("read", "1g", "512k")]["read"].iops == pytest.approx(7634280 / 512)
    assert out.points[0].target == "/tmp/testme" and out.points[0].started is not None


def test_the_r_report_holds_the_same_figures_as_the_table():
    text = (DATA / "ffs-local-iozone-3.493-R.txt").read_text()
    both = _figures(iozone.parse(text, "both"))
    table_only = _figures(iozone.parse(text[: text.index("Excel output is below")], "table"))
    report_only = _figures(iozone.parse(text[text.index("Excel output is below") :], "report"))
    assert len(both) == len(table_only) == len(report_only) == 6 * 107
    assert {k: v[next(iter(v))].bw_bytes for k, v in report_only.items()} == {
        k: v[next(iter(v))].bw_bytes for k, v in table_only.items()
    }
    assert iozone.parse(text, "both").points[0].options["close"] == "1"  # -c: close inside the timing


def test_a_run_without_figures_is_refused():
    text = (DATA / "iozone2csv-iozone-3.434-a.txt").read_text()
    with pytest.raises(UserError, match="did it finish"):
        iozone.parse(text[: text.index("              kB  reclen")], "cut")
