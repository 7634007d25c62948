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
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ramdisk import ram_loop_device

RESULT = Path(__file__).parent / "results" / "loop_vs_fio.json"
LOG_KEYS = ("write_bw_log", "write_iops_log", "write_lat_log", "log_avg_msec")


def iolab_run(jobfile: Path, device: str, home: str, extra: list[str] | None = None) -> dict:
    env = {**os.environ, "IOLAB_HOME": home}
    argv = [sys.executable, "-m", "iolab", "run", str(jobfile), "--allow-write", device, "--fresh", "--json",
            *(extra or [])]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"iolab failed: {proc.stderr.strip()[-400:]}")
    return json.loads(proc.stdout)


def bare_fio(job_text: str, keep_logs: bool = False) -> dict[str, tuple[float, float]]:
    """(bw bytes/s, iops) per direction of bare fio on the job: its log options removed, or
    (`keep_logs`) kept and pointed at a scratch directory, so fio runs exactly the job iolab ran."""
    with tempfile.TemporaryDirectory() as tmp:
        lines = [f"{ln.split('=', 1)[0]}={tmp}/bare" if keep_logs and ln.startswith("write_") else ln
                 for ln in job_text.splitlines() if keep_logs or ln.split("=", 1)[0] not in LOG_KEYS]
        job = Path(tmp) / "job.fio"
        job.write_text("\n".join(lines) + "\n")
        out = subprocess.run(["fio", "--output-format=json", "--group_reporting", str(job)],
                             capture_output=True, text=True, check=True).stdout
    entry = json.loads(out[out.index("{"):])["jobs"][0]
    return {d: (entry[d]["bw_bytes"], entry[d]["iops"]) for d in ("read", "write") if entry[d]["total_ios"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--runtime", type=int, default=5)
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--only", help="measure just this quick-preset point, e.g. seqwrite-1m-qd32")
    args = parser.parse_args()
    from iolab.fio.jobfile import JobSection, render_jobfile
    from iolab.plan import preset
    from iolab.store.db import open_store

    ratios: dict[str, list[dict]] = {}
    with ram_loop_device("iolab-bench-", args.size_mib) as (work, device):
        home = str(work / "home")
        for workload in preset("quick", runtime=args.runtime, ramp=1).workloads:
            if args.only and workload.name != args.only:
                continue
            jobfile = work / f"{workload.name}.fio"
            jobfile.write_text(render_jobfile([JobSection(workload.name, dict(workload.options))]))
            job_text = ""  # the job iolab wrote: each pair that starts with bare fio follows one with iolab
            for pair in range(args.pairs):
                sides = {}
                for side in (("iolab", "bare") if pair % 2 == 0 else ("bare", "iolab")):
                    if side == "iolab":
                        point = iolab_run(jobfile, device, home)["points"][0]
                        store = open_store(Path(home))
                        job_text = store.artifact(point["id"], "job.fio").decode()
                        store.close()
                        sides["iolab"] = {d: (r["bw_bytes"], r["iops"]) for d, r in point["result"]["directions"].items()}
                    else:
                        sides["bare"] = bare_fio(job_text, keep_logs=True)
                for ddir, (bw, iops) in sides["bare"].items():
                    ours_bw, ours_iops = sides["iolab"][ddir]
                    ratios.setdefault(workload.name, []).append(
                        {"bw_ratio": ours_bw / bw, "iops_ratio": ours_iops / iops, "iolab_bw": ours_bw, "bare_bw": bw})

    def cov(values: list[float]) -> float:
        return statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else float("nan")

    # The bare runs' own spread says how small a difference this host can show at all.
    summary = {name: {"median_bw_ratio": statistics.median(r["bw_ratio"] for r in rs),
                      "median_iops_ratio": statistics.median(r["iops_ratio"] for r in rs),
                      "bare_bw_cov": cov([r["bare_bw"] for r in rs]), "iolab_bw_cov": cov([r["iolab_bw"] for r in rs]),
                      "pairs": rs}
               for name, rs in ratios.items()}
    for name, s in summary.items():
        print(f"{name:24s} iolab/bare bw {s['median_bw_ratio']:.3f}  iops {s['median_iops_ratio']:.3f}  "
              f"(run-to-run CoV: bare {s['bare_bw_cov']:.1%}, iolab {s['iolab_bw_cov']:.1%})")
    worst = max(abs(1 - s[k]) for s in summary.values() for k in ("median_bw_ratio", "median_iops_ratio"))
    print(f"largest deviation of a median ratio from 1: {worst:.1%} (goal: within 5%)")
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps({
        "benchmark": "loop_vs_fio", "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": {"kernel": platform.release(), "cpus": os.cpu_count()},
        "device": f"loop device, direct-io to a {args.size_mib} MiB file", "runtime_s": args.runtime,
        "points": summary, "largest_deviation": worst, "goal": 0.05,
    }, indent=2) + "\n")


if __name__ == "__main__":
    main()
