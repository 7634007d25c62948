"""bench/mutation.py: a mutant whose tests time out is not a kill by that alone. Under load the 120 s budget
ended slow tests that would have passed, and each such end counted as killed (14 of 399 in the seed-977
whole-src run). It runs once more after the others with a longer budget; a second time-out is a kill only
when the same tests pass unmutated within that budget, else the mutant is "unjudged" (not killed); the
result counts time-outs apart."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import mutation  # noqa: E402

MODULE = "numbers.py"


def _first_timeout(tree: Path) -> dict:
    """A copy holding the module as it is, and an outcome of its first mutant that timed out."""
    (tree / MODULE).write_text((mutation.SRC / MODULE).read_text())
    mutant = mutation.draw(MODULE, (mutation.SRC / MODULE).read_text(), 1, 1)[0]
    return {
        "module": MODULE,
        "index": mutant.index,
        "line": mutant.line,
        "change": mutant.change,
        "code": "x",
        "outcome": "timeout",
        "tests": ["tests/t.py"],
    }


def _answers(monkeypatch, mutated: str, unmutated: str) -> list[tuple[bool, float]]:  # type: ignore[no-untyped-def]
    """run_tests made to answer `mutated` for the mutant's copy and `unmutated` for the module as it is; the
    runs it saw (whether the copy held the mutant, the budget)."""
    seen: list[tuple[bool, float]] = []
    original = (mutation.SRC / MODULE).read_text()

    def fake(tree: Path, tests: list[str], timeout_s: float = mutation.TIMEOUT_S, deadline: float = 0.0) -> str:
        is_mutant = (tree / MODULE).read_text() != original
        seen.append((is_mutant, timeout_s))
        return mutated if is_mutant else unmutated

    monkeypatch.setattr(mutation, "run_tests", fake)
    return seen


@pytest.mark.parametrize(
    ("mutated", "unmutated", "outcome", "killed"),
    [
        ("killed", "survived", "killed", 1),  # a slow test that fails: killed, by a failure
        ("survived", "survived", "survived", 0),  # the time-out was the host's: not a kill
        ("timeout", "survived", "timeout", 1),  # still too slow where the tests pass unmutated: a kill by time-out
        ("timeout", "timeout", "unjudged", 0),  # too slow unmutated too: nothing can be said, not killed
        ("timeout", "killed", "unjudged", 0),  # the tests fail unmutated: nothing can be said either
    ],
)
def test_a_timed_out_mutant_is_run_again_longer_and_counted_by_what_that_run_says(
    tmp_path, monkeypatch, mutated, unmutated, outcome, killed
):
    first = _first_timeout(tmp_path)
    seen = _answers(monkeypatch, mutated, unmutated)
    other = {**first, "index": first["index"] + 1, "outcome": "killed"}
    outcomes = [dict(first), dict(other)]
    mutation.settle_timeouts(tmp_path, outcomes)
    assert outcomes[0]["outcome"] == outcome and outcomes[0]["rerun"] == outcome
    assert outcomes[1] == other  # not run again
    assert seen[0] == (True, mutation.RERUN_TIMEOUT_S) and mutation.RERUN_TIMEOUT_S > mutation.TIMEOUT_S
    assert seen[1:] == ([(False, mutation.RERUN_TIMEOUT_S)] if mutated == "timeout" else [])
    assert (tmp_path / MODULE).read_text() == (mutation.SRC / MODULE).read_text()  # the copy restored
    result = mutation.summary(outcomes)
    assert result["killed"] == 1 + killed
    assert result["timeouts"] == {"first_run": 1} | {
        kind: int(kind == outcome) for kind in ("killed", "survived", "timeout", "unjudged")
    }
    assert result["by_package"]["numbers.py"]["by_timeout"] == int(outcome == "timeout")
    if outcome == "unjudged":
        (survivor,) = result["survivors"]
        assert survivor["outcome"] == "unjudged" and "unmutated" in survivor["why"]


def test_a_kill_is_reused_by_a_rerun_but_a_time_out_never_run_again_is_not(tmp_path):
    first = {"module": MODULE, "index": 1, "change": "c", "source": "s", "line": 1, "code": "x"}
    outcomes = [
        {**first, "outcome": "timeout"},  # a result from before time-outs were run again
        {**first, "index": 2, "outcome": "timeout", "rerun": "timeout"},
        {**first, "index": 3, "outcome": "killed"},
    ]
    (tmp_path / "r.json").write_text(mutation.json.dumps({"outcomes": outcomes}))
    assert sorted(key[1] for key in mutation.previously_killed(tmp_path / "r.json")) == [2, 3]


def test_the_run_settles_its_time_outs_after_every_module_ran(monkeypatch):
    order: list[str] = []

    def run_module(tree, module, mutants, setting, outcomes):  # type: ignore[no-untyped-def]
        order.append(module)
        outcomes.append({"module": module, "outcome": "timeout"})

    def settle(tree, outcomes, setting):  # type: ignore[no-untyped-def]
        order.append("settle")
        for o in outcomes:
            o["outcome"] = "survived"

    monkeypatch.setattr(mutation, "check_copy_is_used", lambda tree: None)
    monkeypatch.setattr(mutation, "run_module", run_module)
    monkeypatch.setattr(mutation, "settle_timeouts", settle)
    outcomes, stopped = mutation.run_all(["errors.py", MODULE], 1, 1, mutation.Setting())
    assert order == ["errors.py", MODULE, "settle"] and not stopped
    assert [o["outcome"] for o in outcomes] == ["survived", "survived"]
