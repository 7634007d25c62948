"""`iolab run --devices`: loop devices together, alone and in subsets, on a busy host and in every format.

A throttled drive named in both views, and a dip at its second and depth, are held by
`tests/workflows/test_seed000.py`, which walks the same array as the seed's engineer."""

from __future__ import annotations

import json
import sys

import pytest

from tests.iolab_cli import assert_clean_error, iolab
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


def test_a_dry_run_of_an_array_lists_its_devices_sets_and_points_and_writes_nothing():
    with loop_devices(3) as devices:
        paths = ",".join(d.path for d in devices)
        proc = iolab("run", "--dry-run", "--devices", paths)
        chosen = iolab("run", "--dry-run", "--devices", paths, "--array-modes", "scaling", "--subsets", "leave-one-out")
    assert proc.returncode == 0, proc.stderr
    first, second, third = (d.name for d in devices)
    assert proc.stderr.startswith(f"array: 3 devices in this order: {first} ... {third}\n")
    assert f"  x2: 2 devices ({first}, {second})\n" in proc.stderr
    assert "seqread-1m-qd32-together on 3 devices" in proc.stderr and "-alone-" in proc.stderr
    assert "writes: nothing: reads only" in proc.stderr and "scratch" not in proc.stderr
    assert proc.stderr.endswith("5 points, estimated 64 s\n")
    assert chosen.returncode == 0, chosen.stderr
    lines = chosen.stderr.splitlines()
    assert lines[1:4] == [
        f"  without-{first}: 2 devices ({second}, {third})",
        f"  without-{second}: 2 devices ({first}, {third})",
        f"  x2: 2 devices ({first}, {second})",
    ]
    assert lines[-1] == "3 points, estimated 39 s"


def test_leave_one_out_names_each_set_and_run_show_and_report_print_the_same_array_tables():
    with loop_devices(3) as devices:
        proc = iolab(
            "run",
            "--devices",
            ",".join(d.path for d in devices),
            "--array-modes",
            "scaling",
            "--subsets",
            "1,leave-one-out",
            "--runtime",
            "1",
            "--ramp",
            "0",
            "--no-report",
            "-f",
            "md",
        )
    assert proc.returncode == 0, proc.stderr
    run_id = json.loads(iolab("ls", "--json").stdout)[0]["id"]
    shown = {fmt: iolab("show", str(run_id), "-f", fmt).stdout for fmt in ("md", "table", "json")}
    assert shown["md"] == proc.stdout  # what the run printed is what show and report print
    for fmt, text in shown.items():
        assert iolab("report", str(run_id), "-f", fmt).stdout == text, fmt
    tables = json.loads(shown["json"])["tables"]
    for (
        table
    ) in tables:  # every table in Markdown and the terminal's text, cell by cell (tests/report/test_same_tables)
        assert f"Table {run_id}.{table['number']}: {table['title']}" in shown["table"]
        header = "| " + " | ".join(c["header"] for c in table["columns"]) + " |"
        assert header in shown["md"]
        for row in table["rows"]:
            assert "| " + " | ".join(cell or " " for cell in row["cells"]) + " |" in shown["md"], row
    first, second, third = (d.name for d in devices)
    (scaling,) = [t for t in tables if t["kind"] == "scaling"]
    rows = [row["cells"] for row in scaling["rows"]]
    assert [row[0] for row in rows] == ["1", "2", "2", "2"]
    assert rows[0][4] == f"alone-{first}"  # the set of one: the first drive alone, the reference
    assert sorted(row[4] for row in rows[1:]) == sorted([f"without-{first}", f"without-{second}", "x2"])
    (per_device,) = [t for t in tables if t["kind"] == "device"]
    # only the first drive ran alone (the set of one) and no set was all three together
    assert [row["cells"][:2] for row in per_device["rows"]] == [[first, "-"]]
    (sets,) = [t for t in tables if t["kind"] == "io"]  # the sets run, named as their points are
    named = {row["cells"][0] for row in sets["rows"]}  # all but the third is the first two: x2
    assert named == {devices[0].path, "x2", f"without-{first}", f"without-{second}"}, named


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
                "2",
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


def test_devices_and_targets_together_is_a_clear_error(tmp_path):
    assert "not both" in assert_clean_error(iolab("run", str(tmp_path), "--devices", "/dev/loop0,/dev/loop1"))


def test_subsets_without_devices_is_a_clear_error(tmp_path):
    assert "--devices" in assert_clean_error(iolab("run", str(tmp_path), "--subsets", "2", "--dry-run"))


def test_a_glob_matching_nothing_is_a_clear_error():
    assert "matches no device" in assert_clean_error(iolab("run", "--devices", "/dev/iolab-none*"))
