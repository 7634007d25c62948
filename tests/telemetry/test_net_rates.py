"""Network rates from two readings of /proc/net/dev: what the sampler plots for storage reached over the
network (NVMe-oF, NFS, a fio client/server run). Either counter going back (an interface reset), or no time
between the readings, is no rate at all; otherwise each direction is its own bytes over the seconds."""

from __future__ import annotations

import itertools

import pytest

from iolab.telemetry.net import NetCounters, net_rates

BEFORE = NetCounters(rx_bytes=5_000_000, tx_bytes=7_000_000)


@pytest.mark.parametrize(
    ("rx_delta", "tx_delta", "seconds"),
    list(itertools.product([-1, 0, 3_000_000], [-1, 0, 1_000_000], [-1.0, 0.0, 0.25, 2.0])),
)
def test_a_rate_exists_only_when_both_counters_moved_forward_over_some_time(rx_delta, tx_delta, seconds):
    after = NetCounters(BEFORE.rx_bytes + rx_delta, BEFORE.tx_bytes + tx_delta)
    rates = net_rates(BEFORE, after, seconds)
    if rx_delta < 0 or tx_delta < 0 or seconds <= 0:
        assert rates is None
    else:
        assert rates == (rx_delta / seconds, tx_delta / seconds)


def test_receive_and_transmit_are_not_swapped_or_summed():
    after = NetCounters(BEFORE.rx_bytes + 4_000, BEFORE.tx_bytes + 1_000)
    assert net_rates(BEFORE, after, 2.0) == (2_000.0, 500.0)
