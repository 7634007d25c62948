"""A device whose rate falls by half after 20 s, measured with stopping on (issue 22).

A loop device over a file on tmpfs, its reads capped with cgroup-v1 blkio
throttling (`--bps`, 40 MiB/s); `iolab run JOB /dev/loopN
--stop-when-known` (iolab's defaults: ±2%, at least 3 s, at most 60 s: the
runner's maximum for a job that sets no length, as this one)
reads it with 128 KiB direct I/O at QD4 from inside the cgroup, and
`--fall-after` seconds (20) after fio starts, the bench halves the cap. The
goals: the point is never stopped before the fall (the seconds fio ran
reach past it) and it is reported as not steady. `--runs N` repeats it for
each `--minimums` (iolab's 3 s, then 25 s: a minimum past the fall, which
shows what the rule makes of a run that holds the fall).
Needs root, fio, loop devices and the blkio controller.
Writes bench/results/stopping_fall.json.

    .venv/bin/python bench/stopping_fall.py [--runs 2] [--minimums 3,25] [--fall-after 20] [--bps-mib 40]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from results_file import add_smoke_flag, host, write_result

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.loopdev import BlkioCgroup, blkio_cgroup, loop_devices, throttle_skip_reason  # noqa: E402

RESULT = Path(__file__).parent / "results" / "stopping_fall.json"
MIB = 1 << 20
JOB = "[falling]\nrw=read\nbs=128k\niodepth=4\nioengine=libaio\ndirect=1\ntime_based=1\n"


def stored_seconds(home: Path) -> list[float]:
    """The point's IOPS each second, from fio's 1 s log as iolab stored it."""
    from stopping_runs import per_second_iops

    from iolab.store.db import open_store
    from iolab.store.queries import point_samples, run_points

    store = open_store(home)
    try:
        (record,) = run_points(store, 1)
        return per_second_iops(point_samples(store, record.id))
    finally:
        store.close()


def one_run(cgroup: BlkioCgroup, device, home: Path, job: Path, args: argparse.Namespace, min_s: float) -> dict:
    """One falling point through iolab: its stop record, and when fio started, the fall came and iolab ended."""
    cgroup.set_read_bps(device.major_minor, args.bps_mib * MIB)
    times: dict[str, float] = {}

    def halve() -> None:
        cgroup.fio_started(timeout=120)
        times["fio_started"] = time.monotonic()
        time.sleep(args.fall_after)
        cgroup.set_read_bps(device.major_minor, args.bps_mib * MIB // 2)
        times["fall"] = time.monotonic()

    argv = [sys.executable, "-m", "iolab", "run", str(job), device.path, "--stop-when-known", "--json", "--fresh"]
    argv += ["--min-seconds", f"{min_s:g}"]
    if args.max_seconds is not None:
        argv += ["--max-seconds", f"{args.max_seconds:g}"]
    load = os.getloadavg()
    helper = threading.Thread(target=halve)
    helper.start()
    proc = cgroup.popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "IOLAB_HOME": str(home)}
    )
    out, err = proc.communicate(timeout=600)
    ended = time.monotonic()
    helper.join()
    if proc.returncode != 0:
        raise SystemExit(f"iolab run failed ({proc.returncode}): {err[-800:]}")
    (point,) = json.loads(out)["points"]
    stop = point["result"]["stopping"]
    seconds = stored_seconds(home)
    read = point["result"]["directions"]["read"]
    fio_s = read["runtime_ms"] / 1000
    return {
        "min_s": min_s,
        "stopping": stop,
        "fio_s": fio_s,
        "fall_s_after_fio_started": times["fall"] - times["fio_started"],
        "iolab_ended_s_after_fio_started": ended - times["fio_started"],
        "reported_iops": read["iops"],
        "iops_before_fall": args.bps_mib * MIB / (128 << 10),
        "ran_past_fall": fio_s > args.fall_after,
        "not_steady": stop["reason"] == "not steady",
        "seconds": [round(v, 1) for v in seconds],
        "load_before": load,
        "load_after": os.getloadavg(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--minimums", default="3,25", help="--min-seconds of each set of runs")
    parser.add_argument("--fall-after", type=float, default=20.0)
    parser.add_argument("--bps-mib", type=int, default=40)
    parser.add_argument(
        "--max-seconds", type=float, help="iolab's --max-seconds (default: none; the job sets no length)"
    )
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.minimums, args.fall_after, args.max_seconds = 1, "3", 2.0, 6.0
    reason = throttle_skip_reason()
    if reason:
        raise SystemExit(reason)
    from iolab.runner.stopping import DEFAULT_MAX_S, DEFAULT_TARGET

    runs = []
    with (
        tempfile.TemporaryDirectory(prefix="iolab-fall-") as tmp,
        loop_devices(1, size_mib=512) as (device,),
        blkio_cgroup() as cgroup,
    ):
        job = Path(tmp) / "falling.fio"
        job.write_text(JOB)
        for i, min_s in enumerate(float(m) for m in args.minimums.split(",") for _ in range(args.runs)):
            run = one_run(cgroup, device, Path(tmp) / f"home{i}", job, args, min_s)
            runs.append(run)
            stop = run["stopping"]
            print(
                f"run {i + 1} (--min-seconds {min_s:g}): fio ran {run['fio_s']:.1f} s (fall at {run['fall_s_after_fio_started']:.1f} s after fio "
                f"started); stopped: {stop['reason']}, ±{stop['ci']:.1%}, {stop['discarded_s']} s discarded, "
                f"{stop['kept_s']} s kept; reported {run['reported_iops']:.0f} IOPS "
                f"({run['iops_before_fall']:.0f} before the fall); load {run['load_before'][0]:.1f}",
                flush=True,
            )
    met = {
        f"{m:g}": all(r["ran_past_fall"] and r["not_steady"] for r in runs if r["min_s"] == m)
        for m in sorted({r["min_s"] for r in runs})
    }
    print(f"never stopped before the fall and reported not steady, in every run, by --min-seconds: {met}")
    write_result(
        RESULT,
        "stopping_fall",
        {
            "host": host(),
            "device": f"loop device over a sparse 512 MiB file on tmpfs, reads capped at {args.bps_mib} MiB/s "
            f"by blkio, halved {args.fall_after:g} s after fio started",
            "stopping": {
                "target_ci": DEFAULT_TARGET,
                "min_s": args.minimums,
                "max_s": args.max_seconds or DEFAULT_MAX_S,
            },
            "runs": runs,
            "goal_met": met,
        },
        smoke=args.smoke,
    )


if __name__ == "__main__":
    main()
