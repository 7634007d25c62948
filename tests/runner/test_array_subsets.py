"""Which device sets an array run measures (`--subsets`), what they are called, and how a preview lists them.

Planned in-process over 30 block-device targets made here (nothing is opened: `array_points` only plans),
so each set has a known answer; the 30-drive study this follows compared 30, 28 and 24 drives and wanted
to know which drive's absence helped.
"""

from __future__ import annotations

import pytest

from iolab.doctor.derived import array_views
from iolab.errors import UserError
from iolab.models import DirectionResult, Plan, PointRecord, Result, Target, Workload
from iolab.models.array_names import array_workload, set_label
from iolab.runner.arrays import DEFAULT_SUBSETS, array_points, describe_sets, expand_devices
from iolab.runner.request import RunRequest

MODES = ("together", "alone", "scaling")
PLAN = Plan(name="array-read", workloads=[Workload("seqread", {"rw": "read", "bs": "1m", "iodepth": "32"})])


def _drives(count: int = 30) -> list[Target]:
    return [Target(f"/dev/nvme{i}n1", "block", f"/dev/nvme{i}n1", 1 << 40) for i in range(count)]


def _sets(points) -> dict[str, list[str]]:
    """Point name -> the device names it runs, for every point run on more than one device."""
    return {p.name: [m.removeprefix("/dev/") for m in p.target.members] for p in points if p.target.kind == "group"}


def test_the_default_is_together_each_alone_and_the_first_2_4_8_16_as_before():
    drives = _drives()
    points = array_points(PLAN, drives, MODES)
    names = [p.name for p in points]
    assert names[0] == "seqread-together" and len(points[0].target.members) == 30
    assert names[1:31] == [f"seqread-alone-nvme{i}n1" for i in range(30)]
    assert names[31:] == ["seqread-x2", "seqread-x4", "seqread-x8", "seqread-x16"]
    assert _sets(points)["seqread-x4"] == ["nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"]
    assert RunRequest().subsets == list(DEFAULT_SUBSETS)


def test_counts_are_the_first_n_devices_and_the_whole_array_is_the_together_point():
    points = array_points(PLAN, _drives(), ("scaling",), ["30,28,24"])
    sets = _sets(points)
    assert list(sets) == ["seqread-together", "seqread-x28", "seqread-x24"]
    assert sets["seqread-x28"] == [f"nvme{i}n1" for i in range(28)]
    assert sets["seqread-x24"] == [f"nvme{i}n1" for i in range(24)]


def test_leave_one_out_runs_every_device_but_one_each_in_turn():
    points = array_points(PLAN, _drives(4), ("scaling",), ["leave-one-out"])
    # the set without the last drive is also the first three: in a leave-one-out it is named by the drive it
    # leaves out, as every other set of it is (issue 42: it was labelled x3)
    assert _sets(points) == {
        "seqread-without-nvme0n1": ["nvme1n1", "nvme2n1", "nvme3n1"],
        "seqread-without-nvme1n1": ["nvme0n1", "nvme2n1", "nvme3n1"],
        "seqread-without-nvme2n1": ["nvme0n1", "nvme1n1", "nvme3n1"],
        "seqread-without-nvme3n1": ["nvme0n1", "nvme1n1", "nvme2n1"],
    }


def test_sets_named_device_by_device_keep_the_array_order_and_are_numbered_as_listed():
    points = array_points(PLAN, _drives(), ("scaling",), ["nvme5n1+nvme0n1", "/dev/nvme7n1+nvme2n1+nvme3n1"])
    assert _sets(points) == {
        "seqread-set1": ["nvme0n1", "nvme5n1"],
        "seqread-set2": ["nvme2n1", "nvme3n1", "nvme7n1"],
    }


def test_a_set_asked_for_twice_is_measured_once_and_a_set_of_one_is_that_device_alone():
    points = array_points(PLAN, _drives(), MODES, ["2,nvme1n1+nvme0n1,1,nvme9n1"])
    names = [p.name for p in points]
    assert names.count("seqread-x2") == 1 and "seqread-set1" not in names
    assert len(names) == 1 + 30 + 1  # together, each alone (nvme0n1 and nvme9n1 among them), the first two
    assert len({p.key for p in points}) == len(points)


