"""Stores holding real fio runs, made once per test session and shared by the report tests.

Running fio is the slow part, so each run is made once, in its
own IOLAB_HOME; tests that run the CLI point IOLAB_HOME at it.

Once per session, not once per worker: `make test` deals the three modules that read these runs to up to three
pytest-xdist workers, and each used to make its own (2.3 to 4.0 CPU-s a run). The first worker to ask makes
a run and leaves a copy of its store beside the workers' directories; the others wait for it (a lock, not a
clock) and open a copy of that copy in a home of their own, so no worker sees another's writes, as before.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from iolab.models import Plan, PointRecord, Run, Workload
from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest
from iolab.store.db import Store, open_store
from iolab.store.queries import get_run, list_runs, run_points

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


def _made_once(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], StoredRun]) -> StoredRun:
    """`make(home)` in this session's first worker to ask; a copy of its store in a home of this worker's own in
    the others (without pytest-xdist: `make`). The copy is SQLite's backup of the maker's store, taken once
    the run is stored, so it is the whole database and not files caught mid-write."""
    home = factory.mktemp("home")
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return make(home)
    shared = factory.getbasetemp().parent / f"stored-run-{name}"  # beside the workers' own directories
    with open(f"{shared}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes: after the copy is written or read
        copy = shared / "iolab.db"
        if not copy.is_file():
            made = make(home)
            shared.mkdir(mode=0o700, exist_ok=True)
            with sqlite3.connect(shared / "partial.db") as into:
                made.store.conn.backup(into)
            into.close()
            (shared / "partial.db").rename(copy)  # complete, or absent: never half a copy
            return made
        shutil.copyfile(copy, home / "iolab.db")
    os.chmod(home / "iolab.db", 0o600)
    store = open_store(home)
    (run,) = list_runs(store)  # the one run the maker stored
    return StoredRun(home, store, get_run(store, run.id), run_points(store, run.id))


@pytest.fixture(scope="session")
def qd_sweep(tmp_path_factory) -> StoredRun:
    """randread 4k at QD 4, 1, 2 (listed out of order), two repeats each, 1 s per point."""
    workloads = [
        Workload(name=f"rr-qd{qd}", options={"rw": "randread", "bs": "4k", "iodepth": str(qd), **QUICK})
        for qd in (4, 1, 2)
    ]
    plan = Plan(name=SWEEP_LABEL, workloads=workloads, repeat=2)
    return _made_once(tmp_path_factory, "qd", lambda home: _run_plan(home, tmp_path_factory.mktemp("data"), plan))


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
    return _made_once(tmp_path_factory, "bs", lambda home: _run_plan(home, tmp_path_factory.mktemp("data"), plan))
