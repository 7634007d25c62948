"""bench/mutation.py runs a mutant inside a multi-line statement against the tests of the line coverage.py
counted for it: a parenthesised `if (` condition that starts on the next line is counted on that line, not on
the `if`'s own (report/html.py's chart choice was "not covered" though six fast tests ran it)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import mutation  # noqa: E402

SOURCE = """
def chosen(axis, numeric):
    if (
        axis is None or not numeric[0]
    ):  # a comment long enough that the formatter keeps the condition on a line of its own
        return "bars"
    return "lines"
"""
# this test's own id: the bench drops names of tests that do not exist (one renamed in another file broke this)
TEST = (
    "tests/bench/test_mutation_statement_lines.py::"
    + "test_a_condition_counted_on_its_own_line_runs_the_tests_of_that_line"
)


def test_a_condition_counted_on_its_own_line_runs_the_tests_of_that_line():
    compiled = compile(SOURCE, "chosen.py", "exec")
    code = next(c for c in compiled.co_consts if hasattr(c, "co_lines"))
    counted = {line for _, _, line in code.co_lines() if line is not None}
    assert 3 not in counted and 4 in counted  # what coverage.py records: the condition's line, not the `if`'s
    (mutant,) = [m for m in mutation.draw("chosen.py", SOURCE, 1, 0) if m.change == "0 -> 1"]
    assert (mutant.statement, mutant.line) == (3, 4)
    covering = {"chosen.py": {line: [TEST] for line in counted}}
    assert mutation.covering_tests(covering, "chosen.py", mutant, SOURCE.splitlines()) == [TEST]
