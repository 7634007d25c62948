"""What runs before a point (runner.measure.Measurer._before), with fakes for what a test must not do (drop
this host's page cache, trim a device): a discard only before a writing point, a cache drop before every
point, the plan's pre-point commands in order; each kept as a phase of the run with how it ended, a phase
that went on without its effect noted once, and a failing command failing the point."""

from __future__ import annotations

import subprocess
from types import SimpleNamespace

import pytest

from iolab import programs
from iolab.errors import RunFailed
from iolab.models import Phases, Point, Target
from iolab.runner import measure
from iolab.runner.measure import Measurer
from iolab.runner.workdirs import Workdirs
from iolab.store.db import open_store
from iolab.store.queries import run_phases

FILE = Target(path="/x", kind="file", filename="/x", size_bytes=1 << 20)
READ = Point("read", FILE, {"rw": "randread"})
WRITE = Point("write", FILE, {"rw": "randwrite"})


class Proc:
    """`/proc/sys/vm/drop_caches` as `Path` would open it: refused (not root), or written."""

    refuse = True
    written: list[str] = []

    def __init__(self, path: str) -> None:
        assert path == "/proc/sys/vm/drop_caches"

    def write_text(self, text: str) -> None:
        if Proc.refuse:
            raise PermissionError(13, "Permission denied")
        Proc.written.append(text)


@pytest.fixture
def measurer(tmp_path, monkeypatch):
    monkeypatch.setattr(measure, "Path", Proc)
    synced: list[list[str]] = []
    real_run = subprocess.run
    monkeypatch.setattr(
        subprocess,
        "run",
        lambda argv, *a, **k: synced.append(argv) if argv == programs.command(["sync"]) else real_run(argv, *a, **k),
    )
    Proc.refuse, Proc.written = True, []
    store = open_store(tmp_path / "home")
    run_id = store.create_run("p", "", [], "")
    made = Measurer(
        store,
        "fio",
        SimpleNamespace(local=True),  # type: ignore[arg-type]
        Phases(),
        None,
        workdirs=Workdirs(store, run_id),
        held=SimpleNamespace(watch=SimpleNamespace(names=[])),  # type: ignore[arg-type]
    )
    made.synced = synced  # type: ignore[attr-defined]
    made.ids = store.plan_points(run_id, [READ, WRITE, WRITE])  # type: ignore[attr-defined]
    made.discarded = []  # type: ignore[attr-defined]
    monkeypatch.setattr(
        measure, "discard", lambda target, held: made.discarded.append(target.path) or "/x: discard failed (EIO)"
    )
    return made


def _phases(measurer: Measurer) -> list[tuple[str, str, str, int | None]]:
    return [(p.kind, p.subject, p.outcome, p.point_id) for p in run_phases(measurer.store, measurer.workdirs.run_id)]


def test_a_discard_comes_only_before_a_writing_point_and_its_failure_is_noted_once(measurer):
    measurer.phases = Phases(discard_before_writes=True)
    measurer._before(READ, 1, [])
    measurer._before(WRITE, 2, [])
    measurer._before(WRITE, 3, [])
    assert measurer.discarded == ["/x", "/x"]  # type: ignore[attr-defined]
    assert _phases(measurer) == [
        ("discard", "/x", "/x: discard failed (EIO)", 2),
        ("discard", "/x", "/x: discard failed (EIO)", 3),
    ]
    assert measurer.notes == ["/x: discard failed (EIO); writes start from an unknown state"]


def test_the_cache_is_synced_then_dropped_before_every_point_or_said_why_not(measurer):
    measurer.phases = Phases(drop_caches=True)
    one, two, _ = measurer.ids  # type: ignore[attr-defined]
    measurer._before(READ, one, [])
    problem = "could not drop the page cache (Permission denied; run as root for that)"
    assert _phases(measurer) == [("cache drop", "page cache, dentries and inodes", problem, one)]
    assert measurer.notes == [problem] and measurer.synced == [programs.command(["sync"])]  # type: ignore[attr-defined]
    Proc.refuse = False
    measurer._before(WRITE, 2, [])
    assert Proc.written == ["3\n"] and _phases(measurer)[-1] == (
        "cache drop",
        "page cache, dentries and inodes",
        "ok",
        2,
    )


def test_pre_point_commands_run_in_order_and_a_failing_one_fails_the_point(measurer, tmp_path):
    trail = tmp_path / "trail"
    first = ("sh", "-c", f"echo one >> {trail}")
    failing = ("sh", "-c", "exit 4")
    never = ("sh", "-c", f"echo never >> {trail}")
    measurer.phases = Phases(pre_point=(first, failing, never))
    artifacts: list = []
    with pytest.raises(RunFailed, match=r"^pre-point command failed: sh -c 'exit 4'$"):
        measurer._before(READ, measurer.ids[0], artifacts)  # type: ignore[attr-defined]
    assert trail.read_text() == "one\n"
    point_id = measurer.ids[0]  # type: ignore[attr-defined]
    assert _phases(measurer) == [
        ("pre command", f"sh -c 'echo one >> {trail}'", "ok", point_id),
        ("pre command", "sh -c 'exit 4'", "pre-point command failed: sh -c 'exit 4'", point_id),
    ]
    assert [a.name for a in artifacts] == ["pre-command", "pre-command"]
