"""Noise calibration of the array findings: false alarms on a busy host, and recall of known faults.

Eight identical "drives" (loop devices over tmpfs, each capped at the same
read rate with cgroup-v1 blkio, so they are the same drive and not the
scheduler) measured by `iolab run --devices ... --runtime 3` as a user
would, while this script keeps the host busy itself: a CPU hog and a
reader streaming the root file system's disk with O_DIRECT.

- clean runs: no warning or critical from the dip, step, outlier or
  scaling rules may appear (a false alarm), and TEL-INTERFERENCE should
  name the load;
- one drive capped at 40% of its peers for the whole run: ARR-OUTLIER must
  name it in both views and no finding may call it fine;
- one drive capped to 10% for 4 s in the middle of the together point:
  TEL-DIP or TEL-STEP must name that drive, onset within 2 s.

Needs root, fio, loop devices and a cgroup-v1 blkio controller. Prints the
figures and writes bench/results/calibration.json.

    python bench/calibration.py [--clean 5] [--runtime 3]
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.loopdev import (  # noqa: E402
    BlkioCgroup, LoopDevice, blkio_cgroup, busy_host, loop_devices, throttle_skip_reason,
)

MIB = 1 << 20
DRIVE_BPS = 100 * MIB
NOISE_RULES = {"TEL-DIP", "TEL-STEP", "ARR-OUTLIER", "ARR-SHARED-PATH", "ARR-SCALING-DROP", "ARR-SCALING-LOW",
               "RES-NONMONOTONIC-SCALING"}
SERIOUS = {"warning", "critical"}


def run_array(cgroup: BlkioCgroup, devices: list[LoopDevice], home: Path, runtime: int,
              during=None) -> dict:  # noqa: ANN001  (a callable started beside the run)
    """`iolab run --devices ...` inside the cgroup; the stored run as `iolab show --json` gives it."""
    env = {**os.environ, "IOLAB_HOME": str(home)}
    argv = [sys.executable, "-m", "iolab", "run", "--quiet", "--json", "--runtime", str(runtime),
            "--devices", ",".join(d.path for d in devices)]
    proc = cgroup.popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    helper = threading.Thread(target=during, args=(proc.pid,)) if during else None
    if helper:
        helper.start()
    out, err = proc.communicate(timeout=1800)
    if helper:
        helper.join()
    if proc.returncode not in (0, 3):
        raise SystemExit(f"iolab run failed ({proc.returncode}): {err[-800:]}")
    return json.loads(out)


def serious_noise(run: dict) -> list[dict]:
    return [f for f in run["findings"] if f["rule_id"] in NOISE_RULES and f["severity"] in SERIOUS]


def point_started(home: Path, name_part: str, timeout: float = 600) -> float:
    """Wait until the run's point whose name contains `name_part` is running; its start time (epoch s)."""
    import sqlite3

    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            conn = sqlite3.connect(f"file:{home / 'iolab.db'}?mode=ro", uri=True, timeout=5)
            row = conn.execute("SELECT started_at FROM points WHERE name LIKE ? AND status = 'running'",
                               (f"%{name_part}%",)).fetchone()
            conn.close()
        except sqlite3.Error:
            row = None
        if row and row[0]:
            return float(row[0])
        time.sleep(0.1)
    raise SystemExit(f"no point like {name_part!r} started")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", type=int, default=5, help="clean runs under load")
    parser.add_argument("--runtime", type=int, default=3)
    args = parser.parse_args()
    reason = throttle_skip_reason()
    if reason:
        raise SystemExit(f"cannot calibrate here: {reason}")
    figures: dict = {"drives": 8, "drive_bps": DRIVE_BPS, "runtime_s": args.runtime, "clean": [], "faults": {}}
    with loop_devices(8, size_mib=256) as devices, blkio_cgroup() as cgroup, \
            tempfile.TemporaryDirectory(prefix="iolab-calibration-") as tmp:
        for dev in devices:
            cgroup.set_read_bps(dev.major_minor, DRIVE_BPS)
            with open(dev.path, "r+b") as handle:  # written, so reads are of data (FIO-UNWRITTEN-READ stays quiet)
                handle.write(os.urandom(8 * MIB))
        with busy_host():
            for i in range(args.clean):
                run = run_array(cgroup, devices, Path(tmp) / f"clean{i}", args.runtime)
                noise = serious_noise(run)
                interference = [f for f in run["findings"] if f["rule_id"] == "TEL-INTERFERENCE"]
                figures["clean"].append({"false_alarms": [f"{f['rule_id']}: {f['title']}" for f in noise],
                                         "interference_named": bool(interference)})
                print(f"clean run {i + 1}: {len(noise)} false alarm(s), interference "
                      f"{'named' if interference else 'NOT named'}", flush=True)
                for f in noise:
                    print(f"   {f['rule_id']} {f['severity']}: {f['title']}")

        slow = devices[3]
        cgroup.set_read_bps(slow.major_minor, int(DRIVE_BPS * 0.4))
        run = run_array(cgroup, devices, Path(tmp) / "slow", args.runtime)
        cgroup.set_read_bps(slow.major_minor, DRIVE_BPS)
        named = {f["title"].split(" (")[-1].rstrip(")") for f in run["findings"]
                 if f["rule_id"] == "ARR-OUTLIER" and f["subject"] == slow.name and f["severity"] in SERIOUS}
        fine = [f["title"] for f in run["findings"] if slow.name in f["title"] and "fine" in f["title"]]
        figures["faults"]["slow_40pct"] = {"device": slow.name, "views_named": sorted(named), "called_fine": fine,
                                           "other_alarms": [f"{f['rule_id']}: {f['title']}" for f in serious_noise(run)
                                                            if f["subject"] != slow.name]}
        print(f"slow drive {slow.name}: named in {sorted(named) or 'no view'}; called fine: {len(fine)}", flush=True)

        dipping = devices[5]
        window: dict[str, float] = {}

        def throttle_window(pid: int) -> None:
            started = point_started(Path(tmp) / "dip", "together")
            time.sleep(max(0.0, started + 2 + args.runtime / 2 - time.time()))  # ramp 2 s, then mid-run
            window["onset_epoch"] = time.time()
            cgroup.set_read_bps(dipping.major_minor, int(DRIVE_BPS * 0.1))
            time.sleep(4)
            cgroup.set_read_bps(dipping.major_minor, DRIVE_BPS)
            window["point_started"] = started

        run = run_array(cgroup, devices, Path(tmp) / "dip", max(args.runtime, 12), during=throttle_window)
        expected = window["onset_epoch"] - window["point_started"]
        dips = [f for f in run["findings"] if f["rule_id"] in ("TEL-DIP", "TEL-STEP") and dipping.name in f["subject"]]
        onsets = [float(f["evidence"].get("onset", "nan").rstrip(" s")) for f in dips if "onset" in f["evidence"]]
        figures["faults"]["dip_4s"] = {"device": dipping.name, "expected_onset_s": round(expected, 1),
                                       "found": [f"{f['rule_id']}: {f['title']}" for f in dips], "onsets_s": onsets}
        print(f"4 s window on {dipping.name} at {expected:.1f} s: " + ("; ".join(f["title"] for f in dips) or "NOT found"))
    clean_ok = sum(1 for c in figures["clean"] if not c["false_alarms"])
    print(f"clean runs without a false alarm: {clean_ok} of {len(figures['clean'])}; interference named in "
          f"{sum(c['interference_named'] for c in figures['clean'])}")
    out = Path(__file__).parent / "results" / "calibration.json"
    out.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
