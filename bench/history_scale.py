"""`iolab history` and `iolab ls` on a store of 1,000,000 results: 100 workload series of 10,000 runs each.

The layout is a year of hourly runs of one 100-point plan (read, write,
randread and randwrite x five block sizes x five queue depths, each point its
own workload): 10,000 runs of 100 points. The first run is made through the
store's own API (`create_run`, `plan_points`, `record_point`, snapshots,
`finish_run`) on a store `open_store` created and migrated, so every row has
the shape iolab writes; the other 9,999 runs copy its rows with bulk SQL,
each with its own time and values. Values carry 3% noise; three host changes
(kernel command-line edits, in the host snapshots before and after every run)
move some workloads by -10% or -15% at 35% and 70% of the year and in the
last 2.5% of it; one run in 500 failed outright.

Each command is timed end to end in a fresh process (Python start, imports,
queries, analysis, printing), after one untimed call that warms the page
cache, the commands taking turns round by round, median of `--repeats`: `iolab history` (its default, each series'
last runs), `history --json`, `iolab ls`, `ls --json`, and one series'
whole 10,000 runs (`history --workload NAME --all`). `history --all` over
every series is timed once with `--with-all` (it analyses all 1M values).
The machine is shared: the load average (`os.getloadavg`) before and after
is recorded with the figures, and beside each wall time the command's own
CPU time (user + system, from the child's rusage), which waiting for a CPU
does not inflate. Goals: history under 2 s, ls under 0.5 s.
Writes bench/results/history_scale.json.

    .venv/bin/python bench/history_scale.py [--runs 10000] [--repeats 5] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_file import add_smoke_flag, write_result

RESULT = Path(__file__).parent / "results" / "history_scale.json"
START = 1_700_000_000.0
RW = ("read", "write", "randread", "randwrite")
BS = ("4k", "16k", "64k", "256k", "1m")
QD = ("1", "4", "16", "32", "64")
# (fraction of the runs where a host change lands, the kernel command-line edit, the drop of an affected workload)
STEPS = (
    (0.35, "+spec_rstack_overflow=safe-ret", 0.85),
    (0.70, "-mitigations=off", 0.90),
    (0.975, "+iommu=strict", 0.85),
)
FAILED_EVERY = 500


def workloads() -> list[tuple[str, dict[str, str]]]:
    """The plan's 100 points: name and fio options."""
    return [
        (f"{rw}-{bs}-qd{qd}", {"rw": rw, "bs": bs, "iodepth": qd, "runtime": "60", "ioengine": "libaio"})
        for rw in RW
        for bs in BS
        for qd in QD
    ]


def affected(index: int, step: int) -> bool:
    """Whether host change `step` moves workload `index`: each change hits a different half of them."""
    return (index + step) % 2 == 0


