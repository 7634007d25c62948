"""NVMe health rules and the device-counter rules with each condition alone and each threshold bracketed
(issue 41: the fast tests held each rule with one firing log; a warning bit read from the wrong place,
throttled minutes counted only when both kinds are there, a fabric drive's SMART asked for, or the 16 MiB and
half-seen bounds moved passed them). Findings are read whole."""

from __future__ import annotations

import pytest

from iolab.analysis.device_traffic import DeviceTraffic
from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context
from iolab.models import Finding, Severity, Snapshot
from iolab.models.snapshot import BlockDevice, NvmeSmart

MIB = 1 << 20


def _run(rule_id: str, ctx: Context) -> list[Finding]:
    return evaluate(ctx, [r for r in all_rules() if r.id == rule_id])


def _smart(rule_id: str, transport: str | None = None, **values: int) -> list[Finding]:
    drive = BlockDevice("nvme0n1", nvme_controller="nvme0", transport=transport, smart=NvmeSmart(**values))
    return _run(rule_id, Context(snapshot=Snapshot(devices=[drive])))


@pytest.mark.parametrize(
    ("value", "named"),
    [
        (0x01, "spare below threshold"),
        (0x02, "temperature threshold exceeded"),
        (0x08, "read-only"),
        (0x20, "persistent memory region read-only"),
        (0x0C, "reliability degraded, read-only"),
        (0x40, "0x40"),  # a bit the specification does not name yet: its value
    ],
)
def test_each_critical_warning_bit_is_named_by_its_place(value, named):
    (found,) = _smart("NVME-CRITICAL-WARNING", critical_warning=value)
    assert (found.title, found.subject, found.severity) == (
        f"nvme0n1 critical warning: {named}",
        "nvme0n1",
        Severity.CRITICAL,
    )
    assert found.evidence["critical_warning"] == f"{value:#x}"
    assert found.evidence["bits"] == ("" if value == 0x40 else named.replace(", ", "; "))


def test_a_drive_without_a_warning_or_not_on_pcie_or_not_nvme_is_not_judged():
    assert _smart("NVME-CRITICAL-WARNING", critical_warning=0) == []
    assert _smart("NVME-CRITICAL-WARNING", transport="tcp", critical_warning=1) == []
    sata = BlockDevice("sda", smart=NvmeSmart(critical_warning=1))
    assert _run("NVME-CRITICAL-WARNING", Context(snapshot=Snapshot(devices=[sata]))) == []
    unread = BlockDevice("nvme0n1", nvme_controller="nvme0", smart_error="nvme-cli not installed")
    (blind,) = _run("NVME-CRITICAL-WARNING", Context(snapshot=Snapshot(devices=[unread])))
    assert (blind.title, blind.severity) == (
        "not evaluated: SMART of nvme0n1: nvme-cli not installed",
        Severity.NOT_EVALUATED,
    )
    (blind,) = _run("NVME-CRITICAL-WARNING", Context(snapshot=Snapshot(devices=[BlockDevice("nvme1n1")])))
    assert blind.title == "not evaluated: SMART of nvme1n1: not read"
    assert _run("NVME-SPARE-LOW", Context(snapshot=Snapshot(devices=[unread]))) == []  # said once, above


@pytest.mark.parametrize(
    ("spare", "thresh", "level"),
    [
        (11, 10, Severity.WARNING),
        (19, 10, Severity.WARNING),
        (20, 10, None),
        (10, 10, Severity.CRITICAL),
        (5, 10, Severity.CRITICAL),
    ],
)
def test_spare_is_named_within_ten_points_of_its_threshold_and_critical_at_it(spare, thresh, level):
    found = _smart("NVME-SPARE-LOW", avail_spare=spare, spare_thresh=thresh)
    assert [f.severity for f in found] == ([level] if level else [])
    if level:
        assert found[0].evidence == {"avail_spare": str(spare), "spare_thresh": str(thresh)}
    assert _smart("NVME-SPARE-LOW", avail_spare=spare) == [] and _smart("NVME-SPARE-LOW", spare_thresh=thresh) == []


