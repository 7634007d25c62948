"""What a multi-host run does when a host drops out of a point (runner.session.Session._count_outcome):
under --on-host-failure continue the point is kept as partial, named with the hosts it lacks, and the run
goes on; under stop the run ends there (RunFailed, exit 3) naming the point and the host; a point that lost
no host never stops the run, and a failed one is counted as failed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from iolab.errors import RunFailed
from iolab.runner.session import Session

POINT = SimpleNamespace(name="randread-qd4", target=SimpleNamespace(path="/data"))


def _session(stops: bool) -> Session:
    measurer = SimpleNamespace(executor=SimpleNamespace(stops_on_host_loss=stops))
    return Session(store=None, run_id=1, measurer=measurer, progress=None, done={}, planned={}, total=1)  # type: ignore[arg-type]


def test_a_lost_host_under_continue_keeps_the_point_as_partial_and_goes_on():
    session = _session(stops=False)
    session._count_outcome(POINT, "", ["h2", "h3"])  # type: ignore[arg-type]
    assert session.partial == ["randread-qd4: without h2, h3"] and session.failed == []


def test_a_lost_host_under_stop_ends_the_run_naming_the_point_and_the_host():
    session = _session(stops=True)
    with pytest.raises(RunFailed, match=r"^randread-qd4: host h2; stopped there as --on-host-failure stop asks$"):
        session._count_outcome(POINT, "", ["h2"])  # type: ignore[arg-type]


@pytest.mark.parametrize("stops", [False, True])
def test_no_host_lost_never_stops_the_run_and_a_failure_is_counted(stops):
    session = _session(stops)
    session._count_outcome(POINT, "", [])  # type: ignore[arg-type]
    session._count_outcome(POINT, "fio exited 1", [])  # type: ignore[arg-type]
    assert session.failed == ["randread-qd4 on /data: fio exited 1"] and session.partial == []
