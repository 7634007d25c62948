"""PCIE-LINK-DEGRADED judges a link's width only where both widths were read (doctor.rules.pcie): an unknown
current width is no narrower link, whatever the capable one (a default of 0 for it once flagged a link
"x None" below a capable x1 or x4), and an unknown capable width bounds nothing. The speed alone still
judges such a link."""

from __future__ import annotations

import pytest

from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context
from iolab.models import Finding, Snapshot
from iolab.models.snapshot import BlockDevice, PciPort


def _degraded(port: PciPort) -> list[Finding]:
    device = BlockDevice("nvme0n1", nvme_controller="nvme0", transport="pcie", pcie=port)
    rules = [r for r in all_rules() if r.id == "PCIE-LINK-DEGRADED"]
    return evaluate(Context(snapshot=Snapshot(devices=[device])), rules)


@pytest.mark.parametrize(("now", "capable"), [(None, 1), (None, 4), (1, None), (4, None), (None, None)])
def test_a_width_unknown_on_either_side_is_not_judged(now: int | None, capable: int | None) -> None:
    assert _degraded(PciPort("0000:01:00.0", 16.0, 16.0, now, capable)) == []
    (slow,) = _degraded(PciPort("0000:01:00.0", 8.0, 16.0, now, capable))
    assert "Gen3" in slow.title and "capable of Gen4" in slow.title
    assert "None" not in slow.title  # an unknown width reads "x?", as the evidence says it


def test_a_known_narrower_width_alone_is_degraded() -> None:
    (narrow,) = _degraded(PciPort("0000:01:00.0", 16.0, 16.0, 1, 4))
    assert "x1" in narrow.title and "x4" in narrow.title
    assert _degraded(PciPort("0000:01:00.0", 16.0, 16.0, 4, 4)) == []
