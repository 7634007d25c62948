"""How long does `iolab history` take, end to end, on a store of 10,000 hourly runs?

The store is built with bulk inserts into the real schema (opened, so
migrated, by `open_store`): one sequential-read workload, 3% noise, two
steps (-14% at 35% of the runs with `spec_rstack_overflow=safe-ret` added
to the kernel command line, -17% at 70% with `mitigations=off` removed, as
in the Lustre seed's BIOS and checksum changes), a failed run every 500,
and a real host snapshot of this machine before and after every run. The
time is the whole command in a fresh process (Python start, imports, the
series query, the analysis, the snapshot diffs at the change points and the
printing), median of 5, with `--all` (every run: `history` reads each
series' newest 500 runs unless told otherwise; bench/history_scale.py
times that default on 1M results). Target: under 1 s.
Writes bench/results/history_cli_speed.json.

    .venv/bin/python bench/history_cli_speed.py [--runs 10000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_file import add_smoke_flag, write_result

RESULT = Path(__file__).parent / "results" / "history_cli_speed.json"
STEPS = ((0.35, 0.86, "+spec_rstack_overflow=safe-ret"), (0.70, 0.83, "-mitigations=off"))
START = 1_700_000_000.0


def build(home: Path, runs: int) -> list[int]:
    """Write `runs` hourly runs; returns the run indices where the steps start."""
    from iolab.models import Point, Target
    from iolab.models.workload import workload_identity
    from iolab.probe import Root, take_snapshot
    from iolab.store.db import open_store

    store = open_store(home)
    target = Target(path="/scratch", kind="directory", filename="/scratch/iolab.dat", size_bytes=64 << 30)
    point = Point("seqread-1m-qd32", target, {"rw": "read", "bs": "1m", "iodepth": "32", "runtime": "60"})
    spec, key, workload = json.dumps(point.to_dict()), point.key, workload_identity(point)
    base = take_snapshot(Root(), []).to_dict()
    tokens = (base.get("cmdline") or "").split() + ["mitigations=off"]
    snapshots = []
    for _, _, edit in STEPS:
        token = edit[1:]
        tokens = tokens + [token] if edit[0] == "+" else [t for t in tokens if t != token]
        snapshots.append(json.dumps({**base, "cmdline": " ".join(tokens)}))
    first = json.dumps({**base, "cmdline": " ".join((base.get("cmdline") or "").split() + ["mitigations=off"])})
    steps = [int(fraction * runs) for fraction, _, _ in STEPS]
    rng = random.Random(1)
    run_rows, point_rows, result_rows, snapshot_rows = [], [], [], []
    for i in range(runs):
        run_id = point_id = i + 1
        started = START + 3600.0 * i
        failed = i % 500 == 499
        level = 1.0
        snap = first
        for (_, factor, _), at, edited in zip(STEPS, steps, snapshots, strict=True):
            if i >= at:
                level *= factor
                snap = edited
        run_rows.append(
            (
                run_id,
                started,
                started + 65,
                "failed" if failed else "complete",
                "hourly",
                "bench",
                "iolab run plan.toml --quiet",
                "fio-3.33",
                "bench",
                '["/scratch"]',
            )
        )
        point_rows.append(
            (point_id, run_id, 1, key, point.name, spec, "failed" if failed else "ok", workload, target.path)
        )
        if not failed:
            bw = 20e9 * level * (1 + rng.gauss(0, 0.03))
            result_rows.append((point_id, "read", bw, bw / 2**20, 1000, int(bw * 60), 60_000))
        snapshot_rows += [(run_id, "before", started, snap), (run_id, "after", started + 65, snap)]
    with store.conn:
        store.conn.executemany(
            "INSERT INTO runs (id, started_at, finished_at, status, label, host, command, fio_version, iolab_version,"
            " targets) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            run_rows,
        )
        store.conn.executemany(
            "INSERT INTO points (id, run_id, seq, key, name, spec, status, workload, target)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            point_rows,
        )
        store.conn.executemany(
            "INSERT INTO results (point_id, ddir, bw_bytes, iops, total_ios, io_bytes, runtime_ms)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            result_rows,
        )
        store.conn.executemany(
            "INSERT INTO snapshots (run_id, phase, taken_at, data) VALUES (?, ?, ?, ?)", snapshot_rows
        )
    store.close()
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.repeats = 20, 1
    with tempfile.TemporaryDirectory(prefix="iolab-bench-") as scratch:
        home = Path(scratch)
        steps = build(home, args.runs)
        env = {**os.environ, "IOLAB_HOME": str(home)}
        argv = [sys.executable, "-m", "iolab", "history", "--all"]
        subprocess.run(argv, env=env, capture_output=True, check=True)  # page cache warm, as for a user's 2nd look
        seconds, output = [], ""
        for _ in range(args.repeats):
            start = time.perf_counter()
            done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
            seconds.append(time.perf_counter() - start)
            output = done.stdout
    ordered = sorted(seconds)
    result = {
        "benchmark": "history_cli_speed",
        "runs": args.runs,
        "repeats": args.repeats,
        "median_s": ordered[len(ordered) // 2],
        "max_s": ordered[-1],
        "seconds": seconds,
        "target_s": 1.0,
        "expected_steps_at_run": [s + 1 for s in steps],
        "output": output.splitlines(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    write_result(RESULT, "history_cli_speed", result, smoke=args.smoke)
    print(
        f"iolab history over {args.runs} runs: median {result['median_s']:.3f} s (max {result['max_s']:.3f} s), "
        f"target {result['target_s']:.0f} s"
    )
    print(output, end="")


if __name__ == "__main__":
    main()
