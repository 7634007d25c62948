"""What a multi-host point's outcome is (runner.executors.ClusterExecutor.measured), with a fake cluster: the
summed result with every host's outcome, the hosts lost before fio ran among them; when every host failed,
an error naming each host and why."""

from __future__ import annotations

from types import SimpleNamespace

from iolab.runner.executors import ClusterExecutor


def _measured(total, outcomes, lost):  # type: ignore[no-untyped-def]
    cluster = SimpleNamespace(outcomes=lambda parsed, text, ran, version: (total, list(outcomes)))
    jobs = SimpleNamespace(ran=["h1", "h2"], lost=list(lost))
    return ClusterExecutor(cluster).measured(None, None, "", jobs, None)  # type: ignore[arg-type]


def test_every_host_failing_is_an_error_naming_each_and_why():
    h1 = SimpleNamespace(host="h1", error="fio exited 1")
    h3 = SimpleNamespace(host="h3", error="unreachable")
    measured = _measured(None, [h1], [h3])
    assert measured.error == "every host failed: h1: fio exited 1; h3: unreachable"
    assert measured.hosts == [h1, h3] and measured.result is None


def test_a_summed_result_keeps_every_host_s_outcome_with_the_lost_ones():
    ok = SimpleNamespace(host="h1", error="")
    lost = SimpleNamespace(host="h3", error="unreachable")
    measured = _measured("sum", [ok], [lost])
    assert measured.result == "sum" and measured.error == "" and measured.hosts == [ok, lost]