def test_media_errors_from_one_and_wear_from_90_percent():
    (one,) = _smart("NVME-MEDIA-ERRORS", media_errors=1)
    assert one.evidence == {"media_errors": "1", "error log entries": "None"}
    assert _smart("NVME-MEDIA-ERRORS", media_errors=0) == [] and _smart("NVME-MEDIA-ERRORS") == []
    (worn,) = _smart("NVME-WEAR", percent_used=91)
    assert (worn.title, worn.evidence) == ("nvme0n1 is 91% through its rated endurance", {"percent_used": "91"})
    assert _smart("NVME-WEAR", percent_used=89) == []


def test_a_drive_hot_now_is_high_and_one_that_throttled_before_by_either_count_is_information():
    (hot,) = _smart("NVME-THERMAL", temperature_k=344, wctemp_k=343, warning_temp_time=0, critical_comp_time=2)
    assert hot.severity is Severity.WARNING
    assert hot.evidence == {
        "temperature": "71 C",
        "wctemp": "70 C",
        "warning_temp_time": "0 min",
        "critical_comp_time": "2 min",
    }
    (warm,) = _smart("NVME-THERMAL", temperature_k=300, wctemp_k=343, warning_temp_time=3)
    assert (warm.title, warm.severity) == ("nvme0n1 has spent 3 min above its warning temperature", Severity.INFO)
    (critical,) = _smart("NVME-THERMAL", temperature_k=300, wctemp_k=343, warning_temp_time=0, critical_comp_time=1)
    assert critical.severity is Severity.INFO
    (unknown_limit,) = _smart("NVME-THERMAL", temperature_k=350, critical_comp_time=1)  # no WCTEMP: not "hot"
    assert unknown_limit.severity is Severity.INFO and unknown_limit.evidence["wctemp"] == "?"
    assert _smart("NVME-THERMAL", temperature_k=342, wctemp_k=343, warning_temp_time=0, critical_comp_time=0) == []


def test_only_fabric_transports_are_named():
    for transport in ("tcp", "rdma", "fc"):
        drive = BlockDevice("nvme1n1", nvme_controller="nvme1", transport=transport)
        (found,) = _run("NVME-FABRIC", Context(snapshot=Snapshot(devices=[drive])))
        assert (found.title, found.evidence) == (f"nvme1n1 is NVMe over {transport}", {"transport": transport})
    local = BlockDevice("nvme1n1", nvme_controller="nvme1", transport="pcie")
    assert _run("NVME-FABRIC", Context(snapshot=Snapshot(devices=[local]))) == []


def _traffic(ddir: str, fio: int, device: float) -> Context:
    return Context(traffic=[DeviceTraffic("p1", {ddir: fio}, {ddir: device}, ("sdb", "sdc"))])


@pytest.mark.parametrize(
    ("rule_id", "ddir", "verb"), [("RES-FROM-CACHE", "read", "read"), ("RES-WRITES-UNSEEN", "write", "wrote")]
)
def test_a_device_that_moved_under_half_of_at_least_16_mib_did_not_carry_it(rule_id, ddir, verb):
    (found,) = _run(rule_id, _traffic(ddir, 16 * MIB, 8 * MIB - 1))
    assert found.subject == "p1" and found.title.startswith(f"p1: {verb} 16.0 MiB but sdb, sdc {verb} ")
    assert found.evidence == {f"fio {verb}": "16.0 MiB", f"device {verb}": "8.0 MiB", "devices": "sdb, sdc"}
    assert _run(rule_id, _traffic(ddir, 16 * MIB, 8 * MIB)) == []  # half seen: carried
    assert _run(rule_id, _traffic(ddir, 16 * MIB - 1, 0.0)) == []  # too few bytes to weigh
    other = "write" if ddir == "read" else "read"
    assert _run(rule_id, _traffic(other, 64 * MIB, 0.0)) == []  # the other direction is the other rule's
