"""The example plans shipped in examples/ stay valid and expand as documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.plan.planfile import load_plan

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    "name, count",
    [
        ("nvme-qd-table.toml", 4),
        ("nfs-scaling.toml", 28),
        ("matrix-zip-exclude.toml", 10),
        ("mixed.fio", 2),
        ("jobfile-sweep.toml", 8),
        ("scheduler-ab.toml", 6),
    ],
)
def test_example_expands(name, count):
    assert len(load_plan(EXAMPLES / name).workloads) == count
