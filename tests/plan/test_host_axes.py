"""A plan's [host] table: settings as sweep axes, checked as they are read, carried by workloads and points."""

from __future__ import annotations

import textwrap

import pytest

from iolab.errors import UserError
from iolab.fio.catalog import job_option_names
from iolab.models import Point, Target
from iolab.models.host_settings import describe, setting_value
from iolab.models.workload import workload_identity
from iolab.plan.effects import check_settings, plan_settings
from iolab.plan.planfile import load_plan
from iolab.runner.request import RunRequest, build_plan

LOOP = Target(path="/dev/loop7", kind="block", filename="/dev/loop7", size_bytes=64 << 20)


def write(path, text):
    path.write_text(textwrap.dedent(text))
    return path


def test_host_axes_cross_after_the_fio_axes_so_an_ab_alternates(tmp_path):
    plan = load_plan(
        write(
            tmp_path / "p.toml",
            """
            [options]
            rw = "randread"
            [axes]
            iodepth = [1, 32]
            [host]
            scheduler = ["none", "mq-deadline"]
            nr_requests = 64
            """,
        )
    )
    assert [(w.name, w.options["iodepth"], w.host_settings) for w in plan.workloads] == [
        ("qd1-sched_none", "1", {"scheduler": "none", "nr_requests": "64"}),
        ("qd1-sched_mq_deadline", "1", {"scheduler": "mq-deadline", "nr_requests": "64"}),
        ("qd32-sched_none", "32", {"scheduler": "none", "nr_requests": "64"}),
        ("qd32-sched_mq_deadline", "32", {"scheduler": "mq-deadline", "nr_requests": "64"}),
    ]
    assert all("scheduler" not in w.options and "nr_requests" not in w.options for w in plan.workloads)
    assert plan_settings(plan) == [
        "scheduler = none, mq-deadline (the block device under each target)",
        "nr_requests = 64 (the block device under each target)",
    ]


def test_workloads_inherit_and_override_host_settings_and_exclude_and_zip_see_them(tmp_path):
    plan = load_plan(
        write(
            tmp_path / "p.toml",
            """
            exclude = ["scheduler == 'none' and read_ahead_kb > 128"]
            [host]
            scheduler = ["none", "mq-deadline"]
            read_ahead_kb = [128, 4096]
            [[workloads]]
            name = "seq"
            options = { rw = "read" }
            [[workloads]]
            name = "rand"
            options = { rw = "randread" }
            host = { scheduler = "kyber", read_ahead_kb = [0, 16], governor = "performance" }
            zip = [["read_ahead_kb", "iodepth"]]
            axes = { iodepth = [1, 8] }
            """,
        )
    )
    assert [(w.name, w.host_settings) for w in plan.workloads] == [
        ("seq-sched_none-ra128", {"scheduler": "none", "read_ahead_kb": "128"}),
        ("seq-sched_mq_deadline-ra128", {"scheduler": "mq-deadline", "read_ahead_kb": "128"}),
        ("seq-sched_mq_deadline-ra4096", {"scheduler": "mq-deadline", "read_ahead_kb": "4096"}),
        ("rand-qd1-ra0", {"scheduler": "kyber", "read_ahead_kb": "0", "governor": "performance"}),
        ("rand-qd8-ra16", {"scheduler": "kyber", "read_ahead_kb": "16", "governor": "performance"}),
    ]


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('schedular = "none"', "host.schedular: unknown host setting; iolab sets scheduler, nr_requests"),
        ("scheduler = 1", "host.scheduler: expected a scheduler name"),
        ('scheduler = "mq deadline"', "host.scheduler: expected a scheduler name"),
        ("nr_requests = 0", "host.nr_requests: expected a whole number from 1"),
        ("rq_affinity = 3", "host.rq_affinity: expected a whole number from 0 to 2"),
        ("nomerges = true", "host.nomerges: expected a whole number from 0 to 2, got True"),
        ("wbt_lat_usec = -1", "host.wbt_lat_usec: expected a whole number from 0"),
        ("read_ahead_kb = []", "host.read_ahead_kb: empty list"),
        ('scheduler = ["none", "none"]', "host.scheduler repeats a value"),
    ],
)
def test_a_bad_host_setting_names_the_field_and_what_it_takes(tmp_path, table, problem):
    path = write(tmp_path / "p.toml", f'[options]\nrw = "read"\n[host]\n{table}\n')
    with pytest.raises(UserError) as caught:
        load_plan(path)
    assert problem in str(caught.value) and str(caught.value).startswith(str(path))


def test_a_host_setting_under_axes_is_pointed_to_the_host_table(tmp_path):
    if job_option_names() is None:
        pytest.skip("fio's option list is not available here")
    path = write(tmp_path / "p.toml", '[options]\nrw = "read"\n[axes]\nscheduler = ["none", "bfq"]\n')
    with pytest.raises(UserError, match="'scheduler' is a host setting, not a fio option: give it in \\[host\\]"):
        load_plan(path)


def test_values_are_normalised_and_described_in_writing_order():
    assert setting_value("read_ahead_kb", "0128") == "128"
    assert setting_value("governor", "performance") == "performance"
    assert describe({"governor": "performance", "nr_requests": "64", "scheduler": "none"}) == (
        "scheduler=none nr_requests=64 governor=performance"
    )


def test_changing_host_settings_needs_the_opt_in_and_says_so(tmp_path):
    plan = load_plan(write(tmp_path / "p.toml", '[options]\nrw = "read"\n[host]\nscheduler = ["none", "bfq"]\n'))
    with pytest.raises(UserError, match="changes host settings: scheduler = none, bfq .*--allow-host-changes"):
        check_settings(plan, allowed=False)
    check_settings(plan, allowed=True)


def test_runtime_override_keeps_the_host_settings(tmp_path):
    path = write(tmp_path / "p.toml", '[options]\nrw = "read"\n[host]\nscheduler = ["none", "bfq"]\n')
    plan = build_plan(RunRequest(plan=str(path), settings={"runtime": 1}))
    assert [w.host_settings for w in plan.workloads] == [{"scheduler": "none"}, {"scheduler": "bfq"}]
    assert all(w.options["runtime"] == "1s" for w in plan.workloads)


def test_a_point_without_settings_keeps_its_key_and_identity_and_two_schedulers_are_two_measurements():
    point = Point("randread", LOOP, {"rw": "randread", "bs": "4k", "iodepth": "4"}, repeat=2)
    # computed by the code before host settings existed: stored runs resume, series continue
    assert (point.key, workload_identity(point)) == ("2293aedbb3223153", "1ddfa9cd9fdd0ad4")
    none = Point("randread", LOOP, dict(point.options), repeat=2, host_settings={"scheduler": "none"})
    deadline = Point("randread", LOOP, dict(point.options), repeat=2, host_settings={"scheduler": "mq-deadline"})
    assert len({point.key, none.key, deadline.key}) == 3
    assert len({workload_identity(p) for p in (point, none, deadline)}) == 3
    assert Point.from_dict(deadline.to_dict()) == deadline
    old = point.to_dict()
    del old["host_settings"]  # a point stored before host settings existed
    assert Point.from_dict(old) == point
