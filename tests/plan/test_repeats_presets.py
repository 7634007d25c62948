"""Repeat ordering; presets and their duration estimates."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.plan.estimate import FIO_STARTUP_SECONDS, estimate_seconds
from iolab.plan.presets import PRESETS, latency_curve_workloads, preset
from iolab.plan.repeats import run_order


def test_interleaved_order_runs_each_pass_over_all_points():
    assert run_order(["a", "b", "c"], 2, interleave=True) == [
        ("a", 0),
        ("b", 0),
        ("c", 0),
        ("a", 1),
        ("b", 1),
        ("c", 1),
    ]
    assert run_order(["a", "b"], 2, interleave=False) == [("a", 0), ("a", 1), ("b", 0), ("b", 1)]


def test_quick_preset_takes_about_a_minute():
    plan = preset("quick")
    assert [w.name for w in plan.workloads] == [
        "seqread-1m-qd32",
        "seqwrite-1m-qd32",
        "randread-4k-qd32-j4",
        "randwrite-4k-qd32-j4",
        "randread-4k-qd1",
    ]
    assert all(
        w.target is None and "direct" not in w.options and w.options["ramp_time"] == "2s" for w in plan.workloads
    )
    assert estimate_seconds(plan) == pytest.approx(5 * (10 + FIO_STARTUP_SECONDS))
    assert estimate_seconds(preset("quick", runtime=28)) == pytest.approx(5 * (30 + FIO_STARTUP_SECONDS))


def test_qd_sweep_fixed_and_adaptive():
    fixed = preset("qd-sweep")
    assert [w.options["iodepth"] for w in fixed.workloads[:9]] == [str(2**i) for i in range(9)]
    adaptive = preset("qd-sweep", adaptive=True)
    assert adaptive.workloads == [] and [s.base.name for s in adaptive.qd_searches] == ["randread-4k", "seqread-128k"]
    assert "iodepth" not in adaptive.qd_searches[0].base.options
    assert {s.max_jobs for s in adaptive.qd_searches} == {16}
    # At its cap (five climb steps, two bisections, four job doublings and the deeper step: 12 points a
    # workload) the search costs 12/45 of the depth x jobs grid it stands for, 4/3 of the depth-only sweep.
    assert estimate_seconds(adaptive) == pytest.approx(estimate_seconds(fixed) * 12 / 9)


def test_estimate_counts_repeats_and_targets():
    plan = preset("quick")
    plan.repeat = 3
    plan.targets = ["/dev/a", "/dev/b"]
    assert estimate_seconds(plan) == pytest.approx(2 * 3 * 5 * (10 + FIO_STARTUP_SECONDS))


def test_latency_curve_divides_the_rate_between_jobs():
    probe = preset("latency-curve").latency_curve.probe
    points = latency_curve_workloads(probe, max_iops=400_000, fractions=[0.1, 0.5, 1.0])
    assert [(w.name, w.options["rate_iops"]) for w in points] == [
        ("randread-4k-qd32-j4-load10pct", "10000"),
        ("randread-4k-qd32-j4-load50pct", "50000"),
        ("randread-4k-qd32-j4-load100pct", "100000"),
    ]
    with pytest.raises(UserError):
        latency_curve_workloads(probe, max_iops=0, fractions=[0.5])


def test_ssd_steady_purges_preconditions_twice_the_capacity_then_rounds():
    plan = preset("ssd-steady")
    pre = plan.phases.precondition
    assert pre.discard_first and pre.scope == "once"
    assert pre.workload.options["rw"] == "write" and pre.workload.options["loops"] == "2"
    assert (plan.steady_rounds.window, plan.steady_rounds.max_rounds) == (5, 25)


def test_every_preset_is_targetless_and_unknown_names_are_user_errors():
    for entry in PRESETS.values():
        plan = entry.build()
        assert plan.targets == [] and all(w.target is None for w in plan.workloads)
    with pytest.raises(UserError, match="choose one of: quick"):
        preset("fast")


def test_metadata_threads_double_with_three_phases_each():
    from iolab.plan.presets import metadata_workload

    plan = preset("metadata")
    assert plan.workloads == [] and plan.metadata is not None and plan.open_ended
    assert plan.metadata.threads == (1, 2, 4, 8, 16, 32, 64)
    names = [metadata_workload(op, 4, 100, 2).name for op in ("create", "stat", "remove")]
    assert names == ["create-j4", "stat-j4", "remove-j4"]


def test_long_and_fractional_times_are_written_as_fio_reads_them():
    """`1.2096e+06s` (Python's %g) is read by fio as 1 s: every duration goes out as whole seconds or ms."""
    from iolab.fio.options import seconds_value

    assert [seconds_value(s) for s in (1209600, 0, 2, 0.5, 86400 * 30)] == ["1209600s", "0s", "2s", "500ms", "2592000s"]
    for name in ("quick", "qd-sweep"):
        runtimes = {w.options["runtime"] for w in preset(name, runtime=1209600).workloads}
        assert runtimes == {"1209600s"}, (name, runtimes)
    from iolab.plan.presets import metadata_workload

    assert metadata_workload("create", 1, 10, 1209600).options["runtime"] == "1209600s"


def test_runtime_override_of_a_plan_file_is_an_integer(tmp_path):
    from iolab.runner.request import RunRequest, build_plan

    plan = tmp_path / "p.toml"
    plan.write_text('[options]\nrw = "randread"\nruntime = "5s"\n')
    built = build_plan(RunRequest(plan=str(plan), targets=[], settings={"runtime": 1209600, "ramp": 0}))
    assert built.workloads[0].options["runtime"] == "1209600s" and built.workloads[0].options["ramp_time"] == "0s"
