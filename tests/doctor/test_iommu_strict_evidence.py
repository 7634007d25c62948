"""IOMMU-STRICT's evidence, as a user reads it under the finding: the host's IOMMU units and the command line's
iommu tokens, or "?" and "(none)" where the snapshot has none (an IOMMU known only by its groups); a strict domain is named whether the device's
group says DMA or the command line forces iommu.strict=1."""

from __future__ import annotations

import pytest

from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context
from iolab.models import Snapshot
from iolab.models.snapshot import BlockDevice, PciPort


def _strict(units: list[str], cmdline: str | None, group: str = "DMA") -> list[dict[str, str]]:
    port = PciPort("0000:01:00.0", 16.0, 16.0, 4, 4, iommu_group="12", iommu_type=group)
    snapshot = Snapshot(
        iommu_units=units,
        iommu_group_types={"12": group},  # an IOMMU seen by its groups even where no unit was listed
        cmdline=cmdline,
        devices=[BlockDevice("nvme0n1", nvme_controller="nvme0", pcie=port)],
    )
    return [
        f.evidence for f in evaluate(Context(snapshot=snapshot), [r for r in all_rules() if r.id == "IOMMU-STRICT"])
    ]


@pytest.mark.parametrize(
    ("units", "cmdline", "shown"),
    [
        (["dmar0", "dmar1"], "ro quiet intel_iommu=on iommu=pt", ("dmar0,dmar1", "intel_iommu=on iommu=pt")),
        (["dmar0"], "ro quiet", ("dmar0", "(none)")),
        ([], None, ("?", "(none)")),
    ],
)
def test_the_evidence_names_the_iommu_units_and_the_command_lines_iommu_tokens(units, cmdline, shown):
    (evidence,) = _strict(units, cmdline)
    assert (evidence["group type"], evidence["IOMMU"], evidence["cmdline iommu"]) == ("DMA", *shown)


def test_a_lazy_domain_is_strict_only_when_the_command_line_forces_it():
    assert _strict(["dmar0"], "ro quiet", group="DMA-FQ") == []
    (forced,) = _strict(["dmar0"], "ro iommu.strict=1", group="DMA-FQ")
    assert forced["cmdline iommu"] == "iommu.strict=1"
