"""Control for loop_vs_fio: does bare fio's own figure move with the memory its parent holds?

On a buffered loop device the loop driver's kworker copies every 1 MiB
read from the page cache into fio's buffers, so the read rate is a memory
copy rate, and on a VM that rate can depend on where in guest memory
fio's buffers land. This script runs one sequential-read job (1 MiB, QD32,
libaio, direct) on a default loop device over a sparse file on the
current directory's disk, in rotated rounds, three ways: bare fio under a
fresh Python parent; the same, the parent first touching and holding
`--hold-mib` of memory (it does nothing else); and `iolab run JOB.fio
--allow-write /dev/loopN`. If the second moves as far from the first as
iolab does, a gap between iolab and bare fio on this host says nothing
about iolab. Writes bench/results/loop_memory_control.json.

    .venv/bin/python bench/loop_memory_control.py [--rounds 6] [--runtime 8] [--hold-mib 200]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from loop_vs_fio import RESULTS, iolab_run
from loopdev import disk_loop_device
from results_file import add_smoke_flag, write_result

# The child a bare side runs in: holds HOLD MiB (touched page by page), then runs fio
# exactly as iolab does (iolab.fio.run.run_fio) and prints fio's read bandwidth.
CHILD = """
import json, sys
from pathlib import Path
from iolab.fio.run import run_fio
held = bytearray(int(sys.argv[1]) << 20)
for i in range(0, len(held), 4096):
    held[i] = 1
job, out = Path(sys.argv[2]), Path(sys.argv[3])
run_fio(job, out, "fio", 600)
text = out.read_text()
print(json.loads(text[text.index("{"):])["jobs"][0]["read"]["bw_bytes"])
"""


def job_text(device: str, runtime: int, rw: str = "read", time_based: bool = True) -> str:
    lines = ["[seq]", f"filename={device}", "direct=1", "ioengine=libaio", f"rw={rw}", "bs=1m", "iodepth=32"]
    if time_based:
        lines += ["time_based=1", f"runtime={runtime}s", "ramp_time=2s"]
    return "\n".join(lines) + "\n"


def bare(job: Path, hold_mib: int) -> float:
    """Read bandwidth (bytes/s) of bare fio under a fresh Python parent holding `hold_mib`."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(hold_mib), str(job), f"{tmp}/out.json"],
            capture_output=True,
            text=True,
            check=True,
        )
    return float(proc.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--runtime", type=int, default=8)
    parser.add_argument("--hold-mib", type=int, default=200)
    parser.add_argument("--size-mib", type=int, default=2048)
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.rounds, args.runtime, args.hold_mib, args.size_mib = 1, 1, 16, 64
    sides = ("bare", f"bare, parent holds {args.hold_mib} MiB", "iolab")
    figures: dict[str, list[float]] = {side: [] for side in sides}
    with disk_loop_device(Path.cwd(), args.size_mib) as (work, device):
        # Write the whole device once, so every read is of written, cached data.
        fill = work / "fill.fio"
        fill.write_text(job_text(device, args.runtime, rw="write", time_based=False))
        subprocess.run(["fio", "--output-format=terse", str(fill)], capture_output=True, check=True)
        job = work / "seqread.fio"
        job.write_text(job_text(device, args.runtime))
        home = str(work / "home")
        for round_ in range(args.rounds):
            shift = round_ % len(sides)
            for side in sides[shift:] + sides[:shift]:
                if side == "iolab":
                    point = iolab_run([str(job), device], home)["points"][0]  # a read: no --allow-write needed
                    value = point["result"]["directions"]["read"]["bw_bytes"]
                else:
                    value = bare(job, args.hold_mib if side != "bare" else 0)
                figures[side].append(value)
                print(f"round {round_ + 1}: {side:28s} {value / 1e9:.2f} GB/s", flush=True)
    medians = {side: statistics.median(values) for side, values in figures.items()}
    for side in sides:
        print(f"{side:28s} median {medians[side] / 1e9:.2f} GB/s, x{medians[side] / medians['bare']:.3f} of bare")
    write_result(
        RESULTS / "loop_memory_control.json",
        "loop_memory_control",
        {
            "benchmark": "loop_memory_control",
            "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "host": {"kernel": platform.release(), "cpus": os.cpu_count()},
            "device": f"default (buffered) loop device over a sparse {args.size_mib} MiB file on the disk, written once",
            "job": "1 MiB sequential read, QD32, libaio, direct",
            "runtime_s": args.runtime,
            "median_bw": medians,
            "ratio_to_bare": {side: medians[side] / medians["bare"] for side in sides},
            "bw": figures,
        },
        smoke=args.smoke,
    )


if __name__ == "__main__":
    main()
