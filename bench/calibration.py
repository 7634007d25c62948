"""Noise calibration of the array findings on loop devices: false alarms on a busy host, and recall of known faults.

Eight identical "drives" (loop devices over tmpfs, each capped at the same
read rate with cgroup-v1 blkio, so they are the same drive and not the
scheduler) measured by `iolab run --devices ... --runtime 10` as a user
would, while this script keeps the host busy itself: a CPU hog and a
reader streaming the root file system's disk with O_DIRECT.

- clean runs: no warning or critical from the dip, step, outlier or
  scaling rules may appear (a false alarm), and TEL-INTERFERENCE should
  name the load;
- six drives, one capped at 40% of its peers for the whole run, as many
  runs as clean ones: ARR-OUTLIER must name it in both views (at any
  severity: on a busy host the verdict is "a possibility"), and it must
  not be called fine (ARR-SHARED-PATH "slow only together", or an
  ARR-OUTLIER "together it kept up");
- one drive capped to 10% for 4 s in the middle of the together point:
  TEL-DIP or TEL-STEP must name that drive, onset within 2 s (the clean
  runs' twin: it proves the dip count can move).

Every run must end with exit 0 (3, a failed point, is no clean run), every
point must have measured long enough for the series rules to judge it
(MIN_SERIES_SAMPLES whole seconds beyond the partial first and last), and
no counted rule may report "not evaluated". ARR-SCALING-LOW is not counted:
it is information by design, so it could never have been a false alarm.

Needs root, fio, loop devices and a cgroup-v1 blkio controller, and a quiet
machine otherwise (what this script starts is the only load it means).
Prints the figures and writes bench/results/calibration.json.

    python bench/calibration.py [--clean 5] [--runtime 10]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from results_file import RESULTS, add_smoke_flag, write_result  # noqa: E402

from tests.loopdev import BlkioCgroup, LoopDevice, blkio_cgroup, busy_host, loop_devices, throttle_skip_reason  # noqa: E402

MIB = 1 << 20
RAMP_S = 2  # the dip run's --ramp: its window is timed after it, and findings date from its end
DRIVE_BPS = 100 * MIB
NOISE_RULES = {
    "TEL-DIP",
    "TEL-STEP",
    "ARR-OUTLIER",
    "ARR-SHARED-PATH",
    "ARR-SCALING-DROP",
    "RES-NONMONOTONIC-SCALING",
}
SERIOUS = {"warning", "critical"}


class NotEvaluated(Exception):
    """A run whose counted rules could not have fired: its count would prove nothing."""


def run_array(
    cgroup: BlkioCgroup, devices: list[LoopDevice], home: Path, runtime: int, during=None, ramp: int | None = None
) -> dict:
    """`iolab run --devices ...` inside the cgroup; the stored run as `iolab show --json` gives it, once
    `assert_evaluated` and `assert_series` have held (NotEvaluated when not)."""
    env = {**os.environ, "IOLAB_HOME": str(home)}
    argv = [
        sys.executable,
        "-m",
        "iolab",
        "run",
        "--quiet",
        "--json",
        "--runtime",
        str(runtime),
        *(("--ramp", str(ramp)) if ramp is not None else ()),
        "--devices",
        ",".join(d.path for d in devices),
    ]
    proc = cgroup.popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    helper = threading.Thread(target=during, args=(proc.pid,)) if during else None
    if helper:
        helper.start()
    out, err = proc.communicate(timeout=1800)
    if helper:
        helper.join()
    if proc.returncode != 0:  # 3: a point failed, and a run with a failed point is no clean run
        raise SystemExit(f"iolab run ended {proc.returncode}: {err[-800:]}")
    run = json.loads(out)
    assert_evaluated(run)
    assert_series(home, run)
    return run


def assert_series(home: Path, run: dict) -> None:
    """Every point's per-second series reached the doctor (fio's summed jobs; each drive of a together point
    from telemetry): without them the dip and step rules judged nothing, whatever they reported."""
    from iolab.doctor.derived import point_series
    from iolab.store.db import open_store
    from iolab.store.queries import run_material

    store = open_store(home, for_reading=True)
    try:
        material = run_material(store, run["run"]["id"])
    finally:
        store.close()
    found = point_series(material.records, material.series)
    missing = [r.point.name for r in material.records if not any(s.point == r.point.name for s in found)]
    drives = [
        f"{r.point.name}: {len(r.point.target.members)} drives, {len(own)} series"
        for r in material.records
        if r.point.target.kind == "group"
        and len(own := [s for s in found if s.point == r.point.name and s.label.endswith(" read")])
        < len(r.point.target.members)
    ]
    if missing or drives:
        raise NotEvaluated(f"rules not evaluated: no per-second series for {(missing + drives)[:4]}")


def assert_evaluated(run: dict) -> None:
    """Every point measured long enough for the series rules, and no counted rule "not evaluated"."""
    from iolab.doctor.derived import MIN_SERIES_SAMPLES

    short = [
        p["name"]
        for p in run["points"]
        if p["result"] is None
        or max(d["runtime_ms"] for d in p["result"]["directions"].values()) < (MIN_SERIES_SAMPLES + 2) * 1000
    ]
    skipped = [
        f"{f['rule_id']}: {f['title']}"
        for f in run["findings"]
        if f["rule_id"] in NOISE_RULES and f["severity"] == "not evaluated"
    ]
    if short or skipped:
        raise NotEvaluated(f"rules not evaluated: points too short {short[:4]}, {skipped[:4]}")


def serious_noise(run: dict) -> list[dict]:
    return [f for f in run["findings"] if f["rule_id"] in NOISE_RULES and f["severity"] in SERIOUS]


def clean_runs(cgroup: BlkioCgroup, devices: list[LoopDevice], tmp: Path, runtime: int, count: int) -> list[dict]:
    """Identical drives on a busy host: every serious dip, outlier or scaling finding is a false alarm."""
    results = []
    with busy_host():
        for i in range(count):
            run = run_array(cgroup, devices, tmp / f"clean{i}", runtime)
            noise = serious_noise(run)
            named = any(f["rule_id"] == "TEL-INTERFERENCE" for f in run["findings"])
            results.append(
                {"false_alarms": [f"{f['rule_id']}: {f['title']}" for f in noise], "interference_named": named}
            )
            print(
                f"clean run {i + 1}: {len(noise)} false alarm(s), interference {'named' if named else 'NOT named'}",
                flush=True,
            )
            for f in noise:
                print(f"   {f['rule_id']} {f['severity']}: {f['title']}")
    return results


def slow_drive(cgroup: BlkioCgroup, devices: list[LoopDevice], tmp: Path, runtime: int, runs: int) -> list[dict]:
    """One of six drives at 40% of its peers for the whole run, on a busy host, `runs` times: named in
    both views every time, never called fine."""
    slow = devices[len(devices) // 2]  # the 4th of 6; of a smoke run's 2, the 2nd
    cgroup.set_read_bps(slow.major_minor, int(DRIVE_BPS * 0.4))
    results = []
    try:
        with busy_host():
            for i in range(runs):
                run = run_array(cgroup, devices, tmp / f"slow{i}", runtime)
                named = [f for f in run["findings"] if f["rule_id"] == "ARR-OUTLIER" and f["subject"] == slow.name]
                views = sorted({m.group(1) for f in named if (m := re.search(r"\((together|alone)\)", f["title"]))})
                fine = [
                    f"{f['rule_id']}: {f['title']}"
                    for f in run["findings"]
                    if f["subject"] == slow.name
                    and (
                        f["rule_id"] == "ARR-SHARED-PATH" or (f["rule_id"] == "ARR-OUTLIER" and "kept up" in f["title"])
                    )
                ]
                others = [f"{f['rule_id']}: {f['title']}" for f in serious_noise(run) if f["subject"] != slow.name]
                severities = sorted({f["severity"] for f in named})
                print(
                    f"slow drive {slow.name}, run {i + 1}: named in {views or 'no view'} ({', '.join(severities) or '-'}); "
                    f"called fine: {len(fine)}; alarms on other drives: {len(others)}",
                    flush=True,
                )
                results.append(
                    {"views_named": views, "severities": severities, "called_fine": fine, "other_alarms": others}
                )
    finally:
        cgroup.set_read_bps(slow.major_minor, DRIVE_BPS)
    return results


def dip_window(cgroup: BlkioCgroup, devices: list[LoopDevice], tmp: Path, runtime: int) -> dict:
    """One drive capped to 10% for 4 s in the middle of the together point: the dip names it, onset within 2 s."""
    dipping = devices[-1]
    window: dict[str, float] = {}

    def throttle_window(_pid: int) -> None:
        cgroup.fio_started(timeout=600, poll=0.05)
        started = time.time()
        onset = started + RAMP_S + runtime / 2 - 2  # after the ramp, a little before mid-run
        time.sleep(max(0.0, onset - time.time()))
        window["onset_s"] = time.time() - started
        cgroup.set_read_bps(dipping.major_minor, int(DRIVE_BPS * 0.1))
        time.sleep(4)
        cgroup.set_read_bps(dipping.major_minor, DRIVE_BPS)

    run = run_array(cgroup, devices, tmp / "dip", runtime, during=throttle_window, ramp=RAMP_S)
    found = [
        f
        for f in run["findings"]
        if f["rule_id"] in ("TEL-DIP", "TEL-STEP")
        and dipping.name in f["subject"]
        and f["subject"].startswith("seqread-1m-qd32-together")
    ]
    onsets = [float(f["evidence"]["onset"].removesuffix(" s")) for f in found if "onset" in f["evidence"]]
    others = [
        f"{f['rule_id']}: {f['subject']}: {f['title']}"
        for f in serious_noise(run)
        if f not in found and f["rule_id"] in ("TEL-DIP", "TEL-STEP")
    ]
    applied = window.get("onset_s", float("nan"))
    print(
        f"4 s window on {dipping.name} from {applied:.1f} s after its fio started "
        f"({applied - RAMP_S:.1f} s on the measured clock, which starts after the ramp): "
        + ("; ".join(f["title"] for f in found) or "NOT found")
        + f"; other dips: {len(others)}",
        flush=True,
    )
    return {
        "device": dipping.name,
        "applied_onset_s": round(window.get("onset_s", -1), 1),
        # the findings date on fio's measured clock, which starts once the preset's ramp is over
        "applied_onset_measured_s": round(window.get("onset_s", -1) - RAMP_S, 1),
        "found": [f"{f['rule_id']}: {f['title']}" for f in found],
        "onsets_s": onsets,
        "other_dips": others,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", type=int, default=5, help="clean runs under load")
    parser.add_argument("--runtime", type=int, default=10, help="--runtime of the clean and slow runs")
    parser.add_argument("--dip-runtime", type=int, default=12, help="--runtime of the run with the 4 s window")
    parser.add_argument("--drives", type=int, default=8, help="identical loop devices (at least 2)")
    add_smoke_flag(parser)
    args = parser.parse_args()
    reason = throttle_skip_reason()
    if reason:
        raise SystemExit(f"cannot calibrate here: {reason}")
    if args.smoke:
        return smoke()
    figures: dict = {"drives": args.drives, "drive_bps": DRIVE_BPS, "runtime_s": args.runtime}
    with (
        loop_devices(args.drives, size_mib=256) as devices,
        blkio_cgroup() as cgroup,
        tempfile.TemporaryDirectory(prefix="iolab-calibration-") as tmp,
    ):
        for dev in devices:
            cgroup.set_read_bps(dev.major_minor, DRIVE_BPS)
            with open(dev.path, "r+b") as handle:  # written, so reads are of data (FIO-UNWRITTEN-READ stays quiet)
                handle.write(os.urandom(8 * MIB))
        try:
            figures["clean"] = clean_runs(cgroup, devices, Path(tmp), args.runtime, args.clean)
            figures["slow_40pct_of_6"] = slow_drive(cgroup, devices[:6], Path(tmp), args.runtime, args.clean)
            figures["dip_4s"] = dip_window(cgroup, devices, Path(tmp), args.dip_runtime)
        except NotEvaluated as failed:
            raise SystemExit(str(failed)) from None
    clean_ok = sum(1 for c in figures["clean"] if not c["false_alarms"])
    print(
        f"clean runs without a false alarm: {clean_ok} of {len(figures['clean'])}; interference named in "
        f"{sum(c['interference_named'] for c in figures['clean'])}"
    )
    both = sum(
        1 for r in figures["slow_40pct_of_6"] if r["views_named"] == ["alone", "together"] and not r["called_fine"]
    )
    print(f"slow drive named in both views, never called fine: {both} of {len(figures['slow_40pct_of_6'])}")
    write_result(RESULTS / "calibration.json", "calibration", figures)
    return 0


def smoke() -> int:
    """Two drives, one run of 1 s points with no ramp, the second drive capped: the array runs, its findings
    come back, and the evaluation checks refuse it (1 s points are too short for the series rules). A check
    that let them through could never fail, so that is the smoke run's failure."""
    with (
        loop_devices(2, size_mib=16) as devices,
        blkio_cgroup() as cgroup,
        tempfile.TemporaryDirectory(prefix="iolab-calibration-") as tmp,
    ):
        cgroup.set_read_bps(devices[1].major_minor, int(DRIVE_BPS * 0.4))
        try:
            run_array(cgroup, devices, Path(tmp) / "smoke", runtime=1, ramp=0)
        except NotEvaluated as refused:
            print(f"1 s points refused, as they must be: {refused}")
        else:
            raise SystemExit("the evaluation checks let 1 s points through: no count of theirs could fail")
    write_result(RESULTS / "calibration.json", "calibration", {"refused_1s_points": True}, smoke=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
