"""Sweep expansion: cross product, zip, exclude, job file with overrides."""

from __future__ import annotations

import textwrap

import pytest

from iolab.errors import UserError
from iolab.models.plan import Workload
from iolab.plan.matrix import expand
from iolab.plan.planfile import load_plan


def write(path, text):
    path.write_text(textwrap.dedent(text))
    return path


def test_cross_product_in_axis_order_with_names_saying_what_varies():
    got = expand("", {"ioengine": "libaio"}, {"rw": ["randread", "randwrite"], "bs": ["4k"], "iodepth": ["1", "32"]})
    assert got == [
        Workload("randread-qd1", {"ioengine": "libaio", "rw": "randread", "bs": "4k", "iodepth": "1"}),
        Workload("randread-qd32", {"ioengine": "libaio", "rw": "randread", "bs": "4k", "iodepth": "32"}),
        Workload("randwrite-qd1", {"ioengine": "libaio", "rw": "randwrite", "bs": "4k", "iodepth": "1"}),
        Workload("randwrite-qd32", {"ioengine": "libaio", "rw": "randwrite", "bs": "4k", "iodepth": "32"}),
    ]


def test_zip_moves_axes_together_at_the_first_axis_position():
    got = expand(
        "seq", {}, {"bs": ["4k", "1m"], "rw": ["read", "write"], "size": ["1g", "8g"]}, zip_groups=[["bs", "size"]]
    )
    assert [(w.name, w.options) for w in got] == [
        ("seq-4k-read-size1g", {"bs": "4k", "size": "1g", "rw": "read"}),
        ("seq-4k-write-size1g", {"bs": "4k", "size": "1g", "rw": "write"}),
        ("seq-1m-read-size8g", {"bs": "1m", "size": "8g", "rw": "read"}),
        ("seq-1m-write-size8g", {"bs": "1m", "size": "8g", "rw": "write"}),
    ]


def test_exclude_drops_matching_points_comparing_numbers_and_sizes():
    axes = {"rw": ["randread", "randwrite"], "iodepth": ["32", "128"], "bs": ["4k", "1m"]}
    got = expand("", {}, axes, exclude=["rw == 'randwrite' and iodepth > 64", "bs >= '1m' and not rw in ['randread']"])
    assert [w.name for w in got] == [
        "randread-qd32-4k",
        "randread-qd32-1m",
        "randread-qd128-4k",
        "randread-qd128-1m",
        "randwrite-qd32-4k",
    ]


@pytest.mark.parametrize(
    "rule, problem",
    [
        ("__import__('os').system('true') == 0", "uses Call"),
        ("__import__('os').system('true')", "not a condition"),
        ("iodepht > 4", "not an axis or option"),
        ("rw", "not a condition"),
        ("iodepth > ", "cannot parse"),
        ("iodepth == [1, 2]", "only on the right of 'in'"),
    ],
)
def test_exclude_rejects_anything_but_comparisons_of_known_names(rule, problem):
    with pytest.raises(UserError, match=problem):
        expand("", {}, {"rw": ["read"], "iodepth": ["1"]}, exclude=[rule])


def test_zip_of_unequal_axes_and_empty_axis_are_errors():
    with pytest.raises(UserError, match=r"zip\[0\] axes must have the same number of values"):
        expand("", {}, {"bs": ["4k", "1m"], "size": ["1g"]}, zip_groups=[["bs", "size"]])
    with pytest.raises(UserError, match="axes.iodepth is empty"):
        expand("", {}, {"iodepth": []})


def test_toml_plan_expands_workload_groups_targets_and_repeat_settings(tmp_path):
    plan = load_plan(
        write(
            tmp_path / "nvme.toml",
            """
        name = "nvme"
        targets = ["@fast", "/dev/sdz"]
        exclude = ["rw == 'randwrite' and iodepth > 64"]
        [target_groups]
        fast = ["/dev/nvme0n1", "/dev/nvme1n1"]
        [options]
        ioengine = "libaio"
        direct = true
        [repeat]
        count = 3
        adaptive = true
        cov_target = 0.03
        max = 8
        interleave = true
        [[workloads]]
        name = "rand"
        axes = { rw = ["randread", "randwrite"], iodepth = [32, 128] }
        options = { bs = "4k" }
        [[workloads]]
        name = "seq"
        options = { rw = "read", bs = "1m", iodepth = 32 }
    """,
        )
    )
    assert plan.name == "nvme"
    assert plan.targets == ["/dev/nvme0n1", "/dev/nvme1n1", "/dev/sdz"]
    assert plan.repeat == 3
    assert (plan.repeats.adaptive, plan.repeats.cov_target, plan.repeats.max_count, plan.repeats.interleave) == (
        True,
        0.03,
        8,
        True,
    )
    assert [(w.name, w.options) for w in plan.workloads] == [
        ("rand-randread-qd32", {"ioengine": "libaio", "direct": "1", "bs": "4k", "rw": "randread", "iodepth": "32"}),
        ("rand-randread-qd128", {"ioengine": "libaio", "direct": "1", "bs": "4k", "rw": "randread", "iodepth": "128"}),
        ("rand-randwrite-qd32", {"ioengine": "libaio", "direct": "1", "bs": "4k", "rw": "randwrite", "iodepth": "32"}),
        ("seq", {"ioengine": "libaio", "direct": "1", "rw": "read", "bs": "1m", "iodepth": "32"}),
    ]


