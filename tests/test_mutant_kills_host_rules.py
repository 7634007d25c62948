"""Host rules at their edges, on snapshots made here (issue 41 item 8: `bench/mutation.py --whole` found no
fast test holding these branches)."""

from __future__ import annotations

from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context
from iolab.models import Severity, Snapshot
from iolab.models.snapshot import BlockDevice


def _run(rule_id: str, snapshot: Snapshot):  # type: ignore[no-untyped-def]
    return [f for f in evaluate(Context(snapshot=snapshot), [r for r in all_rules() if r.id == rule_id])]


def test_a_powersave_governor_is_named_and_no_cpufreq_is_not_evaluated():
    (slow,) = _run("CPU-GOVERNOR", Snapshot(governors={"policy0": "powersave", "policy1": "performance"}))
    assert slow.title == "CPU governor powersave on 1 of 2 policies" and slow.severity is not Severity.NOT_EVALUATED
    (none,) = _run("CPU-GOVERNOR", Snapshot(governors={}))
    assert none.severity is Severity.NOT_EVALUATED


def test_a_raid5_at_the_kernel_default_stripe_cache_of_256_is_named():
    def md(size: int) -> Snapshot:
        return Snapshot(devices=[BlockDevice("md0", md_level="raid5", md_stripe_cache_size=size)])

    assert [f.subject for f in _run("MD-STRIPE-CACHE", md(256))] == ["md0"]
    assert _run("MD-STRIPE-CACHE", md(4096)) == []


def test_transparent_huge_pages_are_named_only_when_always():
    assert [f.title for f in _run("MEM-THP", Snapshot(thp_enabled="always"))] == ["transparent huge pages: always"]
    assert _run("MEM-THP", Snapshot(thp_enabled="madvise")) == []


def test_isolcpus_is_named_only_with_managed_irq():
    hit = Snapshot(cmdline="ro isolcpus=managed_irq,domain,2-7 quiet")
    assert [f.evidence["cmdline"] for f in _run("KERN-ISOLCPUS-MANAGED-IRQ", hit)] == [
        "isolcpus=managed_irq,domain,2-7"
    ]
    assert _run("KERN-ISOLCPUS-MANAGED-IRQ", Snapshot(cmdline="ro isolcpus=2-7 irqaffinity=0")) == []
    assert _run("KERN-ISOLCPUS-MANAGED-IRQ", Snapshot(cmdline="ro managed_irq quiet")) == []


def test_writeback_throttling_says_a_device_has_no_holders():
    device = BlockDevice("nvme0n1", rotational=False, wbt_lat_usec=2000, host_settings={"wbt_lat_usec": "2000"})
    (found,) = [f for f in _run("BLK-WBT", Snapshot(devices=[device])) if f.severity is not Severity.NOT_EVALUATED]
    assert found.evidence["holders"] == "(none)"


def test_nvme_over_tcp_is_named_a_fabric_and_pcie_is_not():
    snapshot = Snapshot(devices=[BlockDevice("nvme0n1", transport="tcp"), BlockDevice("nvme1n1", transport="pcie")])
    assert [f.title for f in _run("NVME-FABRIC", snapshot)] == ["nvme0n1 is NVMe over tcp"]
