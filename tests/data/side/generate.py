#!/usr/bin/env python3
"""Writes point.json: one real point's stored telemetry, result and side figures, for the side-figure tests.

A real `iolab run` (one 4 KiB random-read point on a scratch file in /dev/shm: 1 s ramp, 2 s measured)
while this script pushes about 20 MB/s through a loopback TCP connection for the whole point, so the
stored samples hold a loopback interface that carried traffic and others that did not. The file keeps
what the store kept: the point's per-second samples, its fio figures and the side figures the runner
computed, and the rate the script really sent (bytes sent over its own clock). Nothing in it is typed.

    .venv/bin/python tests/data/side/generate.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
from tests.loopback import Loopback  # noqa: E402

RATE = 20e6  # bytes/s pushed through lo
PLAN = """name = "side-data"
[options]
rw = "randread"
bs = "4k"
ioengine = "psync"
size = "64m"
ramp_time = 1
runtime = 2
time_based = 1
"""


def main() -> None:
    from iolab.store.db import open_store
    from iolab.store.queries import point_samples, run_points

    with tempfile.TemporaryDirectory(prefix="iolab-side-data-") as tmp:
        plan = Path(tmp) / "plan.toml"
        plan.write_text(PLAN)
        env = {**os.environ, "IOLAB_HOME": str(Path(tmp) / "home")}
        with Loopback(RATE) as loop:
            done = subprocess.run(
                [sys.executable, "-m", "iolab", "run", str(plan), "/dev/shm", "--no-report"],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
        if done.returncode != 0:
            raise SystemExit(f"iolab run failed: {done.stderr.strip()[-500:]}")
        store = open_store(Path(tmp) / "home")
        (record,) = [r for r in run_points(store, 1) if r.measured]
        assert record.result is not None
        document = {
            "generated_by": "tests/data/side/generate.py",
            "ramp_ms": 1000,
            "loopback_bytes_per_s": loop.sent_rate,
            "cpus": os.cpu_count(),
            "result": {
                "iops": sum(d.iops for d in record.result.directions.values()),
                "usr_cpu": record.result.usr_cpu,
                "sys_cpu": record.result.sys_cpu,
            },
            "samples": [
                [s.metric, s.ddir, s.source, s.t_ms, s.value]
                for s in point_samples(store, record.id)
                if s.metric.startswith(("cpu.", "net."))
            ],
            "stored": {name: [m.value, m.problem] for name, m in sorted(record.metrics.items())},
        }
    (HERE / "point.json").write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {HERE / 'point.json'}: {len(document['samples'])} samples, stored {sorted(document['stored'])}")


if __name__ == "__main__":
    main()