def test_target_axis_sets_the_workload_target_not_an_option(tmp_path):
    plan = load_plan(
        write(
            tmp_path / "t.toml",
            """
        [target_groups]
        pair = ["/dev/nvme0n1", "/dev/nvme1n1"]
        [axes]
        target = ["@pair"]
        rw = "randread"
    """,
        )
    )
    assert [(w.name, w.target, w.options) for w in plan.workloads] == [
        ("job", "/dev/nvme0n1", {"rw": "randread"}),
        ("job", "/dev/nvme1n1", {"rw": "randread"}),
    ]


def test_job_file_is_honoured_as_written_and_axes_override_it(tmp_path):
    write(
        tmp_path / "mine.fio",
        """
        [global]
        ioengine=libaio
        direct=1
        iodepth=8
        filename=/dev/nvme0n1
        [randread]
        rw=randread
        bs=4k
        stonewall
        [seqread]
        rw=read
        bs=1m
        stonewall
    """,
    )
    as_written = load_plan(tmp_path / "mine.fio")
    assert as_written.name == "mine"
    assert as_written.workloads == [
        Workload(
            "randread",
            {"ioengine": "libaio", "direct": "1", "iodepth": "8", "rw": "randread", "bs": "4k"},
            "/dev/nvme0n1",
        ),
        Workload(
            "seqread", {"ioengine": "libaio", "direct": "1", "iodepth": "8", "rw": "read", "bs": "1m"}, "/dev/nvme0n1"
        ),
    ]
    swept = load_plan(
        write(
            tmp_path / "sweep.toml",
            """
        job = "mine.fio"
        [axes]
        iodepth = [1, 64]
    """,
        )
    )
    assert [(w.name, w.options["iodepth"], w.options["rw"], w.target) for w in swept.workloads] == [
        ("randread-qd1", "1", "randread", "/dev/nvme0n1"),
        ("randread-qd64", "64", "randread", "/dev/nvme0n1"),
        ("seqread-qd1", "1", "read", "/dev/nvme0n1"),
        ("seqread-qd64", "64", "read", "/dev/nvme0n1"),
    ]


def test_job_file_with_concurrent_jobs_is_refused_with_the_reason(tmp_path):
    write(tmp_path / "both.fio", "[reader]\nrw=read\n[writer]\nrw=write\n")
    with pytest.raises(UserError, match=r"both.fio: \[writer\]: fio runs this job concurrently"):
        load_plan(tmp_path / "both.fio")


def test_phases_are_modelled_with_argv_commands(tmp_path):
    plan = load_plan(
        write(
            tmp_path / "p.toml",
            """
        [axes]
        rw = ["randwrite"]
        [phases]
        discard_before_writes = true
        drop_caches = true
        pre_point = ["sync", ["sh", "-c", "echo 3 > /proc/sys/vm/drop_caches"]]
        post_point = ["nvme smart-log '/dev/nvme0'"]
        [phases.precondition]
        options = { rw = "write", bs = "128k", loops = 2 }
        scope = "before_each_write"
        discard_first = true
    """,
        )
    )
    phases = plan.phases
    assert phases.discard_before_writes and phases.drop_caches
    assert phases.pre_point == (("sync",), ("sh", "-c", "echo 3 > /proc/sys/vm/drop_caches"))
    assert phases.post_point == (("nvme", "smart-log", "/dev/nvme0"),)
    assert phases.precondition.workload.options == {"rw": "write", "bs": "128k", "loops": "2"}
    assert (phases.precondition.scope, phases.precondition.discard_first) == ("before_each_write", True)


def test_without_fio_names_are_checked_against_iolab_s_table_and_types_still_are(tmp_path, monkeypatch):
    """The allowlist does not need fio: a name iolab never classified is refused with or without it."""
    from iolab.fio import catalog as fio_options

    monkeypatch.setattr(fio_options.programs, "find", lambda name: None)
    try:
        with pytest.raises(UserError, match="has not classified fio's option 'not_an_option'"):
            load_plan(write(tmp_path / "p.toml", "[options]\nnot_an_option = 1\n"))
        assert load_plan(write(tmp_path / "r.toml", "[options]\nthinktime = 1\n")).workloads[0].options

        with pytest.raises(UserError, match=r"axes.iodepth\[0\]"):
            load_plan(write(tmp_path / "q.toml", "[axes]\niodepth = [0]\n"))
    finally:
        fio_options.clear_cache()
