"""Does `iolab run` report what bare fio reports for the same job? (issue: foundation)

A loop device over a fully written file on tmpfs (so the "device" is
steady: RAM behind the loop driver, no host disk noise) is measured point
by point: each quick-preset workload runs through `iolab run JOB.fio
/dev/loopN --allow-write` (telemetry and 1 s logs on) and through bare fio
with the exact job file iolab wrote, its 1 s logs included; the two
alternate A B, B A, so drift hits both sides. Reports, per point, the
median ratio iolab/bare of bandwidth and IOPS; the goal is within 5%.
Writes bench/results/loop_vs_fio.json.

    .venv/bin/python bench/loop_vs_fio.py [--pairs 3] [--runtime 5]

`--as-checked` repeats the check as a new user makes it instead: a sparse
file on the disk of the current directory behind a default (buffered) loop
device, the whole quick preset through `iolab run --allow-write /dev/loopN`,
then every point's job through bare fio right after it (and, every other
pair, bare fio first). Writes bench/results/loop_vs_fio_as_checked.json.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from loopdev import disk_loop_device, ram_loop_device
from results_file import add_smoke_flag, host, write_result

RESULTS = Path(__file__).parent / "results"
LOG_KEYS = ("write_bw_log", "write_iops_log", "write_lat_log", "log_avg_msec")


def iolab_command(args: list[str], home: str) -> tuple[list[str], dict[str, str]]:
    """argv and environment of `iolab run ARGS --fresh --json` with its own IOLAB_HOME."""
    return [sys.executable, "-m", "iolab", "run", *args, "--fresh", "--json"], {**os.environ, "IOLAB_HOME": home}


def iolab_run(args: list[str], home: str) -> dict:
    """`iolab run ARGS --fresh --json` with its own IOLAB_HOME; the run as JSON."""
    argv, env = iolab_command(args, home)
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"iolab failed: {proc.stderr.strip()[-400:]}")
    return json.loads(proc.stdout)


def bare_fio(job_text: str, keep_logs: bool = False) -> dict[str, tuple[float, float]]:
    """(bw bytes/s, iops) per direction of bare fio on the job: its log options removed, or
    (`keep_logs`) kept and pointed at a scratch directory, so fio runs exactly the job iolab ran."""
    with tempfile.TemporaryDirectory() as tmp:
        lines = [
            f"{ln.split('=', 1)[0]}={tmp}/bare" if keep_logs and ln.startswith("write_") else ln
            for ln in job_text.splitlines()
            if keep_logs or ln.split("=", 1)[0] not in LOG_KEYS
        ]
        job = Path(tmp) / "job.fio"
        job.write_text("\n".join(lines) + "\n")
        out = subprocess.run(
            ["fio", "--output-format=json", "--group_reporting", str(job)], capture_output=True, text=True, check=True
        ).stdout
    entry = json.loads(out[out.index("{") :])["jobs"][0]
    return {d: (entry[d]["bw_bytes"], entry[d]["iops"]) for d in ("read", "write") if entry[d]["total_ios"]}


def point_by_point(args: argparse.Namespace) -> tuple[dict[str, list[dict]], str]:
    """Each quick-preset point alone, iolab and bare fio alternating on a RAM-backed loop device."""
    from iolab.plan.presets import preset

    ratios: dict[str, list[dict]] = {}
    with ram_loop_device("iolab-bench-", args.size_mib) as (work, device):
        home = str(work / "home")
        for workload in preset("quick", runtime=args.runtime, ramp=1).workloads:
            if args.only and workload.name != args.only:
                continue
            jobfile = work / f"{workload.name}.fio"
            options = "".join(f"{k}={v}\n" if v else f"{k}\n" for k, v in workload.options.items())
            jobfile.write_text(f"[{workload.name}]\n{options}")  # a user's job file, as iolab reads one
            jobs: dict[str, str] = {}  # the job iolab wrote: each pair that starts with bare fio follows one with iolab
            for pair in range(args.pairs):
                sides = {}
                for side in ("iolab", "bare") if pair % 2 == 0 else ("bare", "iolab"):
                    if side == "iolab":
                        sides["iolab"] = iolab_side([str(jobfile), "--allow-write", device], home, jobs, device)
                    else:
                        sides["bare"] = {name: bare_fio(text, keep_logs=True) for name, text in jobs.items()}
                add_ratios(ratios, sides)
    return ratios, f"loop device, direct-io to a {args.size_mib} MiB file on tmpfs"


def as_checked(args: argparse.Namespace) -> tuple[dict[str, list[dict]], str]:
    """The whole quick preset through iolab, then each of its jobs through bare fio, on a buffered loop device
    over a sparse file on the current directory's disk."""
    ratios: dict[str, list[dict]] = {}
    with disk_loop_device(Path.cwd(), args.size_mib) as (work, device):
        home = str(work / "home")
        jobs: dict[str, str] = {}
        for pair in range(args.pairs):
            sides = {}
            for side in ("iolab", "bare") if pair % 2 == 0 else ("bare", "iolab"):
                if side == "iolab":
                    sides["iolab"] = iolab_side(
                        ["--allow-write", device, "--runtime", str(args.runtime)], home, jobs, device
                    )
                else:
                    sides["bare"] = {name: bare_fio(text, keep_logs=True) for name, text in jobs.items()}
            add_ratios(ratios, sides)
    return ratios, f"default (buffered) loop device over a sparse {args.size_mib} MiB file on the disk"


