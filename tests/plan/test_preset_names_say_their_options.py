"""A preset's workload name is what a user reads in every table, finding and headline ("randread-4k-qd32-j4"),
so it must say what fio was told: each part of the name that names an option (the pattern, the block size,
`qd` the queue depth, `j` the job count, `Nx` the loops) is that option's value, in every workload of every
preset (the workloads, the steady-state rounds, the precondition, the latency curve's probe and its points)."""

from __future__ import annotations

import re

import pytest

from iolab.models import Workload
from iolab.plan.presets import PRESETS, latency_curve_workloads

PATTERNS = {"seqread": "read", "read": "read", "seqwrite": "write", "write": "write"}
PATTERNS |= {p: p for p in ("randread", "randwrite", "randrw", "rw", "readwrite")}


def _workloads(name: str) -> list[Workload]:
    plan = PRESETS[name].build()
    found = list(plan.workloads)
    if plan.steady_rounds is not None:
        found += plan.steady_rounds.round
    if plan.phases is not None and plan.phases.precondition is not None:
        found.append(plan.phases.precondition.workload)
    if plan.latency_curve is not None:
        probe = plan.latency_curve.probe
        found += [probe, *latency_curve_workloads(probe, 40_000.0, plan.latency_curve.fractions)]
    return found


def _said(name: str) -> dict[str, str]:
    """The options a workload's name states, by fio's option names."""
    said: dict[str, str] = {}
    for part in name.split("-"):
        if part in PATTERNS:
            said["rw"] = PATTERNS[part]
        elif m := re.fullmatch(r"qd(\d+)", part):
            said["iodepth"] = m.group(1)
        elif m := re.fullmatch(r"j(\d+)", part):
            said["numjobs"] = m.group(1)
        elif m := re.fullmatch(r"(\d+)x", part):
            said["loops"] = m.group(1)
        elif re.fullmatch(r"\d+[kmg]", part):
            said["bs"] = part
    return said


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_part_of_a_preset_workloads_name_is_the_option_fio_is_given(preset):
    for workload in _workloads(preset):
        said = _said(workload.name)
        given = {key: workload.options.get(key, "1" if key in ("numjobs", "iodepth") else None) for key in said}
        assert given == said, workload.name


def test_the_names_say_enough_to_be_checked():
    """Every preset with fixed workloads names at least the pattern and block size of each (a check that
    read no part would pass anything)."""
    for preset in ("quick", "array-read", "qd-sweep", "jobs-sweep", "bs-sweep", "ssd-steady", "latency-curve"):
        workloads = _workloads(preset)
        assert workloads and all({"rw", "bs"} <= set(_said(w.name)) for w in workloads), preset
    assert sum("iodepth" in _said(w.name) for p in PRESETS for w in _workloads(p)) >= 40
