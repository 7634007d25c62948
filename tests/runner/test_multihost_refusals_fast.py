"""What a multi-host run refuses before any host is contacted (runner.execute._start_executor and
check_hosts): the metadata preset and per-job files run on one host, --devices and a stopping rule do not mix
with --hosts, and a run needs a target every host has (given, in the plan, or in each host's entry). Without
hosts, this host's fio runs it."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.models import Plan, Workload
from iolab.models.plan import MetadataScaling
from iolab.runner.execute import _start_executor
from iolab.runner.executors import MULTIHOST_TARGET, LocalExecutor
from iolab.runner.request import RunRequest

READ = Workload("r", {"rw": "randread", "bs": "4k"})
HOSTS = [{"name": "a", "address": "10.0.0.1"}, {"name": "b", "address": "10.0.0.2"}]


@pytest.mark.parametrize(
    ("request_", "plan", "said"),
    [
        (
            RunRequest(hosts=HOSTS),
            Plan("m", [], metadata=MetadataScaling(threads=(1,), runtime=2)),
            "^the metadata preset runs on one host",
        ),
        (
            RunRequest(hosts=HOSTS),
            Plan("j", [Workload("j", {"rw": "read", "filename_format": "f.$jobnum"})]),
            '^files = "per-job"',
        ),
        (RunRequest(hosts=HOSTS, devices=["/dev/sdx", "/dev/sdy"]), Plan("p", [READ]), "--devices"),
        (RunRequest(hosts=HOSTS, stopping={"target": "2%"}), Plan("p", [READ]), "stop"),
        (RunRequest(hosts=HOSTS), Plan("p", [READ]), f"^{MULTIHOST_TARGET[:40]}"),
        (RunRequest(hosts=[HOSTS[0] | {"target": "/mnt/x"}, HOSTS[1]]), Plan("p", [READ]), f"^{MULTIHOST_TARGET[:40]}"),
    ],
)
def test_a_multi_host_run_is_refused_before_any_host_is_contacted(request_, plan, said):
    with pytest.raises(UserError, match=said):
        _start_executor(request_, plan, "fio-3.33")


def test_without_hosts_this_host_s_fio_runs_it():
    executor = _start_executor(RunRequest(), Plan("p", [READ]), "fio-3.33")
    assert isinstance(executor, LocalExecutor) and executor.local


class Contacted(Exception):
    """The checks passed: the hosts would be contacted now."""


@pytest.mark.parametrize(
    ("request_", "plan"),
    [
        (RunRequest(hosts=HOSTS, targets=["/mnt/shared"]), Plan("p", [READ])),
        (RunRequest(hosts=HOSTS), Plan("p", [READ], targets=["/mnt/shared"])),
        (RunRequest(hosts=[h | {"target": f"/mnt/{h['name']}"} for h in HOSTS]), Plan("p", [READ])),
    ],
)
def test_a_target_given_in_the_plan_on_the_command_line_or_by_every_host_passes(request_, plan, monkeypatch):
    from iolab.cluster import cluster

    def start(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise Contacted

    monkeypatch.setattr(cluster.Cluster, "start", start)
    with pytest.raises(Contacted):
        _start_executor(request_, plan, "fio-3.33")
