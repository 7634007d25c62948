"""qd-sweep and jobs-sweep with stopping on against fixed-length points (issue 22).

On a loop device over a fully written tmpfs file (direct I/O), each preset
runs twice through iolab: with fixed-length points (the presets' 10 s
measured after a 2 s ramp, 12 s of fio each) and with stopping on (±2%, at
least 3 s, at most the job's own 12 s: the product's maximum when no
`--max-seconds` is given, so a stopped point never runs longer than a fixed
one). The order is fixed qd-sweep, stopped
qd-sweep, stopped jobs-sweep, fixed jobs-sweep (A B B A).

Per sweep: fio time fixed/stopped (goal: at least 2), and the answers each
way, from the library iolab's findings use (`iolab.analysis.knee`): per
workload, the one-job queue-depth knee (RES-QD-KNEE) and the peak
configuration (RES-QD-PEAK); for jobs-sweep (QD1 per job) the knee of the
same method over the number of jobs, i.e. I/Os in flight. Goal: the same
knee and the same peak configuration both ways. The load average is
recorded beside each run (this VM is shared).
Writes bench/results/stopping_sweeps.json.

    .venv/bin/python bench/stopping_sweeps.py [--max-seconds S] [--size-mib 1024]
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from dataclasses import asdict, replace
from pathlib import Path

from loopdev import ram_loop_device
from results_file import add_smoke_flag, host, write_result
from stopping_runs import PlanRun, cpu_pressure, run_plan

RESULT = Path(__file__).parent / "results" / "stopping_sweeps.json"
GOAL_SPEEDUP = 2.0


def answers(run: PlanRun, axis: str) -> dict[str, dict]:
    """Per workload (the point name without its axis value): the knee over `axis` and the peak."""
    from iolab.analysis.knee import find_knee

    curves: dict[str, list] = defaultdict(list)
    for p in run.points:
        curves[p.name.rsplit("-", 1)[0]].append(p)
    out = {}
    for name, points in curves.items():
        points.sort(key=lambda p: getattr(p, axis))
        report = find_knee(
            [getattr(p, axis) for p in points],
            [p.iops for p in points],
            [p.lat_mean_ns for p in points] if all(p.lat_mean_ns for p in points) else None,
        )
        top = max(points, key=lambda p: p.iops)
        out[name] = {
            "knee": report.recommended_qd,
            "knee_consistent": report.consistent,
            "qd_at_90pct": report.qd_at_fraction,
            "plateau_iops": report.peak,
            "peak": {"iodepth": top.iodepth, "numjobs": top.numjobs, "iops": top.iops},
            "curve": {getattr(p, axis): round(p.iops) for p in points},
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-seconds", type=float, help="iolab's --max-seconds (default: none, the job's own length)")
    parser.add_argument("--size-mib", type=int, default=1024)
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.max_seconds, args.size_mib = 3.0, 64
    from iolab.plan.presets import jobs_sweep, qd_sweep

    stopping = {"target_ci": "2%"} if args.max_seconds is None else {"target_ci": "2%", "max_s": args.max_seconds}
    order = [("qd-sweep", "fixed"), ("qd-sweep", "stopped"), ("jobs-sweep", "stopped"), ("jobs-sweep", "fixed")]
    plans = {"qd-sweep": (qd_sweep(), "iodepth"), "jobs-sweep": (jobs_sweep(), "numjobs")}
    if args.smoke:  # the qd sweep's first two 1 s points, each way: enough for a knee's code to run (the jobs
        # sweep differs only in the axis `answers` reads, so the smoke leaves it out to save the suite 10-20 s)
        short = qd_sweep(runtime=1, ramp=0)
        plans = {"qd-sweep": (replace(short, workloads=short.workloads[:2]), "iodepth")}
        order = [(sweep, side) for sweep, side in order if sweep in plans]
    runs: dict[str, dict[str, PlanRun]] = defaultdict(dict)
    log = []
    with ram_loop_device("iolab-stops-", args.size_mib) as (work, device):
        for i, (sweep, side) in enumerate(order):
            pressure = cpu_pressure()
            plan = plans[sweep][0]
            run = run_plan(plan, device, work / f"home{i}", stopping if side == "stopped" else None)
            runs[sweep][side] = run
            log.append({"sweep": sweep, "side": side, "cpu_pressure_before": pressure, **asdict(run)})
            stopped_early = sum(1 for p in run.points if p.stopping and p.stopping["reason"] == "target met")
            print(
                f"{sweep:10s} {side:7s} {len(run.points)} points, fio {run.fio_s:6.1f} s, wall {run.wall_s:6.1f} s, "
                f"load {run.load_before[0]:.1f}->{run.load_after[0]:.1f}, cpu pressure {pressure}"
                + (f", target met in {stopped_early}" if side == "stopped" else ""),
                flush=True,
            )
    summary = {}
    for sweep, (_, axis) in plans.items():
        fixed, stopped = answers(runs[sweep]["fixed"], axis), answers(runs[sweep]["stopped"], axis)
        speedup = runs[sweep]["fixed"].fio_s / runs[sweep]["stopped"].fio_s
        same = {
            name: {
                "knee": fixed[name]["knee"] == stopped[name]["knee"],
                "peak": (fixed[name]["peak"]["iodepth"], fixed[name]["peak"]["numjobs"])
                == (stopped[name]["peak"]["iodepth"], stopped[name]["peak"]["numjobs"]),
                "peak_iops_ratio": stopped[name]["peak"]["iops"] / fixed[name]["peak"]["iops"],
            }
            for name in fixed
        }
        summary[sweep] = {"speedup": speedup, "fixed": fixed, "stopped": stopped, "same": same}
        print(f"{sweep}: fio time fixed/stopped {speedup:.2f} (goal >= {GOAL_SPEEDUP:g})")
        for name in fixed:
            f, s = fixed[name], stopped[name]
            print(
                f"  {name:16s} knee {f['knee']} / {s['knee']}  peak {f['peak']['iodepth']}x{f['peak']['numjobs']} "
                f"{f['peak']['iops']:,.0f} / {s['peak']['iodepth']}x{s['peak']['numjobs']} {s['peak']['iops']:,.0f}"
            )
    write_result(
        RESULT,
        "stopping_sweeps",
        {
            "host": host(),
            "device": f"loop device, direct-io to a fully written {args.size_mib} MiB file on tmpfs",
            "stopping": {**stopping, "max_s": args.max_seconds or "the job's own ramp_time + runtime"},
            "fixed_points": "runtime 10 s after a 2 s ramp",
            "sweeps": summary,
            "goal": {"speedup": GOAL_SPEEDUP, "same_knee_and_peak": True},
            "runs": log,
        },
        smoke=args.smoke,
    )


if __name__ == "__main__":
    main()
