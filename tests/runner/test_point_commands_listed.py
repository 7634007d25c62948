"""Every program a measured point can run is one the plan-level refusal (`plan.effects.check_commands`, before
anything runs) listed, so no point needs a refusal of its own: the runner's per-point one could never refuse
and was removed.

A point's options are a plan workload's as they are (plan files, arrays, repeats, steady rounds) or derived by
iolab: a QD search's depths and job counts, a latency curve's rates, the metadata phases. Each derivation is
checked over random bases carrying fio's command and host options and engines iolab cannot vouch for; a plan
file's points are checked through the real run loop on the fake executor."""

from __future__ import annotations

import random

import pytest

from iolab.fio.options import effects, unknown_options_allowed
from iolab.models.plan import Workload
from iolab.plan.adaptive import workload_at_qd
from iolab.plan.effects import plan_commands
from iolab.plan.presets import METADATA_OPERATIONS, PRESETS, latency_curve_workloads, metadata_workload, preset
from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest, build_plan
from iolab.store.db import open_store
from tests.runner.fake_executor import FakeExecutor

# fio's options that run programs or change the host (the option table's COMMAND and HOST rows), and engines.
RISKY = {
    "exec_prerun": ["touch /tmp/x", "sh -c 'echo hi'"],
    "exec_postrun": ["true"],
    "ioengine": ["libaio", "io_uring", "psync", "external:/tmp/engine.so", "myengine"],
    "uid": ["0"],
    "ioscheduler": ["none"],
    "cgroup": ["iolab"],
}
PLAIN = {"rw": ["randread", "write", "randrw"], "bs": ["4k", "128k"], "iodepth": ["1", "32"], "numjobs": ["1", "4"]}


def _base(rng: random.Random) -> Workload:
    pool = {**PLAIN, **{k: v for k, v in RISKY.items() if rng.random() < 0.5}}
    return Workload(name="w", options={name: rng.choice(values) for name, values in pool.items()})


@pytest.mark.parametrize("seed", range(40))
def test_iolab_s_derived_points_run_no_program_their_base_workload_does_not(seed):
    rng = random.Random(seed)
    base = _base(rng)
    with unknown_options_allowed(True):
        listed = effects(base.options).commands
        derived = [workload_at_qd(base, rng.choice([1, 3, 64, 256]), rng.choice([None, 2, 8]))]
        derived += latency_curve_workloads(base, rng.uniform(10, 1e6), [0.1, 0.5, 1.0])
        for workload in derived:
            assert effects(workload.options).commands == listed, workload.options


@pytest.mark.parametrize("operation", [op for op, _ in METADATA_OPERATIONS])
@pytest.mark.parametrize("threads", [1, 64])
def test_the_metadata_phases_run_no_program(operation, threads):
    assert effects(metadata_workload(operation, threads, 1000, 10.0).options).commands == []


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_presets_run_no_program(name):
    plan = preset(name)
    assert plan_commands(plan) == []
    assert not (plan.phases.pre_point or plan.phases.post_point or plan.phases.metrics)


def test_a_plan_file_s_points_run_only_the_programs_the_plan_listed(tmp_path):
    target = tmp_path / "data.img"
    target.write_bytes(b"\0" * (4 << 20))
    plan = tmp_path / "plan.toml"
    plan.write_text(
        'name = "cmds"\n[options]\nruntime = "1s"\nrw = "randread"\nexec_prerun = "true"\n'
        '[axes]\nexec_postrun = ["true", "echo done"]\n'
    )
    request = RunRequest(plan=str(plan), targets=[str(target)], telemetry_interval=None, allow_commands=True)
    listed = {line.split(": ", 1)[1] for line in plan_commands(build_plan(request))}
    executor = FakeExecutor()
    assert execute(request, open_store(), SilentProgress(), executor=executor).status == "complete"
    assert len(executor.ran) == 2
    for point in executor.ran:
        commands = effects(point.options).commands
        assert commands and set(commands) <= listed
