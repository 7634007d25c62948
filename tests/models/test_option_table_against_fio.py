"""The option table (`iolab.models.option_spec`) against what fio itself declares of each option, for every
row at once (issue 41 item 8): fio 3.33's `--cmdhelp=NAME` of every row, recorded by
tests/data/fio/generate-cmdhelp.sh, gives each option's type, range, aliases and default. The end-to-end
tests ask the installed fio about a sample of rows; this reads the recorded answers for all of them, so a
row's bound or alias typed wrong fails in the fast tier."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from iolab.models.option_spec import FLOAT_LIST, INTEGER, ROWS
from iolab.models.option_values import parse_seconds, parse_size

RECORDED = Path(__file__).resolve().parents[1] / "data" / "fio" / "cmdhelp-fio-3.33.txt"


def _declared() -> dict[str, dict[str, str]]:
    """Option name -> what fio declares of it: its `type`, `default`, `range` and `alias` lines."""
    found: dict[str, dict[str, str]] = {}
    for block in RECORDED.read_text().split("\n\n"):
        lines = [line.strip() for line in block.strip().splitlines()]
        if not lines:
            continue
        name = lines[0].partition(":")[0].strip()
        found[name] = {key.strip(): value.strip() for key, _, value in (line.partition(": ") for line in lines[1:])}
    return found


DECLARED = _declared()
KNOWN = [row for row in ROWS if row.name in DECLARED]


def test_fio_declares_most_rows_and_every_numeric_one():
    assert len(KNOWN) >= 200  # the rest are engines' own options, which --cmdhelp without an engine leaves out
    assert all(row.name in DECLARED for row in ROWS if row.type in (INTEGER, FLOAT_LIST))


@pytest.mark.parametrize("row", [r for r in KNOWN if r.type == INTEGER], ids=lambda r: r.name)
def test_an_integer_row_has_fio_s_range(row):
    declared = DECLARED[row.name]
    assert declared["type"].startswith("integer value"), declared
    low, high = (int(v) for v in re.fullmatch(r"min=(-?\d+), max=(-?\d+)", declared["range"]).groups())  # type: ignore[union-attr]
    assert (row.low or 0, row.high) == (low, None if high == -1 else high)


@pytest.mark.parametrize("row", KNOWN, ids=lambda r: r.name)
def test_a_row_s_type_aliases_and_default_are_fio_s(row):
    declared = DECLARED[row.name]
    if row.type == FLOAT_LIST:
        assert declared["type"].startswith("list of floating point values")
    aliases = tuple(a.strip() for a in declared.get("alias", "").split(",") if a.strip())
    assert set(aliases) <= set(row.aliases), (aliases, row.aliases)
    if row.default is not None and declared.get("default") not in (None, "no default"):
        given, fio = row.default, declared["default"]
        as_number = parse_seconds if row.type == "seconds" else parse_size
        assert given == fio or as_number(given) == as_number(fio), (given, fio)
