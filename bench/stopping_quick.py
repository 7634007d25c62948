"""The quick preset with stopping on against the same preset at 60 s a point (issue 22).

On one loop device, `iolab run --preset quick --stop-when-known` (A:
default target ±2%, at least 3 s (20 s for a point that writes), at most the
point's own 2 s ramp + 60 s: the runner's maximum when no `--max-seconds` is
given) and the quick
preset at `--runtime 60` with its 2 s ramp (B, the reference) alternate A B
B A (`--blocks N`: N times). Per point, the ratio stopped/reference of the
means of IOPS and bandwidth (the goal: within 3%, or within the
reference's own run-to-run spread where that is wider: its range over its
mean), and beside them mean and p99 latency, which stopping leaves as fio
reports them, over the whole point, warm-up included (issue 22, Build 2);
the fio time of each stopped preset (goal: at most 30 s). iolab's rerun of a
disturbed point is off on both sides, so each side runs each point once.

`--device ram`: direct I/O through a loop device over a fully written
file on tmpfs; `--device throttled`: the same under cgroup-v1 blkio caps
of 100 MiB/s and 2,000 IOPS for reads and writes, a device that reads the
same every second (issue 35: with `--reference-runtime 8 --max-seconds 10
--goal-ratio 0.02`, the quick preset at its own fixed length as the
reference, the goals are at most 30 s of fio time and every rate within 2%); `--device disk`: a default (buffered) loop device over a
sparse file on the disk of the current directory. The host's load average
and CPU pressure are recorded beside every run (this VM is shared).
Writes bench/results/stopping_quick_{ram,disk,throttled}.json.

    .venv/bin/python bench/stopping_quick.py --device ram [--blocks 1] [--size-mib 1024]
"""

from __future__ import annotations

import argparse
import os
import statistics
from contextlib import ExitStack
from dataclasses import asdict, replace
from pathlib import Path

from loopdev import disk_loop_device, ram_loop_device, throttled
from results_file import add_smoke_flag, host, write_result
from stopping_runs import PlanRun, cpu_pressure, run_plan

RESULTS = Path(__file__).parent / "results"
GOAL_RATIO = 0.03
GOAL_FIO_S = 30.0
FIGURES = ("iops", "bw_bytes", "lat_mean_ns", "lat_p99_ns")
RATE_FIGURES = ("iops", "bw_bytes")


def spread(values: list[float]) -> float:
    """Range over mean: with two runs, their relative difference."""
    return (max(values) - min(values)) / statistics.mean(values) if len(values) > 1 else 0.0


