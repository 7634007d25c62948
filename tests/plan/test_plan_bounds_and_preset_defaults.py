"""What a plan may ask for and what a preset runs when nothing is said (issue 41: `bench/mutation.py --whole`
left these held by no fast test): repeats up to 1,000 and not 1,001; a wrongly typed value of over 40
characters shown cut; each preset's points named for the options they run, and run for the time
docs/plans.md gives (8 s after a 2 s ramp for quick, 10 s for the others)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.plan.planfile import parse_plan
from iolab.plan.presets import PRESETS, preset


def _plan(tmp_path: Path, repeat: str) -> str:
    text = f'name = "p"\n[repeat]\n{repeat}\n[[workloads]]\nname = "w"\noptions = {{ rw = "read", bs = "4k" }}\n'
    try:
        return f"repeat {parse_plan(text, 'p.toml', tmp_path).repeat}"
    except UserError as error:
        return str(error)


def test_a_plan_may_repeat_a_point_1000_times_and_not_1001(tmp_path):
    assert _plan(tmp_path, "count = 1000") == "repeat 1000"
    assert "repeat.count" in _plan(tmp_path, "count = 1001")
    assert "repeat.max" in _plan(tmp_path, "adaptive = true\nmax = 1001")


def test_a_wrongly_typed_value_is_shown_cut_at_40_characters(tmp_path):
    long = "x" * 60
    said = _plan(tmp_path, f'count = "{long}"')
    assert said.endswith(f"got '{'x' * 39}...")
    # quoted, 39 characters show whole in 41 (cut to 40 and "..."), 38 in 40 whole
    assert _plan(tmp_path, f'count = "{"x" * 39}"').endswith(f"got '{'x' * 39}...")
    assert _plan(tmp_path, f'count = "{"x" * 38}"').endswith(f"got '{'x' * 38}'")


FIXED = [name for name in PRESETS if name not in ("latency-curve", "metadata", "ssd-steady")]


@pytest.mark.parametrize("name", FIXED)
def test_a_presets_point_names_say_the_depth_block_size_and_jobs_it_runs(name):
    for workload in preset(name).workloads:
        options = workload.options
        for token in workload.name.split("-"):
            if re.fullmatch(r"qd\d+", token):
                assert options["iodepth"] == token[2:], workload.name
            elif re.fullmatch(r"j\d+", token):
                assert options["numjobs"] == token[1:], workload.name
            elif re.fullmatch(r"\d+[km]", token):
                assert options["bs"] == token, workload.name


@pytest.mark.parametrize("name", FIXED)
def test_a_presets_points_run_the_documented_time_after_a_2_s_ramp(name):
    runtime = "8s" if name == "quick" else "10s"
    assert {(w.options["runtime"], w.options["ramp_time"]) for w in preset(name).workloads} == {(runtime, "2s")}


def test_a_plan_may_run_10000_points_and_not_10001(tmp_path):
    def plan(depths: int, repeats: int) -> str:
        text = (
            f'name = "p"\n[repeat]\ncount = {repeats}\n[[workloads]]\nname = "w"\n'
            f"axes = {{ iodepth = {list(range(1, depths + 1))} }}\noptions = {{ rw = 'read', bs = '4k' }}\n"
        )
        try:
            return f"{len(parse_plan(text, 'p.toml', tmp_path).workloads)} workloads"
        except UserError as error:
            return str(error)

    assert plan(80, 125) == "80 workloads"
    assert plan(73, 137) == "p.toml: 73 workloads x 137 repeats; a plan may have at most 10000 points: split it"