def zeroed(device: str) -> None:
    """Zero a block device whole: bare fio's writes between iolab's sides are data iolab did not write, which
    it refuses to overwrite (`iolab.runner.blank`); zeros, unlike a discard, keep a tmpfs backing allocated."""
    if not stat.S_ISBLK(os.stat(device).st_mode):  # never a file: dd would write until its file system is full
        raise SystemExit(f"{device} is not a block device")
    subprocess.run(["dd", "if=/dev/zero", f"of={device}", "bs=1M", "oflag=direct"], capture_output=True, check=False)


def iolab_side(
    argv: list[str], home: str, jobs: dict[str, str], device: str
) -> dict[str, dict[str, tuple[float, float]]]:
    """Run iolab on `device` (zeroed first); its (bw, iops) per point and direction. Fills `jobs` with the job
    file of each point."""
    from iolab.store.db import open_store

    zeroed(device)

    points = iolab_run(argv, home)["points"]
    store = open_store(Path(home))
    try:
        for point in points:
            jobs[point["name"]] = store.artifact(point["id"], "job.fio").decode()
    finally:
        store.close()
    return {
        point["name"]: {d: (r["bw_bytes"], r["iops"]) for d, r in point["result"]["directions"].items()}
        for point in points
    }


def add_ratios(ratios: dict[str, list[dict]], sides: dict[str, dict]) -> None:
    for name, bare in sides["bare"].items():
        for ddir, (bw, iops) in bare.items():
            ours_bw, ours_iops = sides["iolab"][name][ddir]
            ratios.setdefault(name, []).append(
                {"bw_ratio": ours_bw / bw, "iops_ratio": ours_iops / iops, "iolab_bw": ours_bw, "bare_bw": bw}
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--runtime", type=int, default=5)
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--only", help="measure just this quick-preset point, e.g. seqwrite-1m-qd32")
    parser.add_argument(
        "--as-checked",
        action="store_true",
        help="the whole preset on a buffered loop device over a file on this directory's disk",
    )
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.pairs, args.runtime, args.size_mib, args.only = 1, 1, 64, args.only or "randread-4k-qd1"
    ratios, device = as_checked(args) if args.as_checked else point_by_point(args)

    def cov(values: list[float]) -> float:
        return statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else float("nan")

    # The bare runs' own spread says how small a difference this host can show at all.
    summary = {
        name: {
            "median_bw_ratio": statistics.median(r["bw_ratio"] for r in rs),
            "median_iops_ratio": statistics.median(r["iops_ratio"] for r in rs),
            "bare_bw_cov": cov([r["bare_bw"] for r in rs]),
            "iolab_bw_cov": cov([r["iolab_bw"] for r in rs]),
            "pairs": rs,
        }
        for name, rs in ratios.items()
    }
    for name, s in summary.items():
        print(
            f"{name:24s} iolab/bare bw {s['median_bw_ratio']:.3f}  iops {s['median_iops_ratio']:.3f}  "
            f"(run-to-run CoV: bare {s['bare_bw_cov']:.1%}, iolab {s['iolab_bw_cov']:.1%})"
        )
    worst = max(abs(1 - s[k]) for s in summary.values() for k in ("median_bw_ratio", "median_iops_ratio"))
    print(f"largest deviation of a median ratio from 1: {worst:.1%} (goal: within 5%)")
    result = RESULTS / ("loop_vs_fio_as_checked.json" if args.as_checked else "loop_vs_fio.json")
    write_result(
        result,
        "loop_vs_fio",
        {
            "host": host(),
            "device": device,
            "runtime_s": args.runtime,
            "points": summary,
            "largest_deviation": worst,
            "goal": 0.05,
        },
        smoke=args.smoke,
    )


if __name__ == "__main__":
    main()
