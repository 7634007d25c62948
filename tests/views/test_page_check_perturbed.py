"""The page check catches each way a page can contradict itself, and only those: every generated page holds
together, and each figure changed in one place (a headline's value or interval, a finding's quoted rate,
an interval below zero, an invalid cell) is one critical RES-INVARIANT naming both values and the row.

Why: the generated pages of tests/views/test_page_consistency.py hold together, so every check of
`views.page_check` was run with nothing to find: a slip that stopped one (an `or` read as `and`, the row
counted from 0, a quote matched against several rows) passed them all. Here each check is switched on by
a page broken in its one place, on every shape of run (tests/page_runs.py).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from iolab.models import Run
from iolab.views.headline import ANSWERS
from iolab.views.page_check import QUOTED, page_contradictions
from iolab.views.tables import build_report
from tests.page_runs import SHAPES, generated_run

RUN = Run(1, 1_000_000.0, "complete", "", "host", "iolab run", "fio-3.33", "0", finished_at=1_000_060.0)


def _report(number: int):  # type: ignore[no-untyped-def]
    made = generated_run(random.Random(3), number)
    return made, build_report(RUN, made.records, made.samples, findings=made.findings)


def _titles(tables, headline, findings) -> list[str]:  # type: ignore[no-untyped-def]
    found = page_contradictions(tables, headline, findings)
    assert all(f.rule_id == "RES-INVARIANT" and f.severity.name == "CRITICAL" for f in found)
    return [f.title for f in found]


@pytest.mark.parametrize("number", range(len(SHAPES)))
def test_every_generated_page_holds_together(number):
    made, report = _report(number)
    assert _titles(report.tables, report.headline, made.findings) == []


@pytest.mark.parametrize("number", range(len(SHAPES)))
def test_a_headline_value_unlike_its_row_is_named_with_both(number):
    made, report = _report(number)
    for i, figure in enumerate(report.headline):
        bad = [*report.headline]
        bad[i] = replace(figure, value=figure.value + "9")
        table = report.tables[figure.table]
        assert _titles(report.tables, bad, ()) == [
            f"page: {figure.label} reads {figure.value}9 in the headline and {figure.value} in {table.title}"
        ]


@pytest.mark.parametrize("number", range(len(SHAPES)))
def test_a_headline_interval_unlike_its_row_is_named_with_both(number):
    made, report = _report(number)
    for i, figure in enumerate(report.headline):
        stats = report.tables[figure.table].rows[figure.row].numbers[figure.key]
        bad = [*report.headline]
        bad[i] = replace(figure, interval="(95% CI 1 – 2, 3 runs)")
        said = _titles(report.tables, bad, ())
        if stats.n >= 2 and not stats.ci95_too_wide:
            assert len(said) == 1 and said[0].startswith(f"page: {figure.label}'s interval reads (95% CI 1 – 2"), said
        else:  # one run, or too wide to say: no interval to hold it to
            assert said == []


@pytest.mark.parametrize("number", range(len(SHAPES)))
def test_a_finding_quoting_another_rate_than_its_row_is_named_with_both(number):
    made, report = _report(number)
    rows = [(t, r) for t in report.tables for r in t.rows if r.point_ids]
    checked = 0
    for finding in made.findings:
        for n, quote in enumerate(finding.quotes):
            key = QUOTED.get(quote.metric)
            ids = {int(p) for p in quote.points if p.isdigit()}
            same = [(t, r) for t, r in rows if set(r.point_ids) == ids and r.numbers.get(key or "") is not None]
            if key is None or len(same) != 1:
                continue
            table, row = same[0]
            quotes = list(finding.quotes)
            quotes[n] = replace(quote, value=quote.value * 1.5)
            said = _titles(report.tables, (), [replace(finding, quotes=tuple(quotes))])
            name = f"row {list(table.rows).index(row) + 1}" + (f" ({row.ddir})" if row.ddir else "")
            assert said and said[0] == (
                f"page: {finding.rule_id} quotes {quote.shown} where {table.title}, {name} "
                f"reads {ANSWERS[key][0](row.numbers[key].mean)}"
            ), said
            checked += 1
            # a quote the page cannot place on one row is not judged: points of several rows, or of none
            assert _titles([*report.tables, *report.tables], (), [replace(finding, quotes=tuple(quotes))]) == []
            quotes[n] = replace(quote, points=("999",), value=quote.value * 1.5)
            assert _titles(report.tables, (), [replace(finding, quotes=tuple(quotes))]) == []
    if SHAPES[number] == "qd-sweep":
        assert checked, "no finding quoted a row's rate"


@pytest.mark.parametrize("number", range(len(SHAPES)))
def test_an_interval_below_zero_and_an_invalid_cell_are_named_with_their_row(number):
    made, report = _report(number)
    table = next((t for t in report.tables if t.rows and t.rows[-1].numbers), None)
    if table is None:
        pytest.skip("no table with figures")
    k = len(table.rows) - 1
    row = table.rows[k]
    key, stats = next((key, s) for key, s in row.numbers.items() if s is not None)
    name = f"row {k + 1}" + (f" ({row.ddir})" if row.ddir else "")
    broken = replace(row, numbers={**row.numbers, key: replace(stats, ci95_low=-1.0, ci95_high=stats.mean * 2)})
    said = _titles([replace(table, rows=(*table.rows[:k], broken))], (), ())
    assert len(said) == 1 and said[0].startswith(f"page: {table.title}, {name}, {key}: "), said
    invalid = replace(row, cells=("invalid: no data", *row.cells[1:]))
    said = _titles([replace(table, rows=(*table.rows[:k], invalid))], (), ())
    assert said == [f"page: {table.title}, {name}, {table.columns[0].header}: invalid: no data"]
