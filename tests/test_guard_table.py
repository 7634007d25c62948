"""Every registered guard has a row in docs/safety.md and a generated attack aimed at it.

The registry is read after every module of iolab is imported (`tests.guard_registry`): a guard registers
itself when its module loads, and the command line loads most modules only inside a command.
"""

from __future__ import annotations

import re
from pathlib import Path

from iolab import guards
from tests.guard_registry import load_all
from tests.safety_attacks import KINDS

PAGE = Path(__file__).resolve().parents[1] / "docs" / "safety.md"
_ROW = re.compile(r"^\| `([a-z-]+)` \|(.*)\| `([a-z-]+)`: ", re.MULTILINE)


def _rows() -> dict[str, str]:
    """guard -> the case kind its row says catches it."""
    return {m.group(1): m.group(3) for m in _ROW.finditer(PAGE.read_text())}


def test_every_registered_guard_has_a_row_naming_the_kind_aimed_at_it():
    registered = load_all()
    rows = _rows()
    assert len(registered) >= 18
    assert sorted(set(registered) - set(rows)) == [], "registered guards without a row in docs/safety.md"
    assert sorted(set(rows) - set(registered)) == [], "rows in docs/safety.md for guards nobody registers"
    aimed = {guard: kind for kind, (_, _, guard) in KINDS.items() if guard}
    assert sorted(set(registered) - set(aimed)) == [], "registered guards no generated attack is aimed at"
    assert {guard: rows[guard] for guard in registered} == {guard: aimed[guard] for guard in registered}


def test_a_guard_registered_without_a_row_is_found_missing():
    name = "test-only guard"
    guards.register(name, "nothing", "tests.test_guard_table")
    try:
        assert name in load_all() and name not in _rows()
    finally:
        del guards.GUARDS[name]
