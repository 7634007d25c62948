"""How close a quoted figure must be to its points' figure (issue 41). A quote carries its value as well as its
text (the JSON and the stored finding give the value): a value off by a millionth is a misquote even where its
text rounds to the same "200 MB/s"; a value that differs only in its last bits (the same mean summed in
another order) is the same figure."""

from __future__ import annotations

from dataclasses import replace

import pytest

from iolab.doctor.quotes import FORMATS, misquotes, quote
from iolab.models import Finding, Severity
from iolab.models.result import DirectionResult, LatencyStats, Result


def _result(bw: float) -> Result:
    latency = LatencyStats("lat", 1000, 1e5, 1e4, 1e5, 1e6)
    ios = int(bw * 10 / 4096)
    return Result({"read": DirectionResult("read", ios * 4096 / 10, ios / 10, ios, ios * 4096, 10_000, latency)},
                  10.0, 10.0, 1, "fio-3.33")  # fmt: skip


def _results() -> dict[str, Result]:
    return {"1": _result(200e6), "2": _result(230e6)}


def _good():  # made in the test, not at import: a quote() that raises fails the test, not its collection
    return quote(list(_results().items()), "read.bw", "MB/s")


def _said(relative: float) -> list[str]:
    good = _good()
    moved = replace(good, value=good.value * (1 + relative))
    finding = Finding("X-RULE", "results", Severity.INFO, f"the two points read {moved.shown}", quotes=(moved,))
    return [why for _, why in misquotes([finding], _results())]


@pytest.mark.parametrize("relative", [0.0, 1e-15, -1e-15, 1e-12, -1e-12])
def test_the_same_figure_computed_in_another_order_is_no_misquote(relative):
    assert _said(relative) == []


@pytest.mark.parametrize("relative", [1e-6, -1e-6, 1e-4, -2e-3])
def test_a_value_off_by_a_millionth_is_a_misquote_though_its_text_is_the_same(relative):
    good = _good()
    assert FORMATS["MB/s"](good.value * (1 + relative)) == good.shown  # the text alone would not tell
    (why,) = _said(relative)
    assert why.startswith(f"quotes {good.shown} as read.bw of 2 point(s); the points give {good.shown}")
