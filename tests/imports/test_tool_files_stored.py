"""What an import of another tool's output (IOR, mdtest, IOzone) stores, read from real outputs under
tests/data: each point's repeats planned in order under the point's name, one result recorded per repeat, at
the time the tool says the point began (the import's own time where it says none), the file kept once,
and a target that is a directory for mdtest (it makes and removes files in one) and a file otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.imports import tool_files
from iolab.imports.tool_files import read_tool, store_tool

DATA = Path(__file__).resolve().parents[1] / "data"
FILES = [
    ("ior", "ior/akrr-v30-ior-3.0.1.txt"),
    ("ior", "ior/akrr-v33-ior-3.3.0.txt"),
    ("ior-json", "ior/compspec-ior-4.0.0rc1.json"),
    ("mdtest", "mdtest/akrr-v1-mdtest-1.9.3.txt"),
    ("iozone", "iozone/iozone2csv-iozone-3.434-a.txt"),
]
NOW = 1_700_000_000.0


class _Recording:
    """A store that keeps what it is asked to plan and record."""

    def __init__(self) -> None:
        self.planned: list = []
        self.recorded: list[tuple] = []

    def plan_points(self, run_id: int, points: list) -> list[int]:
        first = 100 + len(self.planned)
        self.planned += points
        return list(range(first, first + len(points)))

    def record_point(self, point_id, result, samples, artifacts, started, finished) -> None:  # type: ignore[no-untyped-def]
        self.recorded.append((point_id, result, samples, artifacts, started, finished))


@pytest.mark.parametrize(("kind", "name"), FILES)
def test_every_repeat_is_planned_and_recorded_in_order_at_its_point_s_start(kind, name, monkeypatch):
    monkeypatch.setattr(tool_files.time, "time", lambda: NOW)
    data = (DATA / name).read_bytes()
    file = read_tool(DATA / name, data, data.decode(), kind)
    store = _Recording()
    ids = store_tool(store, 7, file)  # type: ignore[arg-type]
    expected = [(p, r, i) for p in file.output.points for i, r in enumerate(p.repeats)]
    assert ids == list(range(100, 100 + len(expected))) and len(expected) > 0
    assert [(q.name, q.repeat, q.options) for q in store.planned] == [(p.name, i, p.options) for p, _, i in expected]
    assert {q.target.kind for q in store.planned} == {"directory" if file.output.tool == "mdtest" else "file"}
    assert [q.target.path for q in store.planned] == [p.target for p, _, _ in expected]
    # the tools print no size of what they ran on: unknown (0); direct I/O as the tool's options said
    assert [(q.target.size_bytes, q.target.direct) for q in store.planned] == [(0, p.direct) for p, _, _ in expected]
    for (point_id, result, samples, artifacts, started, finished), (point, repeat, _) in zip(
        store.recorded, expected, strict=True
    ):
        assert result is repeat and samples == []
        assert started == finished == (point.started or NOW)
        assert artifacts == ([file.kept] if point_id == 100 else [])


def test_a_point_without_a_start_is_stored_at_the_import_s_time_and_one_with_a_start_at_it(monkeypatch):
    monkeypatch.setattr(tool_files.time, "time", lambda: NOW)
    data = (DATA / FILES[0][1]).read_bytes()
    file = read_tool(DATA / FILES[0][1], data, data.decode(), "ior")
    file.output.points[0].started = None
    for at, point in enumerate(file.output.points[1:]):
        point.started = 1000.0 + at
    store = _Recording()
    store_tool(store, 1, file)  # type: ignore[arg-type]
    first = len(file.output.points[0].repeats)
    times = [started for _, _, _, _, started, _ in store.recorded]
    assert times[:first] == [NOW] * first
    assert times[first:] == [1000.0 + at for at, p in enumerate(file.output.points[1:]) for _ in p.repeats]
    later = len(file.output.points) - 2
    assert (file.started, file.span.start, file.span.end) == (1000.0, 1000.0, 1000.0 + later)
