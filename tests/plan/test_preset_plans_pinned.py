"""Every preset's plan, field by field, as earlier runs stored it (tests/data/presets/plans.json): a preset's
points are part of its runs' identity, so `run` resumes and `compare`/`history` line up runs only while the
preset makes the same points with the same options. A change to a preset must be deliberate: the file is
regenerated then (`.venv/bin/python tests/plan/test_preset_plans_pinned.py`) and the diff read in review.
The metadata preset's sizing helpers are pinned over a grid of inputs the same way."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from iolab.models import MetadataScaling, Workload
from iolab.plan.presets import (
    METADATA_OPERATIONS,
    PRESETS,
    calibration_seconds,
    latency_curve_workloads,
    metadata_files,
    metadata_workload,
    preset,
)

PINNED = Path(__file__).parents[1] / "data" / "presets" / "plans.json"
SETTINGS: dict[str, list[dict]] = {
    "quick": [{}, {"runtime": 3, "ramp": 0.5}],
    "array-read": [{}, {"runtime": 4.5, "ramp": 1}],
    "qd-sweep": [{}, {"max_qd": 32}, {"adaptive": True}, {"adaptive": True, "max_qd": 64, "max_jobs": 4}],
    "jobs-sweep": [{}, {"threads": [1, 3]}],
    "bs-sweep": [{}, {"iodepth": 4, "runtime": 2}],
    "latency-curve": [{}, {"fractions": [0.5, 1.0]}],
    "metadata": [{}, {"threads": [2, 4], "files_per_thread": 50, "runtime": 3}, {"runtime": 0.5}],
    "ssd-steady": [{}, {"round_runtime": 30, "max_rounds": 10}],
}


def _plain(value: object) -> object:
    return json.loads(json.dumps(value, default=str))


def made() -> dict[str, object]:
    """What the presets and the metadata sizing make today, as JSON."""
    plans = {
        f"{name} {json.dumps(settings, sort_keys=True)}": _plain(dataclasses.asdict(preset(name, **settings)))
        for name, options in SETTINGS.items()
        for settings in options
    }
    probe = Workload("p", {"rw": "randread", "numjobs": "4", "iodepth": "32"})
    scaling = MetadataScaling(threads=(1, 64), runtime=10.0)
    sizing = {
        "latency_curve_workloads": _plain(
            [dataclasses.asdict(w) for w in latency_curve_workloads(probe, 12_345.0, (0.1, 0.333, 1.0))]
        ),
        "metadata_workload": _plain(
            [dataclasses.asdict(metadata_workload(op, 8, 100, 2.5)) for op, _ in METADATA_OPERATIONS]
        ),
        "calibration_seconds": [
            calibration_seconds(MetadataScaling(threads=(1,), runtime=r, calibration_s=c))
            for r in (0.5, 1.0, 2.0, 10.0)
            for c in (0.5, 3.0)
        ],
        "metadata_files": [
            metadata_files(rate, scaling, threads, room)
            for rate in (-5.0, 0.0, 1.0, 10.0, 1_000.0, 1e6)
            for threads in (1, 8, 64)
            for room in (None, 100, 10_000)
        ],
    }
    return {"plans": plans, "sizing": sizing}


@pytest.fixture(scope="module")
def pinned() -> dict:
    return json.loads(PINNED.read_text())


@pytest.fixture(scope="module")
def today() -> dict:
    return made()


def test_every_preset_is_pinned(pinned):
    assert {key.split(" ")[0] for key in pinned["plans"]} == set(PRESETS)


@pytest.mark.parametrize("key", [f"{n} {json.dumps(s, sort_keys=True)}" for n, opts in SETTINGS.items() for s in opts])
def test_a_preset_makes_the_plan_its_earlier_runs_hold(pinned, today, key):
    assert today["plans"][key] == pinned["plans"][key]


@pytest.mark.parametrize(
    "helper", ["latency_curve_workloads", "metadata_workload", "calibration_seconds", "metadata_files"]
)
def test_the_metadata_and_latency_sizing_is_as_pinned(pinned, today, helper):
    assert today["sizing"][helper] == pinned["sizing"][helper]


if __name__ == "__main__":
    PINNED.write_text(json.dumps(made(), indent=1, sort_keys=True) + "\n")
