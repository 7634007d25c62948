"""Network interface byte counters from /proc/net/dev.

Storage reached over the network (NVMe-oF, iSCSI, NFS, a fio client/server
run) shows its traffic here, not in /proc/diskstats.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NetCounters:
    rx_bytes: int
    tx_bytes: int


def parse_net_dev(text: str, interfaces: frozenset[str] | None = None) -> dict[str, NetCounters]:
    """Byte counters per interface; only `interfaces` when given."""
    out: dict[str, NetCounters] = {}
    for line in text.splitlines():
        name, sep, rest = line.partition(":")
        if not sep:
            continue
        name = name.strip()
        if interfaces is not None and name not in interfaces:
            continue
        fields = rest.split()
        if len(fields) < 9 or not fields[0].isdigit():
            continue
        out[name] = NetCounters(rx_bytes=int(fields[0]), tx_bytes=int(fields[8]))
    return out


def net_rates(before: NetCounters, after: NetCounters, seconds: float) -> tuple[float, float] | None:
    """(rx, tx) bytes/s; None when a counter went backwards (interface reset)."""
    rx, tx = after.rx_bytes - before.rx_bytes, after.tx_bytes - before.tx_bytes
    if seconds <= 0 or rx < 0 or tx < 0:
        return None
    return rx / seconds, tx / seconds
