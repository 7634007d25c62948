"""`iolab run --devices` where no timing is judged, beside other workers: a dry run lists the array's devices,
sets and points, leave-one-out sets are named and printed alike by run, show and report, and bad arguments are
one-line errors. What the array measures (a busy host's quiet, linear scaling) is in the serial
`test_arrays.py`; a throttled drive named and a dip found, in `tests/workflows/test_seed000.py`."""

from __future__ import annotations

import json

from tests import in_process
from tests.iolab_cli import assert_clean_error, iolab
from tests.loopdev import loop_devices


def test_a_dry_run_of_an_array_lists_its_devices_sets_and_points_and_writes_nothing():
    with loop_devices(3) as devices:
        paths = ",".join(d.path for d in devices)
        proc = iolab("run", "--dry-run", "--devices", paths)
        chosen = iolab("run", "--dry-run", "--devices", paths, "--array-modes", "scaling", "--subsets", "leave-one-out")
    assert proc.returncode == 0, proc.stderr
    first, second, third = (d.name for d in devices)
    assert proc.stderr.startswith(f"array: 3 devices in this order: {first} ... {third}\n")
    assert f"  without-{third}: 2 devices ({first}, {second})\n" in proc.stderr  # all but one: named by it
    assert "seqread-1m-qd32-together on 3 devices" in proc.stderr and "-alone-" in proc.stderr
    assert "writes: nothing: reads only" in proc.stderr and "scratch" not in proc.stderr
    assert proc.stderr.endswith("5 points, estimated 64 s\n")
    assert chosen.returncode == 0, chosen.stderr
    lines = chosen.stderr.splitlines()
    assert lines[1:4] == [
        f"  without-{first}: 2 devices ({second}, {third})",
        f"  without-{second}: 2 devices ({first}, {third})",
        f"  without-{third}: 2 devices ({first}, {second})",
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
    run_id = json.loads(in_process.iolab("ls", "--json").stdout)[0]["id"]
    shown = {fmt: in_process.iolab("show", str(run_id), "-f", fmt).stdout for fmt in ("md", "table", "json")}
    assert shown["md"] == proc.stdout  # what the run printed is what show and report print
    for fmt, text in shown.items():
        assert in_process.iolab("report", str(run_id), "-f", fmt).stdout == text, fmt
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
    assert sorted(row[4] for row in rows[1:]) == sorted([f"without-{first}", f"without-{second}", f"without-{third}"])
    (per_device,) = [t for t in tables if t["kind"] == "device"]
    # only the first drive ran alone (the set of one) and no set was all three together
    assert [row["cells"][:2] for row in per_device["rows"]] == [[first, "-"]]
    (sets,) = [t for t in tables if t["kind"] == "io"]  # the sets run, named as their points are
    named = {row["cells"][0] for row in sets["rows"]}  # all but the third is named by it, not as the first two
    assert named == {devices[0].path, f"without-{third}", f"without-{first}", f"without-{second}"}, named


def test_devices_and_targets_together_is_a_clear_error(tmp_path):
    assert "not both" in assert_clean_error(iolab("run", str(tmp_path), "--devices", "/dev/loop0,/dev/loop1"))


def test_subsets_without_devices_is_a_clear_error(tmp_path):
    assert "--devices" in assert_clean_error(iolab("run", str(tmp_path), "--subsets", "2", "--dry-run"))


def test_a_glob_matching_nothing_is_a_clear_error():
    assert "matches no device" in assert_clean_error(iolab("run", "--devices", "/dev/iolab-none*"))
