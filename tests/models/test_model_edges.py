"""Models at their edge values (issue 41 item 8): a finding's default confidence as every format writes it,
severity order and the short listing, and fio's size and time values at the largest fio can hold."""

from __future__ import annotations

import csv
import io
import json

import pytest

from iolab.models.finding import Finding, Severity, shown_by_default, unreadable_part
from iolab.models.option_values import option_number, parse_seconds, parse_share, parse_size, to_fio_string


def _finding(title: str = "a title", rule: str = "RES-X", **given) -> Finding:  # type: ignore[no-untyped-def]
    return Finding(rule, "results", Severity.WARNING, title, "run 1", {"seen": "3"}, **given)


def test_a_finding_is_certain_unless_its_rule_says_otherwise_in_every_format():
    from iolab.report.formats import DOCTOR, renderer

    certain, heuristic = _finding(), _finding("a guess", "RES-Y", confidence=0.6)
    (document_certain, document_heuristic) = json.loads(renderer("json", DOCTOR)([certain, heuristic]))
    assert document_certain["confidence"] == 1.0 and document_heuristic["confidence"] == 0.6
    rows = list(csv.DictReader(io.StringIO(renderer("csv", DOCTOR)([certain, heuristic]))))
    assert [row["confidence"] for row in rows] == ["1.0", "0.6"]
    for fmt in ("text", "markdown"):
        text = renderer(fmt, DOCTOR)([certain, heuristic])
        (line_certain,) = [line for line in text.splitlines() if "a title" in line]
        (line_heuristic,) = [line for line in text.splitlines() if "a guess" in line]
        assert "heuristic" not in line_certain and "heuristic" in line_heuristic, fmt


def test_severities_rank_most_serious_first_and_a_short_listing_shows_what_changes_the_figures():
    assert [s.rank for s in Severity] == [0, 1, 2, 3]
    assert shown_by_default(_finding()) and shown_by_default(Finding("R", "f", Severity.CRITICAL, "t"))
    assert not shown_by_default(Finding("R", "f", Severity.INFO, "t"))
    assert shown_by_default(Finding("RES-QD-KNEE", "f", Severity.INFO, "the knee"))
    assert not shown_by_default(Finding("RES-QD-KNEE", "f", Severity.NOT_EVALUATED, "no knee"))


def test_a_finding_a_user_cannot_read_is_named_by_its_part():
    assert unreadable_part("rate nan MB/s", {}) == "title"
    assert unreadable_part("fine", {"a": "1", "b": "1e+18"}) == "b"
    assert unreadable_part("fine", {"a": "1"}) is None


def test_sizes_and_times_up_to_what_fio_holds_and_none_beyond():
    # fio holds them in an unsigned long long; iolab reads up to 2**63 - 1 (float: the last double below 2**63)
    assert parse_size(str(2**62)) == 2.0**62 and parse_size(str(2**63 - 1024)) == 2.0**63 - 1024
    assert parse_size(str(2**63)) is None and parse_size("1" + "0" * 400) is None
    assert parse_seconds(str(2**62)) == 2.0**62 and parse_seconds(str(2**63)) is None
    assert parse_size("4k") == 4096 and parse_size("1MiB") == 2**20 and parse_size("lots") is None
    assert parse_seconds("2m") == 120 and parse_seconds("500ms") == pytest.approx(0.5) and parse_seconds("x") is None
    assert option_number("runtime", "2m") == 120 and option_number("bs", "2m") == 2 * 2**20
    assert parse_share("50%") == 0.5 and parse_share("half") is None
    assert [to_fio_string(v) for v in (True, False, 4.0, 4.5, 7, "x")] == ["1", "0", "4", "4.5", "7", "x"]


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("7us", 7e-6), ("7usec", 7e-6), ("7ms", 7e-3), ("7msec", 7e-3), ("7", 7.0), ("7s", 7.0), ("7sec", 7.0),
     ("7m", 420.0), ("7min", 420.0), ("7h", 25200.0), ("7d", 604800.0), ("7H", 25200.0)],
)  # fmt: skip
def test_every_time_unit_fio_takes(text, seconds):
    assert parse_seconds(text) == pytest.approx(seconds)


@pytest.mark.parametrize("power", range(6))
def test_every_size_unit_fio_takes_is_a_power_of_1024(power):
    unit = ["", "k", "m", "g", "t", "p"][power]
    for spelling in {unit, unit.upper(), f"{unit}ib" if unit else "", f"{unit}b" if unit else ""}:
        assert parse_size(f"3{spelling}") == 3 * 1024**power, spelling


def test_a_pcie_lane_s_rate_is_its_transfer_rate_after_line_encoding():
    """The kernel's PCIE_SPEED2MBS_ENC: 8b/10b up to 5 GT/s, 128b/130b for 8 to 32 GT/s, 1:1 from 64 GT/s."""
    from iolab.models.snapshot import PCIE_MBS_PER_LANE

    def encoded(gts: float) -> float:
        return gts * 1000 / 8 * (8 / 10 if gts <= 5 else 128 / 130 if gts <= 32 else 1.0)

    assert set(PCIE_MBS_PER_LANE) == {2.5, 5.0, 8.0, 16.0, 32.0, 64.0, 128.0}
    for gts, mbs in PCIE_MBS_PER_LANE.items():
        assert mbs == pytest.approx(encoded(gts), abs=0.06), gts
