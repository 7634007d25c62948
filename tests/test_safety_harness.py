"""The generative safety harness tells a proper early refusal from a traceback (tests/safety_attacks.py).

A kind may meet a guard earlier than its own attack (the chain check refuses a home under another user's
directory while the kind sets it up): a UserError of one or two lines, as the CLI shows it with exit 2, is
a refusal; a longer UserError or any other exception is a traceback, and fails the case.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from iolab.errors import UserError
from tests.safety_attacks import Case, Outcome, World, attempt


def _run(kind) -> Outcome:
    """One case of `kind` made as run_cases makes each (`attempt`), without the loop devices of a real world."""
    outcome = Outcome()
    case = Case(0, "k", random.Random(0), World(Path("/nonexistent"), "", "", "", "", "", ""), outcome, "fio")
    attempt(kind, case)
    return outcome


def _raise(exc: Exception):
    def kind(case: Case) -> None:
        raise exc

    return kind


@pytest.mark.parametrize("message", ["one line", "what is wrong.\nFix: chmod go-w /x"])
def test_a_refusal_of_one_or_two_lines_counts_as_refused(message):
    outcome = _run(_raise(UserError(message)))
    assert outcome.failures == [] and outcome.refused == 1 and outcome.refusals == [f"k: {message}"]


@pytest.mark.parametrize("exc", [UserError("a\nb\nc"), UserError(""), RuntimeError("boom"), KeyError("x")])
def test_a_long_refusal_or_any_other_exception_is_a_traceback(exc):
    outcome = _run(_raise(exc))
    assert outcome.refused == 0 and len(outcome.failures) == 1 and outcome.failures[0].startswith("traceback:")
