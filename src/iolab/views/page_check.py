"""A page that contradicts itself is a bug the product catches, before the page is printed.

A figure is computed once per row (`analysis.stability.estimate`) and every place of a page reads that one
value; this module holds the page to it. Every figure that appears twice must be the same value — a headline
and its table row (value, interval, and a stopped point's interval in its `stopped` column), a finding's
quoted figure and the row of the same points, the peak's interval in its finding and in its row — and every
interval must hold its rule (`analysis.stability.interval_problem`: contains its estimate, a positive
quantity's above zero and within 100x or "too wide to say"). Where one does not, the page still prints, with
a critical RES-INVARIANT naming both values: the suite fails on any such finding (tests/views/test_page_
consistency.py renders generated runs in every format and asserts none).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Protocol

from iolab.analysis.stability import Stability, interval_problem
from iolab.models import Finding, units
from iolab.views.headline import ANSWERS, Headline, TableRow, interval_words


class Column(Protocol):
    """What the check reads of a table's column (`views.tables.Column`, whose module imports this one)."""

    @property
    def key(self) -> str: ...
    @property
    def header(self) -> str: ...


class Row(TableRow, Protocol):
    """What the check reads of a table's row (`views.tables.Row`): what a headline reads, and its cells."""

    @property
    def cells(self) -> tuple[str, ...]: ...


class NotebookTable(Protocol):
    """What the check reads of a table (`views.tables.NotebookTable`)."""

    @property
    def title(self) -> str: ...
    @property
    def columns(self) -> Sequence[Column]: ...
    @property
    def rows(self) -> Sequence[Row]: ...


# A finding's quoted metric and the row figure holding the same number (`doctor.quotes.METRICS`).
QUOTED = {"iops": "iops", "bw": "bw_bytes"}
PEAK_RULE, PEAK_EVIDENCE = "RES-QD-PEAK", "peak's 95% interval"


def page_contradictions(
    tables: Sequence[NotebookTable], headline: Sequence[Headline], findings: Sequence[Finding]
) -> list[Finding]:
    """One critical RES-INVARIANT per figure of the page shown as two values, or per interval that breaks
    its rule; [] for a page that holds together."""
    problems = [*_broken_intervals(tables), *_headline_against_rows(tables, headline)]
    problems += _findings_against_rows(tables, findings)
    if not problems:  # the rules are imported only for a page that needs one (0.06 CPU-s a `show` or `report`)
        return []
    from iolab.doctor.engine import page_contradictions as invariant_findings

    return invariant_findings(problems)


def _broken_intervals(tables: Sequence[NotebookTable]) -> Iterator[str]:
    for table in tables:
        for row in table.rows:
            for key, stats in row.numbers.items():
                if stats is not None and (problem := interval_problem(stats)) is not None:
                    yield f"{table.title}, {_row_name(table, row)}, {key}: {problem}"
            for column, cell in zip(table.columns, row.cells, strict=False):
                if cell.startswith("invalid: "):
                    yield f"{table.title}, {_row_name(table, row)}, {column.header}: {cell}"


def _headline_against_rows(tables: Sequence[NotebookTable], headline: Sequence[Headline]) -> Iterator[str]:
    """A headline's value, interval and stopped interval against the row it was read off."""
    for figure in headline:
        table = tables[figure.table]
        row = table.rows[figure.row]
        stats = row.numbers.get(figure.key)
        cells = {column.key: cell for column, cell in zip(table.columns, row.cells, strict=False)}
        fmt = ANSWERS[figure.key][0]
        if stats is None:
            yield f"the headline {figure.label} reads {figure.value} where its row has no {figure.key}"
            continue
        shown = cells.get(figure.key, fmt(stats.mean)).split(" ± ")[0]
        if shown != figure.value or fmt(stats.mean) != figure.value:
            yield f"{figure.label} reads {figure.value} in the headline and {shown} in {table.title}"
        if stats.n >= 2 and not stats.ci95_too_wide:
            words = interval_words(stats, fmt)
            if f"(95% CI {words}," not in figure.interval:
                yield f"{figure.label}'s interval reads {figure.interval} in the headline and {words} in its row"
        stopped = cells.get("stopped", "")
        if figure.interval.startswith("±") and "±" in stopped:
            said = figure.interval.split()[0]
            if f", {said} after" not in stopped:
                yield f"{figure.label}'s interval reads {said} in the headline and '{stopped}' in its stopped column"


def _findings_against_rows(tables: Sequence[NotebookTable], findings: Sequence[Finding]) -> Iterator[str]:
    """A finding's quoted rate or IOPS against the one row of the same points, and the peak's interval."""
    rows = [(table, row) for table in tables for row in table.rows if row.point_ids]
    for finding in findings:
        for n, quote in enumerate(finding.quotes):
            key = QUOTED.get(quote.metric)
            ids = {int(p) for p in quote.points if p.isdigit()}
            same = [(t, r) for t, r in rows if set(r.point_ids) == ids and r.numbers.get(key or "") is not None]
            if key is None or len(same) != 1:
                continue
            table, row = same[0]
            stats = row.numbers[key]
            assert stats is not None
            if not math.isclose(stats.mean, quote.value, rel_tol=1e-9):
                yield (
                    f"{finding.rule_id} quotes {quote.shown} where {table.title}, {_row_name(table, row)} "
                    f"reads {ANSWERS[key][0](stats.mean)}"
                )
            said = finding.evidence.get(PEAK_EVIDENCE) if finding.rule_id == PEAK_RULE and n == 0 else None
            if said is not None and key == "iops":
                mine = _peak_words(stats)
                if not said.startswith(mine):
                    yield f"the peak's interval reads '{said}' in {PEAK_RULE} and '{mine}' in its row"


def _peak_words(stats: Stability) -> str:
    """The peak's interval as RES-QD-PEAK words it, from its row's estimate."""
    if stats.ci95_low is None or stats.ci95_high is None:
        return "too wide to say"
    return f"{units.iops(stats.ci95_low)} to {units.iops(stats.ci95_high)} IOPS"


def _row_name(table: NotebookTable, row: Row) -> str:
    return f"row {table.rows.index(row) + 1}" + (f" ({row.ddir})" if row.ddir else "")
