"""What iolab does on other hosts when the command line says nothing (issue 41: `bench/mutation.py --whole`
left this held by no fast test): each host's scratch file is 2 GiB, as on this host (docs/running.md), since
free space on another host is not visible from here."""

from __future__ import annotations

import pytest

from iolab.cluster import cluster as cluster_module
from iolab.cluster.cluster import Cluster
from iolab.cluster.hosts import HostSpec
from iolab.cluster.servers import HostState
from iolab.models import Point


@pytest.mark.parametrize(("size", "written"), [(None, "size=2147483648"), (64 << 20, "size=67108864")])
def test_each_hosts_scratch_file_is_2_gib_unless_a_size_is_given(tmp_path, monkeypatch, size, written):
    monkeypatch.setattr(cluster_module, "listening", lambda state, *_: True)
    hosts = Cluster([HostState(HostSpec(f"h{i}", f"127.0.0.{11 + i}"), reachable=True) for i in range(2)])
    point = Point("seqwrite", hosts.target("/srv/scratch", size), {"rw": "write", "bs": "1m"})
    jobs, lost = hosts.jobfiles(point, tmp_path)
    assert not lost and len(jobs) == 2
    for _, path in jobs:
        assert written in path.read_text().splitlines()
