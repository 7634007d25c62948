"""bench/mutation.py: a mutant of a class field's default (Plan's `repeat: int = 1`) runs against the tests
that make the class. The default is taken by the generated __init__, which has no line of source; the bench
looked for src/ lines naming the bare word `repeat`, which Point.repeat shares: 163 tests, beyond the cap of
80, so the mutant ran only against the files importing models/plan.py, and survived where a preset's
estimate doubles. Its readers are now the class's own lines reading the field (`__post_init__` reads
`self.repeat` at every construction), then the lines making the class, then the lines reading `.repeat`,
each group added while the whole stays within the cap."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import mutation  # noqa: E402

SOURCE = (mutation.SRC / "models/plan.py").read_text()
LINES = SOURCE.splitlines()


def _line(module: str, text: str) -> int:
    return next(i for i, line in enumerate((mutation.SRC / module).read_text().splitlines(), 1) if text in line)


def test_plan_repeat_default_runs_against_the_tests_that_construct_a_plan_not_those_of_point_repeat():
    (mutant,) = [m for m in mutation.draw("models/plan.py", SOURCE, 1, 0) if "repeat: int = 1" in LINES[m.line - 1]]
    assert mutant.statement < 0  # run at import: the readers decide
    post_init = _line("models/plan.py", "RepeatPolicy(count=self.repeat)")
    point_reads = _line("models/point.py", '"repeat": self.repeat')
    builds = _line("plan/presets.py", "return Plan(")
    others = [f"tests/p.py::test_point_{i}" for i in range(2 * mutation.MAX_READERS)]
    covering = {
        "models/plan.py": {abs(mutant.statement): [], post_init: ["tests/p.py::test_constructs_a_plan"]},
        "models/point.py": {point_reads: others},
        "plan/presets.py": {builds: ["tests/p.py::test_a_preset"]},
    }
    readers = mutation._import_readers(covering, covering["models/plan.py"], abs(mutant.statement), LINES)
    # the class's own reader and the tests making a Plan; Point.repeat's 160 readers would pass the cap
    assert readers == {"tests/p.py::test_constructs_a_plan", "tests/p.py::test_a_preset"}
    # with few enough of them, the tests reading `.repeat` anywhere are readers too
    covering["models/point.py"] = {point_reads: others[:3]}
    readers = mutation._import_readers(covering, covering["models/plan.py"], abs(mutant.statement), LINES)
    assert readers == {"tests/p.py::test_constructs_a_plan", "tests/p.py::test_a_preset", *others[:3]}


def test_a_module_constant_keeps_its_readers_by_name():
    """Not a field: `NAME = ...` at module level is still read where src/ names it."""
    source = (mutation.SRC / "runner/phases.py").read_text().splitlines()
    at = _line("runner/phases.py", "_SLOWEST_FILL = ")
    assert mutation._field_owner(source, at) is None
    (field_at,) = [i for i, line in enumerate(LINES, 1) if "repeat: int = 1" in line]
    assert mutation._field_owner(LINES, field_at)[0] == "Plan"
