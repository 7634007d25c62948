"""Which points a run measures and which it already has (runner.session.Session._known), with a store that
records what it is asked: a point finished before (a resumed run) is reused; `again` forgets it first and
clears its rows; a depth an adaptive search already ran this run is reused unless asked again; a new point is
planned once and counted; one planned before and measured is cleared before it is measured again."""

from __future__ import annotations

from types import SimpleNamespace

from iolab.models import Point, Target
from iolab.runner.session import Session

TARGET = Target("/srv", "directory", "/srv/iolab-scratch.dat", 1 << 30)


def _point(name: str) -> Point:
    return Point(name, TARGET, {"rw": "randread", "bs": "4k"})


class Store:
    def __init__(self) -> None:
        self.asked: list[str] = []
        self.next_id = 100

    def plan_points(self, run_id: int, points: list[Point]) -> list[int]:
        self.asked.append(f"plan {points[0].name}")
        self.next_id += 1
        return [self.next_id]

    def reset_point(self, point_id: int) -> None:
        self.asked.append(f"reset {point_id}")


def _session(done: dict, planned: dict) -> Session:
    return Session(
        store=Store(), run_id=1, measurer=None, progress=None, done=done, planned=planned, total=len(planned)
    )  # type: ignore[arg-type]


def test_a_point_finished_before_is_reused_and_again_forgets_it_first():
    old = _point("old")
    session = _session({old.key: SimpleNamespace(result="kept")}, {old.key: 7})
    assert session._known(old, False) == (True, "kept") and session.store.asked == []
    assert session._known(old, True) == (False, None)
    assert session.store.asked == ["reset 7"] and old.key not in session.done and session.total == 1


def test_a_new_point_is_planned_once_and_counted():
    new = _point("new")
    session = _session({}, {})
    assert session._known(new, False) == (False, None)
    assert session.store.asked == ["plan new"] and session.planned == {new.key: 101} and session.total == 1


def test_a_depth_measured_this_run_is_reused_unless_asked_again_which_clears_its_rows():
    depth = _point("qd8")
    session = _session({}, {depth.key: 9})
    session.results[depth.key] = "first"
    assert session._known(depth, False) == (True, "first") and session.store.asked == []
    assert session._known(depth, True) == (False, None) and session.store.asked == ["reset 9"]
    assert session.total == 1  # planned already: not counted twice