def compare(stopped: list[PlanRun], reference: list[PlanRun], goal_ratio: float = GOAL_RATIO) -> dict[str, dict]:
    """Per point and figure: the ratio of the means, each side's values and spread, and the goal met or not."""
    out: dict[str, dict] = {}
    for i, point in enumerate(reference[0].points):
        figures = {}
        for figure in FIGURES:
            a = [getattr(run.points[i], figure) for run in stopped]
            b = [getattr(run.points[i], figure) for run in reference]
            if None in a or None in b:
                continue
            ratio = statistics.mean(a) / statistics.mean(b)
            allowed = max(goal_ratio, spread(b))
            figures[figure] = {
                "ratio": ratio,
                "stopped": a,
                "reference": b,
                "reference_spread": spread(b),
                "stopped_spread": spread(a),
                "allowed": allowed,
                "within": abs(ratio - 1) <= allowed,
            }
        out[point.name] = {
            "figures": figures,
            "seconds_cov": {
                "stopped": [run.points[i].seconds_cov for run in stopped],
                "reference": [run.points[i].seconds_cov for run in reference],
            },
            "replay_stop_s": [run.points[i].replay_stop_s for run in reference],
            "stopping": [run.points[i].stopping for run in stopped],
            "stopped_fio_s": [run.points[i].fio_s for run in stopped],
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("ram", "disk", "throttled"), default="ram")
    parser.add_argument("--goal-ratio", type=float, default=GOAL_RATIO, help="a rate's allowed gap (0.03 = 3%%)")
    parser.add_argument("--blocks", type=int, default=1, help="A B B A blocks (A: stopping on, B: 60 s points)")
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--reference-runtime", type=int, default=60)
    parser.add_argument("--max-seconds", type=float, help="the stopped side's maximum (default: the job's own length)")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.size_mib, args.reference_runtime, args.max_seconds = 64, 1, 3.0
    from iolab.plan.presets import quick

    # the same preset on both sides: with stopping on, its own ramp + runtime caps a point as --max-seconds does
    plan = replace(quick(runtime=args.reference_runtime, ramp=0 if args.smoke else 2), rerun_disturbed=False)
    if args.smoke:  # one point a side
        plan = replace(plan, workloads=plan.workloads[:1])
    if args.device in ("ram", "throttled"):
        place = ram_loop_device("iolab-stopq-", args.size_mib)
        device_text = f"loop device, direct-io to a fully written {args.size_mib} MiB file on tmpfs"
    else:
        place = disk_loop_device(Path.cwd(), args.size_mib)
        device_text = f"default (buffered) loop device over a sparse {args.size_mib} MiB file on the disk"
    stopping = {"target_ci": "2%"} if args.max_seconds is None else {"target_ci": "2%", "max_s": args.max_seconds}
    runs: dict[str, list[PlanRun]] = {"stopped": [], "reference": []}
    log = []
    with place as (work, device), ExitStack() as stack:
        # One home for every run: a device iolab wrote is known by the digest its run keeps in the store's home,
        # and the next run checks the one in IOLAB_HOME (with a home of its own, each run after the first refused).
        os.environ["IOLAB_HOME"] = str(work / "home")
        if args.device == "throttled":
            device_text += ", " + stack.enter_context(throttled(device, 100 << 20, 2000))
        for _ in range(args.blocks):
            for side in ("stopped", "reference", "reference", "stopped"):
                pressure = cpu_pressure()
                if side == "stopped":
                    run = run_plan(plan, device, work / "home", stopping)
                else:
                    run = run_plan(plan, device, work / "home")
                runs[side].append(run)
                log.append({"side": side, "cpu_pressure_before": pressure, **asdict(run)})
                print(
                    f"{side:9s} fio {run.fio_s:6.1f} s  wall {run.wall_s:6.1f} s  "
                    f"load {run.load_before[0]:.1f}->{run.load_after[0]:.1f}  cpu pressure {pressure}  "
                    + "  ".join(
                        f"{p.name}={p.iops:,.0f}"
                        + (f"[{p.stopping['reason']} {p.stopping['kept_s']}s" if p.stopping else "[")
                        + (f" cov {p.seconds_cov:.1%}" if p.seconds_cov is not None else "")
                        + (f" replay {p.replay_stop_s}" if not p.stopping else "")
                        + "]"
                        for p in run.points
                    ),
                    flush=True,
                )
    points = compare(runs["stopped"], runs["reference"], args.goal_ratio)
    for name, p in points.items():
        f = p["figures"]
        print(
            f"{name:22s} "
            + "  ".join(
                f"{k} {v['ratio']:.3f} (ref spread {v['reference_spread']:.1%}{'' if v['within'] else ' OUT'})"
                for k, v in f.items()
            )
        )
    rates_within = all(p["figures"][k]["within"] for p in points.values() for k in RATE_FIGURES)
    latency_within = all(v["within"] for p in points.values() for k, v in p["figures"].items() if k not in RATE_FIGURES)
    fio_s = [run.fio_s for run in runs["stopped"]]
    reference_fio_s = [run.fio_s for run in runs["reference"]]
    print(
        f"stopped preset fio time {', '.join(f'{s:.1f}' for s in fio_s)} s (goal <= {GOAL_FIO_S:.0f}); reference "
        f"{', '.join(f'{s:.0f}' for s in reference_fio_s)} s; IOPS/bandwidth within goal: {rates_within}; "
        f"latency within: {latency_within}"
    )
    result = RESULTS / f"stopping_quick_{args.device}.json"
    write_result(
        result,
        "stopping_quick",
        {
            "host": host(),
            "device": device_text,
            "order": [entry["side"] for entry in log],
            "reference_runtime_s": args.reference_runtime,
            "stopping": {**stopping, "max_s": args.max_seconds or "the job's own ramp_time + runtime"},
            "points": points,
            "stopped_fio_s": fio_s,
            "reference_fio_s": reference_fio_s,
            "rates_within_goal": rates_within,
            "latency_within_goal": latency_within,
            "fio_time_within_goal": max(fio_s) <= GOAL_FIO_S,
            "goal": {"ratio": args.goal_ratio, "fio_s": GOAL_FIO_S},
            "load_average_before": [run["load_before"][0] for run in log],
            "runs": log,
        },
        smoke=args.smoke,
    )


if __name__ == "__main__":
    main()
