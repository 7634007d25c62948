"""Stores holding real fio runs, made once per test session and shared by the report tests.

Running fio is the slow part, so each run is made once, in its
own IOLAB_HOME; tests that run the CLI point IOLAB_HOME at it.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from iolab.models import Plan, PointRecord, Run, Workload
from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest
from iolab.store.db import Store, open_store
from iolab.store.queries import get_run, run_points

requires_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")

QUICK = {"runtime": "1", "ramp_time": "0", "time_based": "1", "ioengine": "libaio"}
SWEEP_LABEL = "qd | sweep *1*"
MIX_DESCRIPTION = "mixed | sizes"


@dataclass
class StoredRun:
    home: Path
    store: Store
    run: Run
    records: list[PointRecord]


def _run_plan(home: Path, target: Path, plan: Plan) -> StoredRun:
    store = open_store(home)
    request = RunRequest(plan=plan.name, targets=[str(target)], size=64 << 20, telemetry_interval=None)
    outcome = execute(request, store, SilentProgress(), plan=plan)
    return StoredRun(home, store, get_run(store, outcome.run_id), run_points(store, outcome.run_id))


@pytest.fixture(scope="session")
def qd_sweep(tmp_path_factory) -> StoredRun:
    """randread 4k at QD 4, 1, 2 (listed out of order), two repeats each, 1 s per point."""
    workloads = [
        Workload(name=f"rr-qd{qd}", options={"rw": "randread", "bs": "4k", "iodepth": str(qd), **QUICK})
        for qd in (4, 1, 2)
    ]
    plan = Plan(name=SWEEP_LABEL, workloads=workloads, repeat=2)
    return _run_plan(tmp_path_factory.mktemp("home"), tmp_path_factory.mktemp("data"), plan)


@pytest.fixture(scope="session")
def bs_sweep(tmp_path_factory) -> StoredRun:
    """randrw 70/30 with two jobs for 3 s at bs 64k, 1000 and 4k; bs=1000 fails under O_DIRECT."""
    options = {
        "rw": "randrw",
        "rwmixread": "70",
        "iodepth": "2",
        "numjobs": "2",
        **QUICK,
        "runtime": "3",
        "description": MIX_DESCRIPTION,
    }
    workloads = [Workload(name=f"mix-{bs}", options={**options, "bs": bs}) for bs in ("64k", "1000", "4k")]
    plan = Plan(name="bs-sweep", workloads=workloads, repeat=1)
    return _run_plan(tmp_path_factory.mktemp("home"), tmp_path_factory.mktemp("data"), plan)
