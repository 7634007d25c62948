"""`iolab run --devices` where the measurement is judged, alone on the host: identical drives on a busy host
raise no alarm, and capped drives scale linearly. A dry run, leave-one-out names, the formats and argument errors
are in `test_array_cli.py` (beside other workers); a throttled drive named in both views and a dip at its second
and depth in `tests/workflows/test_seed000.py`, which walks the same array as the seed's engineer."""

from __future__ import annotations

import json
import sys

import pytest

from tests.loopdev import blkio_cgroup, busy_host, loop_devices

CAP = 200 << 20  # every device capped alike: unthrottled loop devices differ only by CPU scheduling


def _run_array(devices, modes: str, runtime: int = 2) -> dict:
    with blkio_cgroup() as cgroup:
        for dev in devices:
            cgroup.set_read_bps(dev.major_minor, CAP)
        argv = [
            sys.executable,
            "-m",
            "iolab",
            "run",
            "--devices",
            ",".join(d.path for d in devices),
            "--array-modes",
            modes,
            "--runtime",
            str(runtime),
            "--ramp",
            "0",
            "--json",
        ]
        proc = cgroup.popen(argv, stdout=-1, stderr=-1, text=True)
        out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return json.loads(out)


NOISE_RULES = {  # not ARR-SCALING-LOW: information by design, it could never count as an alarm
    "TEL-DIP",
    "TEL-STEP",
    "ARR-OUTLIER",
    "ARR-SHARED-PATH",
    "ARR-SCALING-DROP",
    "RES-NONMONOTONIC-SCALING",
}


def test_identical_devices_on_a_busy_host_raise_no_alarm_but_the_interference_is_named():
    """9 s points: with 2 s ones (issue 33) the series rules had too few seconds to count a dip at all. Four
    drives (six points: together, each alone, two together) keep this under a minute of the serial tier;
    `bench/calibration.py` asks the same of eight drives, five runs over."""
    from iolab.doctor.derived import MIN_SERIES_SAMPLES

    with loop_devices(4) as devices, busy_host():
        shown = _run_array(devices, "together,alone,scaling", runtime=9)
    runtimes = [max(d["runtime_ms"] for d in p["result"]["directions"].values()) for p in shown["points"]]
    assert min(runtimes) >= (MIN_SERIES_SAMPLES + 2) * 1000  # every point long enough for the series rules
    assert not [f for f in shown["findings"] if f["rule_id"] in NOISE_RULES and f["severity"] == "not evaluated"]
    serious = [
        f"{f['rule_id']}: {f['title']}"
        for f in shown["findings"]
        if f["rule_id"] in NOISE_RULES and f["severity"] in ("warning", "critical")
    ]
    assert serious == []
    assert any(f["rule_id"] == "TEL-INTERFERENCE" and "python" in f["title"] for f in shown["findings"])


def test_subset_scaling_on_four_devices_prints_the_table():
    with loop_devices(4) as devices:
        with blkio_cgroup() as cgroup:
            for dev in devices:
                cgroup.set_read_bps(dev.major_minor, 100 << 20)
            argv = [
                sys.executable,
                "-m",
                "iolab",
                "run",
                "--devices",
                ",".join(d.path for d in devices),
                "--array-modes",
                "scaling",
                "--runtime",
                "1",
                "--ramp",
                "0",
                "-f",
                "json",
            ]
            proc = cgroup.popen(argv, stdout=-1, stderr=-1, text=True, env=None)
            out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    (scaling,) = [t for t in json.loads(out)["tables"] if t["kind"] == "scaling"]  # the table as every format shows it
    rows = [row["cells"] for row in scaling["rows"]]
    assert [int(r[0]) for r in rows] == [1, 2, 4]
    for count, aggregate, efficiency in ((int(r[0]), float(r[1].replace(",", "")), r[3]) for r in rows):
        assert efficiency.strip().endswith("%")
        assert aggregate == pytest.approx(count * 104.9, rel=0.1)  # 100 MiB/s cap each = 104.9 MB/s
