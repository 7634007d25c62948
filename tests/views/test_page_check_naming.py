"""What a RES-INVARIANT says when a page contradicts itself, so the reader can find both figures: the table,
the row as a reader counts it (from 1) and its direction. Held to it from two repeats on: a headline's interval
against its row's, a finding's quoted rate against the one row of the same points, and the peak's interval in
RES-QD-PEAK (its first quote, the peak) against its row's. A quote whose points match no single row (a mixed
workload's read and write rows share their points) cannot be placed, and is not judged. Tables made here."""

from __future__ import annotations

from iolab.analysis.stability import RATE, estimate
from iolab.models import Finding, Severity
from iolab.models.finding import Quote
from iolab.models.units import MB
from iolab.views.headline import Headline, interval_words
from iolab.views.page_check import _peak_words, page_contradictions
from iolab.views.tables import Column, NotebookTable, Row

COLUMNS = (Column("workload", "workload"), Column("ddir", "dir"), Column("bw_bytes", "MB/s", numeric=True, unit="MB/s"))


def _row(name: str, ddir: str, values: list[float], ids: tuple[int, ...]) -> Row:
    stats = estimate(values, RATE)
    return Row(
        (name, ddir, f"{stats.mean / MB:,.0f}"),
        {"bw_bytes": stats, "iops": estimate(values, RATE)},
        ddir,
        len(ids),
        ids,
    )


TABLE = NotebookTable(
    "Overview",
    None,
    (),
    COLUMNS,
    (
        _row("seqread", "read", [400 * MB, 410 * MB], (1, 2)),
        _row("mixed", "read", [100 * MB, 104 * MB], (3, 4)),
        _row("mixed", "write", [50 * MB, 52 * MB], (3, 4)),
        _row("seqwrite", "write", [300 * MB, 306 * MB], (5, 6)),
    ),
)


def _titles(headline=(), findings=()) -> list[str]:  # type: ignore[no-untyped-def]
    found = page_contradictions([TABLE], list(headline), list(findings))
    assert all(f.rule_id == "RES-INVARIANT" and f.severity is Severity.CRITICAL for f in found)
    return [f.title for f in found]


def _quote(ids: tuple[int, ...], value: float, metric: str = "bw") -> Quote:
    return Quote(tuple(map(str, ids)), metric, value, f"{value / MB:,.0f} MB/s", "MB/s")


def _finding(rule: str, *quotes: Quote, evidence: dict | None = None) -> Finding:
    return Finding(rule, "results", Severity.WARNING, "w: slow", "w", evidence=evidence or {}, quotes=quotes)


def test_a_misquoted_rate_names_the_table_the_row_counted_from_one_and_its_direction():
    (title,) = _titles(findings=[_finding("RES-X", _quote((5, 6), 250 * MB))])
    assert "RES-X quotes 250 MB/s where Overview, row 4 (write) reads 303" in title
    assert _titles(findings=[_finding("RES-X", _quote((5, 6), TABLE.rows[3].numbers["bw_bytes"].mean))]) == []


def test_a_quote_matching_several_rows_or_none_is_not_judged():
    assert _titles(findings=[_finding("RES-X", _quote((3, 4), 1.0))]) == []  # the mixed workload's two rows
    assert _titles(findings=[_finding("RES-X", _quote((7,), 1.0))]) == []


def test_a_headline_interval_is_held_to_its_rows_from_two_repeats():
    row = TABLE.rows[0]
    words = interval_words(row.numbers["bw_bytes"], lambda v: f"{v / MB:,.0f}")
    good = Headline("Sequential read", row.cells[2], "MB/s", f"(95% CI {words}, 2 runs)", "seqread", "bw_bytes", 0, 0)
    assert _titles(headline=[good]) == []
    bad = Headline("Sequential read", row.cells[2], "MB/s", "(95% CI 1 – 2, 2 runs)", "seqread", "bw_bytes", 0, 0)
    (title,) = _titles(headline=[bad])
    assert (
        title == f"page: Sequential read's interval reads (95% CI 1 – 2, 2 runs) in the headline and {words} in its row"
    )


def test_the_peaks_interval_is_held_to_its_row_for_the_peak_only():
    peak_row = TABLE.rows[0]
    words = _peak_words(peak_row.numbers["iops"])
    peak = _quote((1, 2), peak_row.numbers["iops"].mean, "iops")  # RES-QD-PEAK quotes the peak's IOPS first
    other = _quote((5, 6), TABLE.rows[3].numbers["iops"].mean, "iops")
    assert _peak_words(TABLE.rows[3].numbers["iops"]) != words
    right = _finding("RES-QD-PEAK", peak, other, evidence={"peak's 95% interval": f"{words} (2 runs)"})
    assert _titles(findings=[right]) == []
    wrong = _finding("RES-QD-PEAK", peak, other, evidence={"peak's 95% interval": "1 to 2 IOPS"})
    (title,) = _titles(findings=[wrong])
    assert title == f"page: the peak's interval reads '1 to 2 IOPS' in RES-QD-PEAK and '{words}' in its row"
    # another rule with the same evidence key is no peak
    assert _titles(findings=[_finding("RES-Y", peak, evidence={"peak's 95% interval": "1 to 2 IOPS"})]) == []
