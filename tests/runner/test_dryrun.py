"""`--dry-run` planned in-process on a temporary directory or file: its points, time estimate and writes.

No program may run: fio's option catalog is made to look absent (as on a host without fio) and starting
any process fails the test, so these stay unit tests and prove that a dry run measures nothing.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.fio import catalog
from iolab.plan.estimate import FIO_STARTUP_SECONDS
from iolab.runner.dryrun import ASSUMED_FILL_BPS, RUN_OVERHEAD_S, dry_run
from iolab.runner.request import RunRequest

QUICK = ["seqread-1m-qd32", "seqwrite-1m-qd32", "randread-4k-qd32-j4", "randwrite-4k-qd32-j4", "randread-4k-qd1"]
SIZE = 64 << 20


@pytest.fixture(autouse=True)
def no_programs(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No fio, no process at all; the catalog's caches are emptied on both sides so no other test sees ours."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a dry run started a program: {args[1] if len(args) > 1 else kwargs.get('args')}")

    catalog.clear_cache()
    monkeypatch.setattr(catalog, "_fio_output", lambda *args: None)
    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    yield
    catalog.clear_cache()


@pytest.fixture
def directory(tmp_path: Path) -> Path:
    path = tmp_path.resolve() / "data"
    path.mkdir()
    return path


def _scratch_write(directory: Path, size: str) -> re.Pattern[str]:
    return re.compile(
        rf"scratch file {re.escape(str(directory))}/iolab-scratch-[0-9a-f]{{12}}\.dat \({size}, removed afterwards\)"
    )


def test_the_quick_preset_on_a_directory_plans_its_five_points_on_one_scratch_file(directory):
    planned = dry_run(RunRequest(plan="quick", targets=[str(directory)], size=SIZE))
    assert [p.name for p in planned.points] == QUICK
    (target,) = {p.target for p in planned.points}
    assert target.kind == "directory" and target.scratch and target.size_bytes == SIZE
    assert Path(target.filename).parent == directory
    (write,) = planned.writes
    assert _scratch_write(directory, "64.0 MiB").fullmatch(write)
    assert target.filename in write
    assert planned.commands == [] and planned.open_ended == []


def test_a_dry_run_leaves_the_directory_as_it_found_it(directory):
    dry_run(RunRequest(plan="quick", targets=[str(directory)], size=SIZE))
    assert list(directory.iterdir()) == []


def test_the_estimate_is_overhead_plus_each_point_s_ramp_runtime_and_start_up_plus_filling_the_scratch_file(directory):
    planned = dry_run(RunRequest(plan="quick", targets=[str(directory)], size=SIZE))
    per_point = 2 + 8 + FIO_STARTUP_SECONDS  # the preset's default ramp and runtime
    fill = SIZE / ASSUMED_FILL_BPS + FIO_STARTUP_SECONDS
    assert planned.seconds == pytest.approx(RUN_OVERHEAD_S + 5 * per_point + fill)


def test_runtime_ramp_and_repeat_settings_change_the_points_and_the_estimate(directory):
    request = RunRequest(
        plan="quick", targets=[str(directory)], size=SIZE, settings={"runtime": 1, "ramp": 0}, repeat=2
    )
    planned = dry_run(request)
    assert len(planned.points) == 10
    assert sorted(p.repeat for p in planned.points) == [0] * 5 + [1] * 5
    assert {p.options["runtime"] for p in planned.points} == {"1s"}
    fill = SIZE / ASSUMED_FILL_BPS + FIO_STARTUP_SECONDS
    assert planned.seconds == pytest.approx(RUN_OVERHEAD_S + 10 * (1 + FIO_STARTUP_SECONDS) + fill)


def test_an_existing_file_is_only_read_its_writing_workloads_skipped_with_a_note(tmp_path):
    data = tmp_path.resolve() / "data.bin"
    data.write_bytes(b"x" * (1 << 20))
    planned = dry_run(RunRequest(plan="quick", targets=[str(data)], settings={"runtime": 1, "ramp": 0}))
    assert [p.name for p in planned.points] == ["seqread-1m-qd32", "randread-4k-qd32-j4", "randread-4k-qd1"]
    assert f"{data}: skipped seqwrite-1m-qd32, randwrite-4k-qd32-j4 (writes need --allow-write)" in planned.notes
    assert planned.writes == []  # no scratch file, and nothing of the file's is written
    assert planned.seconds == pytest.approx(RUN_OVERHEAD_S + 3 * (1 + FIO_STARTUP_SECONDS))


def _plan_running_a_program(tmp_path: Path, marker: Path) -> Path:
    plan = tmp_path / "runs-a-program.toml"
    plan.write_text(
        f'name = "p"\n[options]\nioengine = "libaio"\nexec_prerun = "touch {marker}"\n'
        '[[workloads]]\nname = "w"\noptions = { rw = "randread", iodepth = 4 }\n'
    )
    return plan


def test_a_plan_that_runs_a_program_is_refused_naming_it_unless_commands_are_allowed(tmp_path, directory):
    marker = tmp_path / "MARKER"
    plan = _plan_running_a_program(tmp_path, marker)
    with pytest.raises(UserError) as refused:
        dry_run(RunRequest(plan=str(plan), targets=[str(directory)], size=SIZE))
    assert f"plan p runs programs or changes the system: w: exec_prerun=touch {marker}." in str(refused.value)
    assert "--allow-commands" in str(refused.value)
    assert not marker.exists()


def test_with_commands_allowed_the_dry_run_lists_the_program_and_still_runs_nothing(tmp_path, directory):
    marker = tmp_path / "MARKER"
    plan = _plan_running_a_program(tmp_path, marker)
    planned = dry_run(RunRequest(plan=str(plan), targets=[str(directory)], size=SIZE, allow_commands=True))
    assert planned.commands == [f"w: exec_prerun=touch {marker}"]
    assert [p.name for p in planned.points] == ["w"]
    # no runtime: the job is bounded by size, so only fio's start-up and the scratch file count
    fill = SIZE / ASSUMED_FILL_BPS + FIO_STARTUP_SECONDS
    assert planned.seconds == pytest.approx(RUN_OVERHEAD_S + FIO_STARTUP_SECONDS + fill)
    assert not marker.exists()


def test_an_adaptive_search_is_flagged_as_open_ended(directory):
    request = RunRequest(plan="qd-sweep", targets=[str(directory)], size=SIZE, settings={"adaptive": True})
    planned = dry_run(request)
    assert planned.points == []  # every point is chosen while running
    # per search (4k random, 128k sequential): QD 1, 4, 16, 64, 256, two bisections, then 1..16 jobs doubling
    assert planned.chosen_max == 2 * (5 + 2 + 5)
    assert planned.open_ended == [
        "points chosen while running on each target (adaptive queue-depth search: up to 24): "
        "the estimate counts them at their cap"
    ]
    assert planned.seconds > RUN_OVERHEAD_S
    assert planned.summary.startswith("0 fixed points and up to 24 chosen while running, estimated ")


def test_adaptive_repeats_preview_their_cap_beside_the_fixed_points(directory):
    plan = directory.parent / "adaptive.toml"
    plan.write_text(
        '[options]\nrw = "randread"\nbs = "4k"\nruntime = 1\ntime_based = true\n'
        "[repeat]\ncount = 3\nadaptive = true\nmax = 8\ncov_target = 0.02\n"
    )
    planned = dry_run(RunRequest(plan=str(plan), targets=[str(directory)], size=SIZE))
    assert len(planned.points) == 3 and planned.chosen_max == 8 - 3
    assert planned.open_ended == [
        "adaptive repeats: each point runs 3 to 8 times, until the COV of its runs is under 2%; the estimate counts 3"
    ]
    assert planned.summary.startswith("3 fixed points and up to 5 chosen while running, estimated ")


def test_one_point_is_one_point():
    from iolab.runner.dryrun import DryRun

    assert DryRun(points=[], seconds=64).summary == "0 points, estimated 64 s"


def test_an_adaptive_search_on_a_directory_still_says_it_writes_a_scratch_file(directory):
    request = RunRequest(plan="qd-sweep", targets=[str(directory)], size=SIZE, settings={"adaptive": True})
    (write,) = dry_run(request).writes
    assert _scratch_write(directory, "64.0 MiB").fullmatch(write)


def test_a_missing_target_is_refused_before_anything_is_planned(tmp_path):
    with pytest.raises(UserError, match="no such file, directory or device"):
        dry_run(RunRequest(plan="quick", targets=[str(tmp_path / "absent")]))


def test_a_plan_that_names_its_size_gets_a_scratch_file_of_that_size_without_size_given(tmp_path, directory):
    plan = tmp_path / "sized.toml"
    plan.write_text(
        'name = "sized"\n[options]\nsize = "128M"\nruntime = 1\ntime_based = true\n'
        '[[workloads]]\nname = "r"\noptions = { rw = "randread" }\n'
        '[[workloads]]\nname = "w"\noptions = { rw = "randwrite", size = "96M", offset = "32M" }\n'
    )
    planned = dry_run(RunRequest(plan=str(plan), targets=[str(directory)]))
    (target,) = {p.target for p in planned.points}
    assert target.scratch and target.size_bytes == 128 << 20
    (write,) = planned.writes
    assert _scratch_write(directory, "128.0 MiB").fullmatch(write)
    # --size still sizes it, never below what a workload reaches
    assert dry_run(RunRequest(plan=str(plan), targets=[str(directory)], size=SIZE)).points[0].target.size_bytes == (
        128 << 20
    )
