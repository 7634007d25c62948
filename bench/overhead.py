"""What does running a job through iolab cost it? (issue: benchmarks of iolab)

The same job runs through `iolab run JOB.fio TARGET` (telemetry and 1 s
logs on, the way a user runs it) and through bare fio on the exact job
file iolab wrote (its log options removed), alternating A B, B A for
`--pairs` pairs so drift hits both sides. Two targets:

- null: fio's null engine on a tmpfs directory. No I/O, so IOPS measure
  only CPU: any cycle iolab takes from fio shows.
- loop: 4 KiB random reads, QD32, on a loop device with direct I/O over a
  fully written tmpfs file (RAM behind the loop driver, no disk noise).

Reports the median of the per-pair ratios iolab/bare (goal: at least
0.99) and each side's run-to-run COV, which says how small a difference
this host can show at all. Writes bench/results/overhead.json.

    .venv/bin/python bench/overhead.py [--pairs 5] [--runtime 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from loop_vs_fio import bare_fio, iolab_run
from ramdisk import ram_loop_device

RESULT = Path(__file__).parent / "results" / "overhead.json"
JOBS = {
    "null": "[null-randread-4k]\nioengine=null\nrw=randread\nbs=4k\niodepth=1\ntime_based=1\nruntime={runtime}\n"
            "ramp_time=1\n",
    "loop": "[randread-4k-qd32]\nioengine=libaio\nrw=randread\nbs=4k\niodepth=32\ntime_based=1\nruntime={runtime}\n"
            "ramp_time=1\n",
}


def measure(name: str, target: str, work: Path, pairs: int, runtime: int) -> dict:
    """Alternating pairs of iolab and bare fio on one job; IOPS per side and the per-pair ratios."""
    from iolab.store.db import open_store

    job = work / f"{name}.fio"
    job.write_text(JOBS[name].format(runtime=runtime))
    home = work / f"home-{name}"
    extra = ["--size", "16M"] if name == "null" else []
    sides: dict[str, list[float]] = {"iolab": [], "bare": []}
    job_text = ""  # the job iolab wrote: the first pair starts with iolab, so bare fio always has it
    for pair in range(pairs):
        for side in ("iolab", "bare") if pair % 2 == 0 else ("bare", "iolab"):
            if side == "iolab":
                point = iolab_run(job, target, str(home), extra)["points"][0]
                store = open_store(home)
                job_text = store.artifact(point["id"], "job.fio").decode()
                store.close()
                sides["iolab"].append(point["result"]["directions"]["read"]["iops"])
            else:
                sides["bare"].append(bare_fio(job_text)["read"][1])
    ratios = [a / b for a, b in zip(sides["iolab"], sides["bare"])]
    cov = {side: statistics.stdev(v) / statistics.mean(v) for side, v in sides.items() if len(v) > 1}
    return {"median_ratio": statistics.median(ratios), "ratios": ratios, "iops": sides, "cov": cov}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--runtime", type=int, default=5)
    args = parser.parse_args()
    with ram_loop_device("iolab-overhead-") as (work, device):
        scratch = work / "null-target"
        scratch.mkdir()
        results = {"null": measure("null", str(scratch), work, args.pairs, args.runtime),
                   "loop": measure("loop", device, work, args.pairs, args.runtime)}
    for name, r in results.items():
        print(f"{name:5s} iolab/bare IOPS median ratio {r['median_ratio']:.3f}  pairs {[round(x, 3) for x in r['ratios']]}"
              f"  (COV bare {r['cov'].get('bare', float('nan')):.1%}, iolab {r['cov'].get('iolab', float('nan')):.1%})")
    print("goal: median ratio >= 0.99")
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps({
        "benchmark": "overhead", "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": {"kernel": platform.release(), "cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "runtime_s": args.runtime, "pairs": args.pairs, "targets": results, "goal": 0.99,
    }, indent=2) + "\n")


if __name__ == "__main__":
    main()
