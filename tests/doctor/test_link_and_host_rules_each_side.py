"""PCIe link rules and the multi-host rules with each part of their trigger alone and their ratios just either
side of the threshold (issue 41: the fast tests' degraded links were short of both speed and width, their
balanced hosts were equal and their AER files all present, so `or` turned into `and`, a ratio moved, or a
missing count read as one passed). Each finding is read whole."""

from __future__ import annotations

import pytest

from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context
from iolab.models import Finding, Severity, Snapshot
from iolab.models.material import HostRow
from iolab.models.snapshot import BlockDevice, PciPort


def _run(rule_id: str, ctx: Context) -> list[Finding]:
    return evaluate(ctx, [r for r in all_rules() if r.id == rule_id])


def _drive(port: PciPort, upstream: list[PciPort] | None = None) -> Context:
    device = BlockDevice("nvme0n1", nvme_controller="nvme0", transport="pcie", pcie=port, upstream=upstream or [])
    return Context(snapshot=Snapshot(devices=[device]))


def _link(gts: float, width: int, max_gts: float = 16.0, max_width: int = 4, **aer: int | None) -> PciPort:
    return PciPort("0000:01:00.0", gts, max_gts, width, max_width, **aer)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("gts", "width", "shown", "now"),
    # speed alone, width alone, both; 128b/130b encoding: 7.88 GB/s for Gen4 x4
    [(8.0, 4, "Gen3 x4", "3.94 GB/s"), (16.0, 2, "Gen4 x2", "3.94 GB/s"), (8.0, 1, "Gen3 x1", "985 MB/s")],
)
def test_a_link_short_of_its_speed_or_its_width_alone_is_degraded(gts, width, shown, now):
    (found,) = _run("PCIE-LINK-DEGRADED", _drive(_link(gts, width)))
    assert (found.title, found.subject, found.severity) == (
        f"nvme0n1 runs at {shown}, capable of Gen4 x4",
        "nvme0n1",
        Severity.WARNING,
    )
    assert found.evidence == {
        "endpoint": "0000:01:00.0",
        "current": f"{gts} GT/s x{width}",
        "capable": "16.0 GT/s x4",
        "ceiling now": now,
        "ceiling capable": "7.88 GB/s",
    }


def test_a_link_at_its_capability_or_with_unknown_widths_is_not_degraded():
    assert _run("PCIE-LINK-DEGRADED", _drive(_link(16.0, 4))) == []
    assert _run("PCIE-LINK-DEGRADED", _drive(PciPort("0000:01:00.0", 16.0, 16.0, None, None))) == []
    (blind,) = _run("PCIE-LINK-DEGRADED", _drive(PciPort("0000:01:00.0", None, 16.0, 4, 4)))
    assert blind.severity is Severity.NOT_EVALUATED and "0000:01:00.0" in blind.title
    over_tcp = BlockDevice("nvme1n1", transport="tcp")
    assert _run("PCIE-LINK-DEGRADED", Context(snapshot=Snapshot(devices=[over_tcp]))) == []


def test_the_narrowest_bridge_capable_of_less_than_the_drive_is_named():
    narrow, narrower = PciPort("0000:00:01.0", 8.0, 8.0, 4, 4), PciPort("0000:00:00.0", 8.0, 8.0, 2, 2)
    (found,) = _run("PCIE-SLOT-LIMITED", _drive(_link(8.0, 4), [PciPort("0000:00:02.0", None, None), narrow, narrower]))
    assert (found.title, found.subject) == (
        "nvme0n1 is limited to 1.97 GB/s by upstream port 0000:00:00.0",
        "nvme0n1",
    )
    assert found.evidence == {
        "limiting port": "0000:00:00.0",
        "its capability": "8.0 GT/s x2",
        "port ceiling": "1.97 GB/s",
        "device capable": "7.88 GB/s",
    }
    wide = PciPort("0000:00:01.0", 16.0, 16.0, 4, 4)
    assert _run("PCIE-SLOT-LIMITED", _drive(_link(16.0, 4), [wide])) == []  # as capable as the drive


