"""The two executors on real fio output (tests/data/fio): what each makes of a point and of fio's answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.cluster.cluster import Cluster
from iolab.cluster.hosts import HostSpec
from iolab.cluster.servers import HostState
from iolab.errors import UserError
from iolab.fio.parse import aggregate, parse_output
from iolab.fio.run import FioInvocation, reported_messages
from iolab.models import Point, Target
from iolab.runner.executors import MULTIHOST_TARGET, PER_HOST, ClusterExecutor, Jobs, LocalExecutor

DATA = Path(__file__).parent.parent / "data" / "fio"
OK = FioInvocation(["fio"], 0, "", 1.0)


def _point(tmp_path: Path) -> Point:
    target = Target(path=str(tmp_path), kind="file", filename=str(tmp_path / "t.dat"), size_bytes=2**20)
    return Point("rr", target, {"rw": "randread", "bs": "4k", "runtime": "1s"})


def _hosts(*targets: str | None) -> ClusterExecutor:
    states = [
        HostState(HostSpec(f"h{i}", f"127.0.0.{11 + i}", target=t), reachable=True) for i, t in enumerate(targets)
    ]
    return ClusterExecutor(Cluster(states), "fio-3.33")


def test_local_jobs_are_one_job_file_kept_as_an_artifact(tmp_path):
    jobs = LocalExecutor("fio-3.33").jobs(_point(tmp_path), tmp_path, "cpu")
    text = jobs.jobfile.read_text()
    assert jobs.clients is None and not jobs.error
    assert f"filename={tmp_path / 't.dat'}" in text and "clocksource=cpu" in text
    assert [a.name for a in jobs.artifacts] == ["job.fio"] and jobs.artifacts[0].data == text.encode()


def test_local_result_is_fio_s_aggregate_and_a_failure_is_fio_s_own_words(tmp_path):
    parsed = parse_output((DATA / "randread-4jobs.json").read_text())
    executor = LocalExecutor(parsed.version)
    jobs = Jobs(tmp_path / "point.fio")
    measured = executor.measured(_point(tmp_path), parsed, "", jobs, OK)
    assert measured.result == aggregate(parsed.groups[0].entries, parsed.version) and not measured.error
    stderr = "fio: pid=7, err=5/file:io_u.c:1845, func=io_u error, error=Input/output error\n"
    failed = executor.measured(_point(tmp_path), parsed, "", jobs, FioInvocation(["fio"], 1, stderr, 1.0))
    assert failed.result is None and failed.error == stderr.strip()
    assert executor.measured(_point(tmp_path), None, "", jobs, OK).error == "fio exited with code 0"


def _failed(stderr: str, returncode: int, reported: str = "") -> FioInvocation:
    return FioInvocation(["fio"], returncode, stderr, 1.0, reported)


def test_fio_error_takes_the_last_error_line_else_the_exit_code():
    assert _failed("starting\nfio: first\nerror=Broken\n", 1).error_line() == "error=Broken"
    assert _failed("just a line\n", 1).error_line() == "just a line"
    assert _failed("", 9).error_line() == "fio exited with code 9"


def test_the_error_fio_wrote_into_its_output_file_is_the_one_line_said():
    """A full file system: fio (3.33, real output) wrote "err=28 ... No space left on device" ahead of its
    JSON in --output, and nothing to stderr; the point's error said "fio exited with code 2"."""
    reported = reported_messages(DATA / "enospc-filecreate.json")
    assert reported.count("\n") == 1 and "error=No space left on device" in reported
    line = _failed("", 2, reported).error_line()
    assert line.startswith("fio: pid=") and "err=28" in line and line.endswith("error=No space left on device")
    assert reported_messages(DATA / "randread-4jobs.json") == ""  # no message, no line


def test_a_job_error_fio_says_only_in_its_json_is_named(tmp_path):
    """One job out of inodes: fio 3.33 (real output) writes no message anywhere, only "error" : 28 in the
    job's JSON; the point's error names it instead of "fio exited with code 1"."""
    text = (DATA / "enospc-filecreate-1job.json").read_text()
    parsed = parse_output(text)
    failed = LocalExecutor(parsed.version).measured(
        _point(tmp_path), parsed, text, Jobs(tmp_path / "point.fio"), _failed("", 1)
    )
    assert failed.result is None
    assert failed.error == "fio: a job failed with error 28 (No space left on device)"
    assert reported_messages(DATA / "missing.json") == ""


def test_many_hosts_need_a_target_every_host_has():
    with pytest.raises(UserError) as refused:
        _hosts("/mnt/a", None).default_paths([])
    assert str(refused.value) == MULTIHOST_TARGET
    assert _hosts("/mnt/a", "/dev/nvme0n1").default_paths([]) == [PER_HOST]
    assert _hosts(None).default_paths(["/mnt/shared"]) == ["/mnt/shared"]
    assert LocalExecutor().default_paths([]) == ["."]


def test_many_hosts_write_a_job_file_each_and_sum_what_came_back(tmp_path):
    executor = _hosts(None, None, None)
    target = executor.target(str(tmp_path), allow_write=False, size=2**20, scratch=2**20)
    assert target.hosts == ("h0", "h1", "h2") and target.scratch
    assert "on each of 3 hosts" in executor.scratch_name(target)
    parsed = parse_output((DATA / "client-server-3hosts.json").read_text())
    ran = executor.cluster.states
    jobs = Jobs(tmp_path / "point@h0.fio", clients=[], ran=ran)
    measured = executor.measured(_point(tmp_path), parsed, "", jobs, OK)
    assert measured.result is not None and [o.status for o in measured.hosts] == ["ok", "ok", "ok"]
    assert measured.result.directions["read"].total_ios == parsed.all_clients[0]["read"]["total_ios"]
    assert not executor.local and LocalExecutor().local


def test_a_host_without_a_result_is_failed_and_named(tmp_path):
    executor = _hosts(None, None, None)
    parsed = parse_output((DATA / "client-server-3hosts.json").read_text())
    stranger = HostState(HostSpec("h9", "127.0.0.99"), reachable=True)
    executor.cluster.states.append(stranger)
    jobs = Jobs(tmp_path / "point@h0.fio", clients=[], ran=executor.cluster.states)
    measured = executor.measured(_point(tmp_path), parsed, "", jobs, OK)
    assert [(o.host, o.status) for o in measured.hosts][-1] == ("h9", "failed")
    assert executor.lost_hosts() == ["h9: no result came back from this host"]


def test_every_executor_goes_through_the_one_write_guard(tmp_path):
    """A remote device with --allow-write is refused by the same guard that checks a local one (the blank
    checks run on this host only); read, it stays read-only, and its writing points are refused at their turn
    by each executor's job files, as a local read-only target's are."""
    executor = _hosts(None, None)
    with pytest.raises(UserError, match="device on another host"):
        executor.target("/dev/nvme0n1", allow_write=True, size=None, scratch=None)
    device = executor.target("/dev/nvme0n1", allow_write=False, size=None, scratch=None)
    assert not device.writable
    writer = Point("w", device, {"rw": "randwrite", "bs": "4k"})
    for each in (executor, LocalExecutor()):
        with pytest.raises(UserError, match="writes \\(rw=randwrite\\)"):
            each.jobs(writer, tmp_path, None)
    scratch = executor.target(str(tmp_path), allow_write=True, size=2**20, scratch=2**20)
    assert scratch.writable and scratch.scratch  # a file iolab makes on each host is its own to write
