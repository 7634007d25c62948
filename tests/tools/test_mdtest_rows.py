"""A figure mdtest's rate table cannot hold (nan, inf, a word) in ANY row of a real output is refused in words,
never read as the end of the table with that row and every row after it dropped (an output with `nan` in
its File creation row was imported as its three directory rows, exit 0)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.tools import mdtest

DATA = Path(__file__).parent.parent / "data" / "mdtest"
FIGURE = re.compile(r"(?<=\s)\d+\.\d+(?=\s|$)")


def _rows(text: str) -> list[int]:
    """The line numbers of every rate row in every SUMMARY rate table of the output."""
    lines, rows, inside = text.splitlines(), [], False
    for number, line in enumerate(lines):
        if line.startswith("SUMMARY"):
            inside = "rate" in line or "(of" in line and "time" not in line
            continue
        if inside and re.match(r"^\s+[A-Za-z][A-Za-z ]*?\s*:\s+\d", line):
            rows.append(number)
        elif inside and line.strip() and not line.strip().startswith(("Operation", "---")):
            inside = False
    return rows


@pytest.mark.parametrize("spoil", ["nan", "inf", "-", "n/a"])
@pytest.mark.parametrize("output", sorted(DATA.glob("*.txt")), ids=lambda p: p.name)
def test_an_unreadable_figure_in_any_row_is_refused(output: Path, spoil: str) -> None:
    text = output.read_text()
    rows = _rows(text)
    assert rows, output
    lines = text.splitlines()
    for number in rows:
        spoiled = lines.copy()
        spoiled[number] = FIGURE.sub(spoil, lines[number], count=1)
        with pytest.raises(UserError):
            mdtest.parse("\n".join(spoiled) + "\n", output.name)
