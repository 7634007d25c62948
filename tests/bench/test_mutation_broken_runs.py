"""bench/mutation.py: a mutant that makes pytest itself stop (a session hook raising, exit 3 or a crash) is
killed when the same tests pass on the unmutated source, and stops the bench when they fail there too (the
run is wrong). views/columns.py's direction order (`present - set(...)` made `+`) broke the conftest's
session check and ended a whole run with "pytest could not run"."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import mutation  # noqa: E402


def _runs(monkeypatch, outcomes: list[str]) -> list[str]:  # type: ignore[no-untyped-def]
    """run_tests made to answer `outcomes` in turn ("broken" raises); the sources it saw, in turn."""
    seen: list[str] = []

    def fake(tree: Path, tests: list[str], timeout_s: float = mutation.TIMEOUT_S, deadline: float = 0.0) -> str:
        seen.append((tree / "m.py").read_text())
        outcome = outcomes.pop(0)
        if outcome == "broken":
            raise mutation.RunBroken("pytest could not run")
        return outcome

    monkeypatch.setattr(mutation, "run_tests", fake)
    return seen


def test_a_mutant_that_breaks_the_run_is_killed_when_its_tests_pass_without_it(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text("mutant")
    seen = _runs(monkeypatch, ["broken", "survived"])
    assert mutation._outcome(tmp_path, "m.py", "original", ["t"]) == "killed"
    assert seen == ["mutant", "original"]


def test_a_run_broken_without_the_mutant_too_stops_the_bench(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text("mutant")
    _runs(monkeypatch, ["broken", "killed"])
    with pytest.raises(SystemExit, match="fail on the unmutated source too"):
        mutation._outcome(tmp_path, "m.py", "original", ["t"])


@pytest.mark.parametrize("outcome", ["killed", "survived", "timeout"])
def test_an_ordinary_outcome_is_the_mutants(tmp_path, monkeypatch, outcome):
    (tmp_path / "m.py").write_text("mutant")
    seen = _runs(monkeypatch, [outcome])
    assert mutation._outcome(tmp_path, "m.py", "original", ["t"]) == outcome
    assert seen == ["mutant"]
