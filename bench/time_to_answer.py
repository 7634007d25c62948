"""How fast does iolab find where queue depth stops paying? (issue: benchmarks of iolab)

The question "what is this device's peak 4 KiB random-read IOPS, and at
what depth?" answered two ways on the same target, in one process:

- the exhaustive grid as bench-fio (fio-plot) runs it: one bare fio per
  (iodepth 1..256, doubling) x (numjobs 1..16, doubling) combination;
- `iolab run --preset qd-sweep --adaptive`, which searches the depth.

Reports each side's peak IOPS and wall time; the goal is the adaptive peak
within 3% of the grid's using at most 25% of its wall time. The target is
a loop device with direct I/O over a tmpfs file: RAM behind the loop
driver, so IOPS rise with depth until the loop worker and the CPUs
saturate. Writes bench/results/time_to_answer.json.

    .venv/bin/python bench/time_to_answer.py [--runtime 3] [--ramp 1]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULT = Path(__file__).parent / "results" / "time_to_answer.json"
DEPTHS = [1, 2, 4, 8, 16, 32, 64, 128, 256]
JOBS = [1, 2, 4, 8, 16]


def grid(device: str, runtime: int, ramp: int) -> tuple[list[dict], float]:
    """Every combination through bare fio, as bench-fio runs them: (points, wall seconds)."""
    points = []
    started = time.monotonic()
    for numjobs in JOBS:
        for depth in DEPTHS:
            out = subprocess.run(
                ["fio", "--output-format=json", "--group_reporting", "--name=grid", f"--filename={device}",
                 "--direct=1", "--ioengine=libaio", "--rw=randread", "--bs=4k", f"--iodepth={depth}",
                 f"--numjobs={numjobs}", "--time_based=1", f"--runtime={runtime}", f"--ramp_time={ramp}"],
                capture_output=True, text=True, check=True).stdout
            iops = json.loads(out[out.index("{"):])["jobs"][0]["read"]["iops"]
            points.append({"iodepth": depth, "numjobs": numjobs, "iops": iops})
    return points, time.monotonic() - started


def adaptive(device: str, runtime: int, ramp: int, home: str) -> tuple[list[dict], float]:
    """`iolab run --preset qd-sweep --adaptive` end to end: (its 4 KiB points, wall seconds)."""
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "iolab", "run", "--preset", "qd-sweep", "--adaptive", device, "--runtime", str(runtime),
         "--ramp", str(ramp), "--json", "--fresh"],
        capture_output=True, text=True, env={**os.environ, "IOLAB_HOME": home})
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(f"iolab failed: {proc.stderr.strip()[-400:]}")
    points = [{"iodepth": int(p["spec"]["options"]["iodepth"]) if "spec" in p else int(p["options"]["iodepth"]),
               "iops": p["result"]["directions"]["read"]["iops"], "name": p["name"]}
              for p in json.loads(proc.stdout)["points"] if p["name"].startswith("randread-4k") and p.get("result")]
    return points, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", type=int, default=3)
    parser.add_argument("--ramp", type=int, default=1)
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("needs root for a loop device")
    work = Path(tempfile.mkdtemp(prefix="iolab-tta-", dir="/dev/shm"))
    backing = work / "disk.img"
    subprocess.run(["dd", "if=/dev/zero", f"of={backing}", "bs=1M", "count=512"], check=True, capture_output=True)
    device = subprocess.run(["losetup", "--find", "--show", "--direct-io=on", str(backing)],
                            capture_output=True, text=True, check=True).stdout.strip()
    try:
        grid_points, grid_s = grid(device, args.runtime, args.ramp)
        ours, ours_s = adaptive(device, args.runtime, args.ramp, str(work / "home"))
    finally:
        subprocess.run(["losetup", "-d", device], check=False)
        subprocess.run(["rm", "-rf", str(work)], check=False)
    best_grid = max(grid_points, key=lambda p: p["iops"])
    best_ours = max(ours, key=lambda p: p["iops"])
    ratio, time_ratio = best_ours["iops"] / best_grid["iops"], ours_s / grid_s
    print(f"grid    : {len(grid_points)} points, {grid_s:.0f} s; peak {best_grid['iops']:.0f} IOPS at "
          f"iodepth {best_grid['iodepth']} x numjobs {best_grid['numjobs']}")
    print(f"adaptive: {len(ours)} points of 4 KiB (plus its 128 KiB search), {ours_s:.0f} s; peak {best_ours['iops']:.0f} "
          f"IOPS at iodepth {best_ours['iodepth']}")
    print(f"adaptive peak / grid peak {ratio:.3f} (goal >= 0.97); wall time {time_ratio:.1%} of the grid's (goal <= 25%)")
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps({
        "benchmark": "time_to_answer", "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": {"kernel": platform.release(), "cpus": os.cpu_count()},
        "target": "loop device, direct-io over a 512 MiB tmpfs file",
        "runtime_s": args.runtime, "ramp_s": args.ramp,
        "grid": {"points": grid_points, "seconds": grid_s, "peak": best_grid},
        "adaptive": {"points": ours, "seconds": ours_s, "peak": best_ours},
        "peak_ratio": ratio, "time_ratio": time_ratio, "goals": {"peak_ratio": 0.97, "time_ratio": 0.25},
    }, indent=2) + "\n")


if __name__ == "__main__":
    main()
