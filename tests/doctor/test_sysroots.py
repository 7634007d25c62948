"""Each modelled fault in a captured tree fires its rule with evidence; clean trees fire none."""

from __future__ import annotations

import pytest
from sysroots import BASE, CASES, ENDPOINT, MODELLED_RULES, PORT, add_nvme, copy_base, set_link, write

from iolab.doctor import diagnose
from iolab.models import Severity
from iolab.probe import Root, take_snapshot


def fired(tree, targets=()):
    findings = diagnose(take_snapshot(Root(tree), list(targets)))
    return [f for f in findings if f.severity is not Severity.NOT_EVALUATED]


@pytest.fixture
def nvme_tree(tmp_path):
    return add_nvme(copy_base(tmp_path / "host"))


def test_unedited_capture_fires_no_modelled_rule():
    ids = {f.rule_id for f in fired(BASE)}
    assert not ids & MODELLED_RULES
    # The capture host really is an AMD EPYC with SRSO safe-RET: that one is genuine.
    assert "MITIG-SRSO" in ids


def test_healthy_nvme_tree_fires_no_modelled_rule(nvme_tree):
    snap = take_snapshot(Root(nvme_tree))
    nvme = snap.device("nvme0n1")
    assert nvme is not None and nvme.pcie is not None and nvme.pcie.current_gts == 16.0
    assert nvme.smart is not None and nvme.smart.critical_warning == 0
    assert {f.rule_id for f in fired(nvme_tree)} & MODELLED_RULES == set()


@pytest.mark.parametrize("case", sorted(CASES))
def test_modelled_fault_fires_with_evidence(nvme_tree, case):
    edit, rule_id, shown = CASES[case]
    edit(nvme_tree)
    hits = [f for f in fired(nvme_tree) if f.rule_id == rule_id]
    assert hits, f"{rule_id} did not fire for {case}"
    text = " ".join([hits[0].title, *hits[0].evidence.values()])
    assert shown in text
    others = {f.rule_id for f in fired(nvme_tree)} & MODELLED_RULES - {rule_id}
    assert others == set(), f"{case} also fired {others}"


def test_srso_depends_on_the_vulnerability_file(tmp_path):
    tree = copy_base(tmp_path / "host")
    write(tree, "sys/devices/system/cpu/vulnerabilities/spec_rstack_overflow", "Mitigation: IBPB on VMEXIT only")
    assert "MITIG-SRSO" not in {f.rule_id for f in fired(tree)}


def test_target_on_nvme_scopes_and_gen3_ceiling(nvme_tree):
    CASES["gen3_x2"][0](nvme_tree)
    snap = take_snapshot(Root(nvme_tree), ["/data/fio-file"])
    assert snap.targets[0].device == "nvme0n1" and snap.targets[0].mount_point == "/data"
    finding = next(f for f in diagnose(snap) if f.rule_id == "PCIE-LINK-DEGRADED")
    assert finding.evidence["ceiling now"] == "1.97 GB/s"
    assert finding.evidence["ceiling capable"] == "7.88 GB/s"


def test_missing_smart_is_not_evaluated(nvme_tree):
    (nvme_tree / "iolab/commands/nvme-smart-log-nvme0.json").unlink()
    findings = diagnose(take_snapshot(Root(nvme_tree)))
    skipped = [f for f in findings if f.rule_id == "NVME-CRITICAL-WARNING"]
    assert skipped and skipped[0].severity is Severity.NOT_EVALUATED
    assert "nvme smart-log" in skipped[0].title


def test_a_port_that_trained_down_with_its_drive_is_a_degraded_link_not_a_slow_slot(nvme_tree):
    """Both ends capable of 16 GT/s x4, both running 8 GT/s: the link is degraded; the slot is not to blame."""
    set_link(nvme_tree, PORT, "8.0 GT/s PCIe", 4, "16.0 GT/s PCIe", 4)
    set_link(nvme_tree, ENDPOINT, "8.0 GT/s PCIe", 4, "16.0 GT/s PCIe", 4)
    ids = {f.rule_id for f in fired(nvme_tree)}
    assert "PCIE-LINK-DEGRADED" in ids and "PCIE-SLOT-LIMITED" not in ids
