"""bench/mutation.py keeps what a run stopped early judged, and stops when told. Three of four whole-src runs
ended at a session's deadline on a loaded host and left nothing (the result was written only at the end), and
`--budget-s` waited for the mutant in flight (up to 480 s past it). Each mutant's outcome is appended to a
journal as it is judged, a run again with the same draw skips what it holds, the deadline ends the tests in
flight (and every process they started), and a mutant's tests run fastest first by the map's times."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import mutation  # noqa: E402

MODULE = "numbers.py"
DRAW = {"seed": 5, "per_module": 4}
TESTS = ["tests/a.py::test_slow", "tests/b.py::test_fast", "tests/c.py::test_untimed"]
TIMES = {"tests/a.py::test_slow": 3.0, "tests/b.py::test_fast": 0.01}


def _mutants() -> list[mutation.Mutant]:
    return mutation.draw(MODULE, (mutation.SRC / MODULE).read_text(), DRAW["seed"], DRAW["per_module"])


def _fake_runs(monkeypatch, stop_at: int | None = None) -> list[list[str]]:  # type: ignore[no-untyped-def]
    """run_tests made to kill every mutant, or raise OutOfTime at its `stop_at`-th call; the tests of each call."""
    seen: list[list[str]] = []

    def fake(tree: Path, tests: list[str], timeout_s: float = mutation.TIMEOUT_S, deadline: float = 0.0) -> str:
        seen.append(tests)
        if stop_at is not None and len(seen) == stop_at:
            raise mutation.OutOfTime
        return "killed"

    monkeypatch.setattr(mutation, "run_tests", fake)
    monkeypatch.setattr(mutation, "covering_tests", lambda covering, module, mutant, lines: list(TESTS))
    return seen


def _setting(journal: Path) -> mutation.Setting:
    return mutation.Setting(covering={}, journal=mutation.Journal(journal, DRAW), durations=TIMES)


def test_a_stopped_run_keeps_what_it_judged_and_a_run_again_judges_only_the_rest(tmp_path, monkeypatch):
    journal, mutants = tmp_path / "run.jsonl", _mutants()
    seen = _fake_runs(monkeypatch, stop_at=3)
    outcomes: list[dict] = []
    with pytest.raises(mutation.OutOfTime):
        mutation.run_module(tmp_path, MODULE, mutants, _setting(journal), outcomes)
    assert len(outcomes) == 2  # the third was in flight: not judged
    assert (tmp_path / MODULE).read_text() == (mutation.SRC / MODULE).read_text()  # the copy restored
    # the run was killed as it wrote a line: that line is left out, the others kept
    with journal.open("a") as out:
        out.write('{"module": "numbers.py", "ind')
    seen.clear()
    monkeypatch.setattr(
        mutation, "run_tests", lambda tree, tests, timeout_s=0, deadline=0.0: seen.append(tests) or "killed"
    )
    again: list[dict] = []
    mutation.run_module(tmp_path, MODULE, mutants, _setting(journal), again)
    assert len(seen) == len(mutants) - 2  # only the mutants not judged before ran
    assert [o["index"] for o in again] == [m.index for m in mutants]
    assert again[:2] == outcomes


def test_a_journal_of_another_draw_is_refused(tmp_path):
    journal = tmp_path / "run.jsonl"
    mutation.Journal(journal, DRAW)
    with pytest.raises(SystemExit, match="another draw"):
        mutation.Journal(journal, {**DRAW, "seed": 6})


def test_a_mutants_tests_run_fastest_first_by_the_maps_times(tmp_path, monkeypatch):
    seen = _fake_runs(monkeypatch)
    mutation.run_module(tmp_path, MODULE, _mutants()[:1], _setting(tmp_path / "run.jsonl"), [])
    assert seen == [["tests/b.py::test_fast", "tests/a.py::test_slow", "tests/c.py::test_untimed"]]


def test_a_time_out_the_run_did_not_settle_is_counted_nowhere():
    judged = {"module": MODULE, "line": 1, "change": "c", "code": "x", "index": 1}
    outcomes = [{**judged, "outcome": "timeout"}, {**judged, "index": 2, "outcome": "killed"}]
    result = mutation.summary(outcomes)
    assert (result["mutants"], result["killed"], result["unsettled_timeouts"]) == (1, 1, 1)


def test_the_deadline_ends_the_tests_in_flight_and_what_they_started():
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            sleeper = os.fork()
            if sleeper == 0:
                time.sleep(60)
                os._exit(0)
            os.write(write, str(sleeper).encode())
            time.sleep(60)
        finally:
            os._exit(0)
    os.close(write)
    sleeper = int(os.read(read, 32))
    os.close(read)
    started = time.monotonic()
    try:
        with pytest.raises(mutation.OutOfTime):
            mutation.watch(pid, budget_s=100.0, tick_s=0.02, deadline=started + 0.2)
        assert time.monotonic() - started < 5.0  # not the child's 60 s, nor its budget's 100
        for _ in range(100):  # the group's grandchild is killed too (reaped by init: gone from /proc)
            if not Path(f"/proc/{sleeper}").exists() or "Z" in Path(f"/proc/{sleeper}/stat").read_text().split()[2]:
                break
            time.sleep(0.02)
        else:
            pytest.fail("the tests' own child outlived the deadline")
    finally:
        if Path(f"/proc/{sleeper}").exists():
            os.kill(sleeper, 9)


def test_a_stopped_run_returns_what_it_judged(monkeypatch, tmp_path):
    def run_module(tree, module, mutants, setting, outcomes):  # type: ignore[no-untyped-def]
        outcomes.append({"module": module, "outcome": "killed"})
        if module == MODULE:
            raise mutation.OutOfTime

    monkeypatch.setattr(mutation, "check_copy_is_used", lambda tree: None)
    monkeypatch.setattr(mutation, "run_module", run_module)
    outcomes, stopped = mutation.run_all(["errors.py", MODULE, "guards.py"], 1, 1, mutation.Setting())
    assert stopped and [o["module"] for o in outcomes] == ["errors.py", MODULE]
    assert json.dumps(outcomes)  # what main writes as the partial result


def test_modules_are_dealt_round_the_packages_so_a_stopped_run_sampled_each():
    modules = ["analysis/a.py", "analysis/b.py", "analysis/c.py", "cli/x.py", "errors.py", "runner/r.py"]
    order = mutation.spread(modules)
    assert sorted(order) == sorted(modules)
    assert {m.partition("/")[0] for m in order[:4]} == {"analysis", "cli", "errors.py", "runner"}
    assert [m for m in order if m.startswith("analysis/")] == ["analysis/a.py", "analysis/b.py", "analysis/c.py"]
