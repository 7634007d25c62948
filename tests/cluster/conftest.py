"""The fake ssh and fio of tests/cluster/fake_hosts, for every test here that asks for `fake_hosts`."""

from tests.cluster.fake_hosts import fake_hosts  # noqa: F401
