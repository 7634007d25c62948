"""Measuring a disturbed point again (runner.session.Session), with a fake measurer and store: the budget is
a tenth of the run's points (at least one), and a point found busy again when measured again ends the
re-measuring for the rest of the run, whatever budget is left (the host is busy, not the moment)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from iolab.models import Point, Target
from iolab.runner.session import Session

TARGET = Target(path="/x", kind="file", filename="/x", size_bytes=1 << 20)


class Measurer:
    """Every measurement a result; counts them."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def measure(self, point, point_id, kept):
        self.calls.append(point.name)
        return SimpleNamespace(name=f"result {len(self.calls)}"), "", []


def _session(total: int, busy: list[bool]) -> tuple[Session, Measurer]:
    """A session of `total` points whose successive disturbance checks answer `busy` in turn."""
    measurer = Measurer()
    store = SimpleNamespace(reset=[], reset_point=lambda point_id: store.reset.append(point_id))
    progress = SimpleNamespace(said=[], phase=lambda text: progress.said.append(text))
    points = [Point(f"p{i}", TARGET, {"rw": "read", "iodepth": str(i + 1)}) for i in range(3)]
    session = Session(
        store=store,  # type: ignore[arg-type]
        run_id=1,
        measurer=measurer,  # type: ignore[arg-type]
        progress=progress,  # type: ignore[arg-type]
        done={},
        planned={p.key: 10 + i for i, p in enumerate(points)},
        total=total,
    )
    answers = iter(busy)
    session._disturbed = lambda point: next(answers)  # type: ignore[method-assign]
    session.points = points  # type: ignore[attr-defined]
    return session, measurer


@pytest.mark.parametrize(("total", "budget"), [(1, 1), (9, 1), (19, 1), (20, 2), (29, 2), (30, 3), (101, 10)])
def test_the_budget_is_a_tenth_of_the_points_at_least_one(total, budget):
    session, _ = _session(total, [])
    assert session.remeasure_budget == budget


def test_a_point_busy_again_ends_the_re_measuring_with_budget_left():
    session, measurer = _session(30, [True])
    first, second = session.points[:2]  # type: ignore[attr-defined]
    measured = (SimpleNamespace(name="first"), "", [])
    again = session._remeasure(first, [], measured)
    assert again[0].name == "result 1" and measurer.calls == ["p0"]
    assert session.reruns == ["p0"] and session.still_busy == ["p0"]
    assert session.store.reset == [10]  # type: ignore[attr-defined]
    assert session.progress.said == [  # type: ignore[attr-defined]
        "something else was busy during p0: measuring it again (1 of at most 3 this run)"
    ]
    kept = (SimpleNamespace(name="second"), "", [])
    assert session._remeasure(second, [], kept) is kept  # 2 of 3 left, but the host is busy: kept as measured
    assert measurer.calls == ["p0"] and session.still_busy == ["p0", "p1"]


def test_a_quiet_re_measure_leaves_the_budget_to_the_next_disturbed_point():
    session, measurer = _session(20, [False, False])
    first, second, third = session.points  # type: ignore[attr-defined]
    for point in (first, second):
        session._remeasure(point, [], (None, "", []))
    assert measurer.calls == ["p0", "p1"] and session.still_busy == []
    kept = (SimpleNamespace(name="third"), "", [])
    assert session._remeasure(third, [], kept) is kept  # 2 of 2 used
    assert session.still_busy == ["p2"] and session.reruns == ["p0", "p1"]


def test_a_re_measure_that_failed_is_not_checked_for_a_disturbance():
    session, measurer = _session(20, [])  # a check would find no answer left and fail the test
    measurer.measure = lambda point, point_id, kept: (None, "fio failed", [])  # type: ignore[method-assign]
    first = session.points[0]  # type: ignore[attr-defined]
    assert session._remeasure(first, [], (SimpleNamespace(), "", [])) == (None, "fio failed", [])
    assert session.still_busy == []


@pytest.mark.parametrize("stops", [False, True])
def test_a_lost_host_is_a_partial_point_and_stops_the_run_only_when_asked(stops):
    from iolab.errors import RunFailed

    session, _ = _session(3, [])
    session.measurer.executor = SimpleNamespace(stops_on_host_loss=stops)  # type: ignore[attr-defined]
    first = session.points[0]  # type: ignore[attr-defined]
    session._count_outcome(first, "", [])  # nothing lost: nothing said, whatever the policy
    assert session.failed == [] and session.partial == []
    if stops:
        with pytest.raises(RunFailed, match=r"^p0: host h2: gone; stopped there as --on-host-failure stop asks$"):
            session._count_outcome(first, "", ["h2: gone", "h3: slow"])
    else:
        session._count_outcome(first, "", ["h2: gone", "h3: slow"])
    assert session.partial == ["p0: without h2: gone, h3: slow"]  # said first, stopped or not
    session._count_outcome(first, "fio failed", [])
    assert session.failed == ["p0 on /x: fio failed"]


def test_a_targets_per_job_files_are_kept_while_their_layout_holds_and_emptied_when_it_changes(tmp_path):
    from iolab.models.point import PER_JOB_FORMAT
    from iolab.store.db import open_store
    from iolab.store.queries import open_scratch

    store = open_store(tmp_path / "home")
    run_id = store.create_run("p", "", [], "")
    directory = tmp_path / "d"
    directory.mkdir()
    target = Target(str(directory), "directory", str(directory / "iolab-scratch-ab12.dat"), 8 << 20, scratch=True)
    session = Session(store, run_id, None, None, {}, {}, 0)  # type: ignore[arg-type]

    def point(jobs: int, size: str) -> Point:
        return Point(
            "own", target, {"rw": "write", "numjobs": str(jobs), "size": size, "filename_format": PER_JOB_FORMAT}
        )

    session._per_job_directory(point(2, "1m"))
    files = directory / "iolab-scratch-ab12.files"
    assert [(r.path, r.kind) for r in open_scratch(store, run_id)] == [(str(files), "dir")]
    (files / "job0").write_bytes(b"laid out")
    session._per_job_directory(point(2, "1m"))  # the same files: fio reads them as they are
    assert (files / "job0").exists()
    session._per_job_directory(point(4, "1m"))  # another job count: another set of files
    assert list(files.iterdir()) == []
    (files / "job0").write_bytes(b"laid out")
    session._per_job_directory(point(4, "2m"))  # another size
    assert list(files.iterdir()) == [] and len(open_scratch(store, run_id)) == 1
