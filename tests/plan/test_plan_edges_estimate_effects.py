"""What a plan promises before it runs, for the parts chosen while running (issue 41: `bench/mutation.py
--whole` found these held by no fast test): the time estimate of a latency curve, steady-state rounds after a
precondition, and a metadata scaling; what a job file or plan says it writes and runs; steady state's verdict
on rounds of zero and its reason line. The figures are the presets' own: a point is its ramp plus runtime plus
fio's 0.35 s of start-up."""

from __future__ import annotations

import pytest

from iolab.fio.jobfile import parse_jobfile
from iolab.plan.effects import job_effects, plan_workloads, plan_writes
from iolab.plan.estimate import chosen_while_running, estimate_seconds
from iolab.plan.presets import preset
from iolab.plan.steady import steady_state


def test_a_latency_curve_counts_its_probe_and_each_fraction_per_repeat_and_target():
    plan = preset("latency-curve")  # the probe (10 s + 2 s ramp) and 10 fractions of its rate
    assert chosen_while_running(plan) == {"latency curve": 11}
    assert estimate_seconds(plan) == pytest.approx(11 * 12.35)
    plan.repeat, plan.targets = 2, ["/dev/a", "/dev/b"]
    assert estimate_seconds(plan) == pytest.approx(2 * 2 * 11 * 12.35)


def test_steady_rounds_count_at_their_cap_once_and_the_precondition_at_fios_start_up():
    plan = preset("ssd-steady")  # 25 rounds of 60 s, after a precondition whose length the device decides
    assert chosen_while_running(plan) == {"steady-state rounds": 25}
    assert estimate_seconds(plan) == pytest.approx(25 * 60.35 + 0.35)
    plan.targets = ["/dev/a", "/dev/b"]
    assert estimate_seconds(plan) == pytest.approx(2 * (25 * 60.35 + 0.35))
    assert [w.name for w in plan_workloads(plan)] == ["round-randwrite-4k-qd32-j4", "precondition-seqwrite-128k-2x"]


def test_a_metadata_scaling_counts_a_calibration_unless_its_file_count_is_fixed_and_three_phases_a_count():
    calibrated = preset("metadata")  # 7 thread counts, phases of 10 s, a calibration of 0.5 s
    assert chosen_while_running(calibrated) == {
        "file create, stat and remove, file counts sized from a calibration": 21
    }
    assert estimate_seconds(calibrated) == pytest.approx(0.85 + 21 * 10.35)
    fixed = preset("metadata", files_per_thread=1000)
    fixed.repeat = 2
    assert estimate_seconds(fixed) == pytest.approx(2 * 21 * 10.35)


def test_a_job_file_says_what_each_job_writes_and_runs():
    sections = parse_jobfile(
        "[w]\nrw=write\nfilename=/dev/sdb:/dev/sdc\nwrite_bw_log=/tmp/bw\nexec_prerun=echo hi\n"
        "[own]\nrw=randwrite\n[r]\nrw=read\nfilename=/dev/sdb\n"
    )
    writes, commands = job_effects(sections)
    assert writes[0] == "[w] writes /dev/sdb, /dev/sdc (rw=write)"
    assert writes[1].startswith("[w] write_bw_log=/tmp/bw: writes a log file of its own")
    assert writes[2:] == ["[own] writes its own files in the current directory (rw=randwrite)"]
    assert commands == ["[w] exec_prerun=echo hi"]


def test_a_plans_writes_name_its_targets_or_say_they_come_from_the_command_line():
    plan = preset("ssd-steady")
    assert [line.split(" (")[0] for line in plan_writes(plan)] == [
        "round-randwrite-4k-qd32-j4 writes the targets given on the command line",
        "precondition-seqwrite-128k-2x writes the targets given on the command line",
    ]
    plan.targets = ["/dev/a", "/dev/b"]
    assert plan_writes(plan)[0].startswith("round-randwrite-4k-qd32-j4 writes /dev/a, /dev/b (rw=randwrite)")
    assert plan_writes(preset("array-read")) == []


def test_rounds_of_zero_are_steady_and_the_reason_names_the_rounds_from_one():
    zero = steady_state([0.0] * 5)
    assert (zero.status, zero.range_frac, zero.excursion_frac) == ("steady", 0.0, 0.0)
    moving = steady_state([50.0, 100.0, 103.5, 107.0, 110.5, 114.0])
    assert moving.status == "continue" and moving.reason.startswith("not steady yet in rounds 2-6 (range 13.")
