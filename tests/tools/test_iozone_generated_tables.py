"""IOzone's `-a` table and `-R` report, generated in IOzone's own layout with random tests, sizes and figures,
read back figure by figure (issue 41: the fast tier read two real files, where every figure ends exactly
under its column and no report is cut after its title, so the ±2 characters of tolerance, a report's last
line, and the timer's bounds were held by none)."""

from __future__ import annotations

import random

import pytest

from iolab.errors import UserError
from iolab.tools.iozone import REPORTS, parse

TESTS = ["write", "rewrite", "read", "reread", "random read", "random write", "bkwd read"]
HEAD = "\tIozone: Performance Test of File I/O\n\t        Version $Revision: 3.493 $\n\n"


def _table(rows: dict[tuple[int, int], list[int]], tests: list[str], shift: int = 0) -> str:
    """The `-a` table as IOzone prints it: names right-aligned over 9-character columns, two-word names
    split over two header lines, each figure right-aligned under its name (moved `shift` to the right)."""
    above = "".join(f"{t.split()[0] if ' ' in t else '':>9}" for t in tests)
    names = "".join(f"{t.split()[-1]:>9}" for t in tests)
    lines = [f"{'':24}{above}", f"{'kB':>16}{'reclen':>8}{names}"]
    for (kib, reclen), values in rows.items():
        figures = "".join(f"{v:>{9 + (shift if i == 0 else 0)}}" for i, v in enumerate(values))
        lines.append(f"{kib:>16}{reclen:>8}{figures}")
    return "\n".join(lines) + "\n\niozone test complete.\n"


@pytest.mark.parametrize("seed", range(8))
def test_a_generated_auto_table_is_read_back_figure_by_figure(seed):
    rng = random.Random(seed)
    tests = sorted(rng.sample(TESTS, rng.randint(1, len(TESTS))), key=TESTS.index)
    rows = {
        (kib, reclen): [rng.randrange(1000, 9_999_999) for _ in tests]
        for kib in sorted(rng.sample([64, 128, 1024, 4096], 2))
        for reclen in (4, 16)
    }
    out = parse(HEAD + _table(rows, tests), "iozone.txt")
    got = {(p.name, p.options["size"], p.options["bs"]): p.repeats[0].directions for p in out.points}
    assert len(got) == len(rows) * len(tests)
    for (kib, reclen), values in rows.items():
        for test, value in zip(tests, values, strict=True):
            size = f"{kib // 1024}m" if kib % 1024 == 0 else f"{kib}k"
            (direction,) = got[(test, size, f"{reclen}k")].values()
            assert direction.bw_bytes == value * 1024  # kB/s are KiB/s
            assert direction.ddir == ("write" if "write" in test else "read")


@pytest.mark.parametrize(("shift", "taken"), [(1, True), (2, True), (3, False)])
def test_a_figure_may_stand_two_characters_off_its_column_and_no_more(shift, taken):
    text = HEAD + _table({(1024, 4): [123456, 234567]}, ["write", "read"], shift=shift)
    if taken:
        assert {p.name for p in parse(text, "iozone.txt").points} == {"write", "read"}
    else:
        with pytest.raises(UserError, match="stands under no column of the table"):
            parse(text, "iozone.txt")


def _report(title: str, reclens: list[int], rows: dict[int, list[int]]) -> str:
    head = "      " + "".join(f'  "{r}"' for r in reclens)
    return f'"{title} report"\n{head}\n' + "".join(
        f'"{kib}"   ' + "  ".join(map(str, values)) + "\n" for kib, values in rows.items()
    )


@pytest.mark.parametrize("seed", range(4))
def test_generated_reports_are_read_back_and_a_short_row_is_a_size_iozone_skipped(seed):
    rng = random.Random(seed)
    titles = rng.sample(sorted(REPORTS), 3)
    reclens = [4, 8, 16]
    expected = {}
    text = HEAD + "Excel output is below:\n\n"
    for title in titles:
        rows = {kib: [rng.randrange(1000, 10**7) for _ in reclens[: rng.randint(1, 3)]] for kib in (1024, 2048)}
        text += _report(title, reclens, rows) + "\n"
        expected |= {
            (REPORTS[title], kib, reclen): v for kib, vs in rows.items() for reclen, v in zip(reclens, vs, strict=False)
        }
    out = parse(text, "r.txt")
    got = {
        (p.name, int(p.options["size"].rstrip("m")) * 1024, int(p.options["bs"].rstrip("k"))): next(
            iter(p.repeats[0].directions.values())
        ).bw_bytes
        for p in out.points
    }
    assert got == {key: value * 1024 for key, value in expected.items()}


def test_a_report_cut_after_its_title_is_skipped_and_a_row_longer_than_its_sizes_refused():
    whole = _report("Writer", [4], {1024: [5000]})
    assert len(parse(HEAD + whole + '"Reader report"', "r.txt").points) == 1
    with pytest.raises(UserError, match="Reader report has more figures than record sizes"):
        parse(HEAD + whole + _report("Reader", [4], {1024: [1, 2]}), "r.txt")


@pytest.mark.parametrize(("resolution", "taken"), [("0.000001", True), ("1", True), ("0", False), ("1.000001", False)])
def test_the_timer_resolution_is_above_zero_and_at_most_a_second(resolution, taken):
    text = HEAD + f"\tTime Resolution = {resolution} seconds.\n" + _report("Writer", [4], {1024: [5000]})
    if taken:
        assert len(parse(text, "r.txt").points) == 1
    else:
        with pytest.raises(UserError, match="time resolution .* is not possible"):
            parse(text, "r.txt")