def test_every_set_s_name_reads_back_to_its_workload_and_the_views_group_it():
    points = array_points(PLAN, _drives(6), MODES, ["doubling,leave-one-out,5,nvme1n1+nvme4n1"])
    assert {array_workload(p.name) for p in points} == {"seqread"}
    records = [
        PointRecord(
            i,
            1,
            i,
            p,
            "ok",
            result=Result(
                {"read": DirectionResult("read", 1e9 * len(p.target.members or [0]), 1e3, 1, 1, 1)}, 1, 1, 1, ""
            ),
        )
        for i, p in enumerate(points, start=1)
    ]
    (view,) = array_views(records, {})
    assert sorted(view.alone) == [f"nvme{i}n1" for i in range(6)]
    assert sorted(view.label(devices) for devices, _ in view.sets) == sorted(
        [
            "together",
            "x2",
            "x4",
            "without-nvme5n1",
            "without-nvme0n1",
            "without-nvme1n1",
            "without-nvme2n1",
            "without-nvme3n1",
            "without-nvme4n1",
            "set1",
        ]
    )


@pytest.mark.parametrize(
    ("subsets", "message"),
    [
        ("0", "--subsets 0: the array has 30 devices, so a count goes from 1 to 30"),
        ("31", "--subsets 31: the array has 30 devices"),
        ("nvme3n1+nvme99n1", "'nvme99n1' is not one of --devices"),
        ("halves", "--subsets 'halves' is not a term iolab knows: write N (the first N devices"),
        ("nvme1n1+nvme1n1", "names a device twice"),
    ],
)
def test_a_subset_iolab_cannot_make_is_a_one_line_error(subsets, message):
    with pytest.raises(UserError) as caught:
        array_points(PLAN, _drives(), MODES, [subsets])
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_subsets_without_the_scaling_mode_are_refused():
    with pytest.raises(UserError, match="add scaling to --array-modes"):
        array_points(PLAN, _drives(), ("together", "alone"), ["30,28"])


def test_a_glob_s_devices_come_in_natural_order_so_the_first_n_are_the_first_n(tmp_path):
    for i in (0, 1, 2, 10, 11, 20):
        (tmp_path / f"nvme{i}n1").touch()
    found = [path.rpartition("/")[2] for path in expand_devices([f"{tmp_path}/nvme*n1"])]
    assert found == ["nvme0n1", "nvme1n1", "nvme2n1", "nvme10n1", "nvme11n1", "nvme20n1"]


def test_a_preview_lists_the_devices_then_each_set_with_runs_of_neighbours_shortened():
    drives = _drives()
    points = array_points(PLAN, drives, MODES, ["28,leave-one-out,nvme0n1+nvme2n1"])
    lines = describe_sets(drives, points)
    assert lines[0] == "array: 30 devices in this order: nvme0n1 ... nvme29n1"
    assert "  together: 30 devices (nvme0n1 ... nvme29n1)" in lines
    assert "  x28: 28 devices (nvme0n1 ... nvme27n1)" in lines
    assert "  without-nvme3n1: 29 devices (nvme0n1 ... nvme2n1, nvme4n1 ... nvme29n1)" in lines
    assert "  without-nvme1n1: 29 devices (nvme0n1, nvme2n1 ... nvme29n1)" in lines
    assert "  set1: 2 devices (nvme0n1, nvme2n1)" in lines
    assert lines[-1] == "  alone: 30 devices one at a time (nvme0n1 ... nvme29n1)"
    assert len(lines) == 1 + 1 + 1 + 30 + 1 + 1  # devices, together, x28, 29 leave-one-out + x29, set1, alone


@pytest.mark.parametrize(
    ("members", "label"),
    [
        (["a", "b", "c", "d"], "together"),
        (["c"], "alone-c"),
        (["a", "b"], "x2"),
        (["a", "b", "c"], "without-d"),  # the first three too: named by the drive it leaves out
        (["a", "c", "d"], "without-b"),
        (["b", "d"], "set7"),
    ],
)
def test_a_set_is_named_by_what_it_holds(members, label):
    assert set_label(members, ["a", "b", "c", "d"], 7) == label


def test_a_set_above_the_sum_of_its_devices_alone_says_why_and_one_at_its_sum_says_nothing():
    """Issue 42: `without-loop4` at 128% efficiency with no word on why. Four drives alone at 1 GB/s each;
    leave-one-out sets together at 3.84 GB/s (128%) and 3 GB/s (100%)."""
    from iolab.views.array_tables import scaling_table_of

    points = array_points(PLAN, _drives(4), MODES, ["leave-one-out"])
    together = {"seqread-without-nvme0n1": 3.84e9}
    records = []
    for i, p in enumerate(points, start=1):
        members = p.target.members or ()
        rate = together.get(p.name, 1e9 * max(1, len(members)))
        records.append(
            PointRecord(
                i, 1, i, p, "ok", result=Result({"read": DirectionResult("read", rate, 1e3, 1, 1, 1)}, 1, 1, 1, "")
            )
        )
    (view,) = array_views(records, {})
    table = scaling_table_of(view)
    assert table is not None
    notes = [note for row in table.rows for note in row.notes]
    assert len(notes) == 1 and notes[0].startswith("without-nvme0n1: 128% of its devices alone"), notes