def test_aer_counts_name_the_port_fatal_and_nonfatal_high_correctable_alone_information():
    def aer(**counts: int | None) -> list[Finding]:
        return _run("PCIE-AER", _drive(_link(16.0, 4, **counts)))

    (fatal,) = aer(aer_fatal=1)  # the other counts' files absent
    assert (fatal.title, fatal.severity) == ("0000:01:00.0 (above nvme0n1) counted PCIe errors", Severity.WARNING)
    assert fatal.evidence == {"fatal": "1", "nonfatal": "None", "correctable": "None"}
    assert aer(aer_nonfatal=2)[0].severity is Severity.WARNING
    assert aer(aer_fatal=0, aer_nonfatal=0, aer_correctable=5)[0].severity is Severity.INFO
    assert aer(aer_fatal=0, aer_nonfatal=0, aer_correctable=0) == [] and aer() == []
    bridge = PciPort("0000:00:01.0", aer_nonfatal=3)
    (above,) = _run("PCIE-AER", _drive(_link(16.0, 4), [bridge]))
    assert above.title == "0000:00:01.0 (above nvme0n1) counted PCIe errors"


def _hosts(*rows: tuple[str, float | None, int | None], status: str = "ok") -> Context:
    return Context(hosts={"p1": [HostRow(1, host, status, "", ms, bw) for host, bw, ms in rows]})


@pytest.mark.parametrize(("slow", "flagged"), [(79.0, True), (80.0, False), (90.0, False), (99.0, False)])
def test_the_slowest_host_is_imbalanced_below_80_percent_of_the_fastest_only(slow, flagged):
    found = _run("HOSTS-IMBALANCE", _hosts(("a", 100e6, 1000), ("b", slow * 1e6, 1000), ("c", 95e6, 1000)))
    assert bool(found) is flagged
    if flagged:
        (one,) = found
        assert (one.title, one.subject) == ("p1: b reached 79% of a's bandwidth", "b")
        assert one.evidence == {"slowest": "b 79.0 MB/s", "fastest": "a 100 MB/s", "hosts": "3"}


def test_imbalance_needs_two_hosts_that_finished_with_a_bandwidth():
    assert _run("HOSTS-IMBALANCE", _hosts(("a", 100e6, 1000), ("b", 0.0, 1000))) == []
    assert _run("HOSTS-IMBALANCE", _hosts(("a", 100e6, 1000))) == []
    assert _run("HOSTS-IMBALANCE", _hosts(("a", 100e6, 1000), ("b", 10e6, 1000), status="failed")) == []


@pytest.mark.parametrize(("first_ms", "flagged"), [(8999, True), (9000, False), (9500, False)])
def test_a_host_done_before_90_percent_of_the_last_ones_time_is_a_straggler(first_ms, flagged):
    found = _run("HOSTS-STRAGGLER", _hosts(("a", 1e6, 10000), ("b", 1e6, first_ms), ("c", 1e6, 9900)))
    assert bool(found) is flagged
    if flagged:
        (one,) = found
        assert (one.subject, one.title) == ("a", "p1: b was done after 9 s, a after 10 s")
        assert one.evidence == {"first done": "b 9.0 s", "last done": "a 10.0 s"}


def test_a_failed_host_is_named_with_its_error_and_a_finished_one_is_not():
    rows = [HostRow(1, "a", "ok", "", 1000, 1e6), HostRow(1, "b", "failed", "ssh: connection reset", None)]
    (found,) = _run("HOSTS-FAILED", Context(hosts={"p1": rows}))
    assert (found.title, found.subject, found.evidence) == (
        "p1: host b failed; the result is of the other hosts",
        "b",
        {"error": "ssh: connection reset"},
    )
