"""On other hosts there is no fill job: fio lays out each host's scratch file itself, from the point's job file,
before the measured I/O. So that job file is the remote fill's, and O_DIRECT in it must be what the point says
(`Point.direct`) whatever order the workload gives `direct=` and its inverse `buffered=` in: fio lets the later
of the two decide (the local fill and precondition have the same test: tests/runner/test_phase_direct.py)."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from iolab.cluster import cluster as cluster_module
from iolab.cluster.cluster import Cluster
from iolab.cluster.hosts import HostSpec
from iolab.cluster.servers import HostState
from iolab.models import Point
from tests.runner.test_phase_direct import _effective_direct

CHOICES = [{}, {"direct": "1"}, {"direct": "0"}, {"buffered": "0"}, {"buffered": "1"}]
# Every pair of the workload's own choices, in both orders (a dict keeps the order the plan gave).
JOBS = [{**a, **b} for a, b in itertools.product(CHOICES, repeat=2)]
JOBS += [{"buffered": "1", "direct": "1"}, {"direct": "1", "buffered": "1"}, {"direct": "0", "buffered": "0"}]


@pytest.mark.parametrize("target_direct", [True, False])  # False: a host's file system refusing O_DIRECT
@pytest.mark.parametrize("job", JOBS, ids=lambda j: ",".join(f"{k}={v}" for k, v in j.items()) or "none")
def test_each_host_s_job_file_lays_out_and_writes_its_scratch_file_as_the_point_says(
    tmp_path, monkeypatch, job, target_direct
):
    monkeypatch.setattr(cluster_module, "listening", lambda state, *_: True)
    states = [HostState(HostSpec(f"h{i}", f"127.0.0.{11 + i}"), reachable=True) for i in range(2)]
    hosts = Cluster(states)
    target = replace(hosts.target("/srv/scratch", 64 << 20), direct=target_direct)
    point = Point("seqwrite", target, {"rw": "write", "bs": "1m", **job})
    written, lost = hosts.jobfiles(point, tmp_path)
    assert not lost and len(written) == 2
    for state, path in written:
        text = path.read_text()
        assert f"filename=/srv/scratch/iolab-scratch-{hosts.token}-{state.name}.dat" in text
        assert _effective_direct(text) is point.direct, text
        assert point.direct is (
            target_direct and _effective_direct("direct=1\n" + "".join(f"{k}={v}\n" for k, v in job.items()))
        )