def build(home: Path, runs: int) -> dict:
    """Write the store into `home`; returns its layout (runs, points, where the steps are)."""
    from iolab.models import DirectionResult, LatencyStats, Point, Result, Target
    from iolab.probe import Root, take_snapshot
    from iolab.store.db import open_store

    started = time.perf_counter()
    store = open_store(home)
    target = Target(path="/scratch", kind="directory", filename="/scratch/iolab.dat", size_bytes=64 << 30)
    points = [Point(name, target, options) for name, options in workloads()]
    base = take_snapshot(Root(), []).to_dict()
    tokens = (base.get("cmdline") or "").split() + ["mitigations=off"]
    snapshots = [json.dumps({**base, "cmdline": " ".join(tokens)})]
    for _, edit, _ in STEPS:
        token = edit[1:]
        tokens = tokens + [token] if edit[0] == "+" else [t for t in tokens if t != token]
        snapshots.append(json.dumps({**base, "cmdline": " ".join(tokens)}))
    at = [int(fraction * runs) for fraction, _, _ in STEPS]

    # Run 1 through the store's own API.
    first = store.create_run("hourly", "iolab run plan.toml --quiet", ["/scratch"], "fio-3.33")
    ids = store.plan_points(first, points)
    for point_id in ids:
        latency = LatencyStats("clat", 1000, 1e5, 1e4, 5e4, 9e5, {99.0: 2e5})
        direction = DirectionResult("read", 1e9, 1e4, 600_000, 60 << 30, 60_000, latency)
        store.record_point(point_id, Result({"read": direction}, 5.0, 20.0, 1, "fio-3.33"), [], [], START, START + 60)
    store.finish_run(first, "complete")
    conn = store.conn
    run_row = dict(conn.execute("SELECT * FROM runs WHERE id = ?", (first,)).fetchone())
    point_rows = [dict(r) for r in conn.execute("SELECT * FROM points WHERE run_id = ? ORDER BY seq", (first,))]
    result_rows = {r["point_id"]: dict(r) for r in conn.execute("SELECT * FROM results")}
    with conn:
        for table in ("results", "point_metrics", "points", "runs"):
            conn.execute(f"DELETE FROM {table}")

    rng = random.Random(1)
    run_cols, point_cols = list(run_row), list(point_rows[0])
    result_cols = list(next(iter(result_rows.values())))
    base_level = [1e9 if i % 2 else 2e9 for i in range(len(points))]
    level = [1.0] * len(points)
    run_data, point_data, result_data, snapshot_data = [], [], [], []
    point_id = 0
    for i in range(runs):
        run_id = i + 1
        when = START + 3600.0 * i
        failed = i % FAILED_EVERY == FAILED_EVERY // 2
        snap = snapshots[sum(i >= a for a in at)]
        for step, a in enumerate(at):
            if i == a:
                level = [lv * (STEPS[step][2] if affected(j, step) else 1.0) for j, lv in enumerate(level)]
        status = "failed" if failed else "complete"
        run_data.append(
            tuple(
                {**run_row, "id": run_id, "started_at": when, "finished_at": when + 6000, "status": status}[c]
                for c in run_cols
            )
        )
        snapshot_data += [(run_id, "before", when, snap), (run_id, "after", when + 6000, snap)]
        for j, template in enumerate(point_rows):
            point_id += 1
            row = {
                **template,
                "id": point_id,
                "run_id": run_id,
                "started_at": when + 60 * j,
                "finished_at": when + 60 * j + 60,
            }
            if failed:
                row.update(status="failed", error="fio exited with status 1", usr_cpu=None, sys_cpu=None, jobs=None)
            point_data.append(tuple(row[c] for c in point_cols))
            if failed:
                continue
            factor = level[j] * (1.0 + rng.gauss(0.0, 0.03))
            bw = base_level[j] * factor
            res = {
                **result_rows[template["id"]],
                "point_id": point_id,
                "bw_bytes": bw,
                "iops": bw / 4096,
                "io_bytes": int(bw * 60),
                "lat_mean_ns": 1e5 / factor,
            }
            result_data.append(tuple(res[c] for c in result_cols))
    marks = lambda cols: ", ".join("?" * len(cols))  # noqa: E731
    with conn:
        conn.executemany(f"INSERT INTO runs ({', '.join(run_cols)}) VALUES ({marks(run_cols)})", run_data)
        conn.executemany(f"INSERT INTO points ({', '.join(point_cols)}) VALUES ({marks(point_cols)})", point_data)
        conn.executemany(f"INSERT INTO results ({', '.join(result_cols)}) VALUES ({marks(result_cols)})", result_data)
        conn.executemany(
            "INSERT OR REPLACE INTO snapshots (run_id, phase, taken_at, data) VALUES (?, ?, ?, ?)", snapshot_data
        )
    conn.execute("ANALYZE")
    store.close()
    return {
        "runs": runs,
        "points": point_id,
        "results": len(result_data),
        "workloads": len(points),
        "steps_at_run": [a + 1 for a in at],
        "build_s": time.perf_counter() - started,
        "db_bytes": (home / "iolab.db").stat().st_size,
    }


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(
    commands: dict[str, list[str]], env: dict[str, str], repeats: int
) -> dict[str, tuple[list[float], list[float], str]]:
    """Per command: wall seconds and CPU seconds (user + system) of each of `repeats` calls, and its last
    output. Each is called once untimed first (page cache warm); then the commands take turns, round by
    round, so a burst of load on this shared machine falls on all of them alike. The CPU time is what the
    command itself costs; the wall time adds the wait for a CPU."""
    for argv in commands.values():
        subprocess.run(argv, env=env, capture_output=True, check=True)
    found: dict[str, tuple[list[float], list[float], str]] = {name: ([], [], "") for name in commands}
    for _ in range(repeats):
        for name, argv in commands.items():
            begun, used = time.perf_counter(), _child_cpu()
            done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
            seconds, cpu, _ = found[name]
            seconds.append(time.perf_counter() - begun)
            cpu.append(_child_cpu() - used)
            found[name] = (seconds, cpu, done.stdout)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000, help="runs of the 100-point plan (10,000: 1M results)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--with-all", action="store_true", help="also time `history --all` once (slow)")
    parser.add_argument("--keep", type=Path, help="build the store in this (empty) directory and keep it")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.repeats = 5, 1
    with tempfile.TemporaryDirectory(prefix="iolab-bench-") as scratch:
        home = args.keep or Path(scratch)
        layout = (
            build(home, args.runs)
            if not (home / "iolab.db").exists()
            else json.loads((home / "layout.json").read_text())
        )
        if args.keep:
            (home / "layout.json").write_text(json.dumps(layout))
        print(
            f"store: {layout['runs']} runs, {layout['points']} points, {layout['results']} results,"
            f" {layout['db_bytes'] / 2**20:.0f} MiB, built in {layout['build_s']:.1f} s"
        )
        env = {**os.environ, "IOLAB_HOME": str(home)}
        iolab = [sys.executable, "-m", "iolab"]
        commands = {
            "history": ["history"],
            "history_json": ["history", "--json"],
            "ls": ["ls"],
            "ls_json": ["ls", "--json"],
            "history_one_series_all": ["history", "--workload", "randread-4k-qd32", "--all"],
        }
        load_before = os.getloadavg()
        runs = {name: iolab + argv for name, argv in commands.items()}
        timings = timed(runs, env, args.repeats)
        if args.with_all:
            timings |= timed({"history_all": iolab + ["history", "--all"]}, env, 1)
        figures, outputs = {}, {}
        for name, (seconds, cpu, output) in timings.items():
            outputs[name] = output
            figures[name] = {
                "median_s": statistics.median(seconds),
                "max_s": max(seconds),
                "median_cpu_s": statistics.median(cpu),
                "seconds": seconds,
                "cpu_seconds": cpu,
            }
            print(
                f"{name:24s} median {figures[name]['median_s']:.3f} s (max {figures[name]['max_s']:.3f} s),"
                f" CPU {figures[name]['median_cpu_s']:.3f} s, of {len(seconds)}"
            )
        load_after = os.getloadavg()
    history_lines = outputs["history"].splitlines()
    result = {
        "benchmark": "history_scale",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **layout,
        "repeats": args.repeats,
        "figures": figures,
        "goals_s": {"history": 2.0, "ls": 0.5},
        "load_average_before": load_before,
        "load_average_after": load_after,
        "cpus": os.cpu_count(),
        "history_head": history_lines[:40],
        "history_series": sum(1 for line in history_lines if line and not line.startswith(" ")),
        "ls_tail": outputs["ls"].splitlines()[-3:],
        "one_series_all": outputs["history_one_series_all"].splitlines(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    write_result(RESULT, "history_scale", result, smoke=args.smoke)
    print(f"load average before {load_before}, after {load_after} ({os.cpu_count()} CPUs)")
    print("\n".join(history_lines[:24]))


if __name__ == "__main__":
    main()
