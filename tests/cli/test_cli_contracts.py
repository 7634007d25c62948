"""What the command line tells its user, in process (`tests.in_process`, no fio): the pages `ls --before`
takes, what tagging one run says, who may drive a served socket, the OS's reason when --png cannot be made,
and every bounded option's limits (issue 41's mutation survivors in cli/)."""

from __future__ import annotations

import json

import pytest

from iolab.cli import agent
from iolab.cli.report import write_pngs
from iolab.errors import UserError
from iolab.store.db import open_store
from tests.in_process import assert_clean_error, iolab


def test_options_for_tests_and_packagers_are_not_offered_in_help():
    shown = iolab("schedule", "install", "--help")
    assert shown.returncode == 0 and "--runtime" in shown.stdout
    assert "--unit-dir" not in shown.stdout and "--cron-file" not in shown.stdout


def test_an_import_progress_line_is_ended_once():
    import io

    from iolab.cli.import_progress import ImportProgress

    stream = io.StringIO()
    progress = ImportProgress(stream)
    progress.tty, progress.started = True, progress.started - 5.0
    progress(1, 2)
    progress.close()
    progress.close()
    assert stream.getvalue().count("\n") == 1 and stream.getvalue().endswith("\n")


def test_plan_check_lists_an_option_without_a_value_by_its_name():
    from iolab.cli.plans import _workload_line
    from iolab.models.plan import Workload

    line = _workload_line(Workload("w", {"rw": "randread", "norandommap": ""}, "/mnt/x"))
    assert line == "  w @ /mnt/x: rw=randread norandommap"


def _runs(home, count: int) -> list[int]:
    store = open_store(home)
    ids = [store.create_run(f"r{i}", "iolab run plan.toml", ["/mnt/x"], "fio-3.33") for i in range(count)]
    store.close()
    return ids


def test_ls_before_pages_back_down_to_the_first_run_and_refuses_zero(iolab_home):
    ids = _runs(iolab_home, 3)
    for before in (1, 2, 3, 4):
        listed = iolab("ls", "--before", str(before), "--json")
        assert listed.returncode == 0, listed.stderr
        assert [r["id"] for r in json.loads(listed.stdout)] == [i for i in reversed(ids) if i < before]
    assert "--before" in assert_clean_error(iolab("ls", "--before", "0"))


def test_tagging_one_run_prints_that_runs_tags(iolab_home):
    (first, _) = _runs(iolab_home, 2)
    assert iolab("tag", str(first), "baseline").stdout.strip() == f"run {first}: baseline"
    assert iolab("tag", str(first), "before").stdout.strip() == f"run {first}: baseline, before"
    assert iolab("tag", str(first), "before", "baseline", "--remove").stdout.strip() == f"run {first}: no tags"


@pytest.mark.parametrize("euid", [0, 1000])
def test_a_served_socket_names_who_can_drive_it(monkeypatch, euid):
    monkeypatch.setattr(agent.os, "geteuid", lambda: euid)
    monkeypatch.setattr(agent, "_user", lambda: "alice")
    assert agent._who() == ("root" if euid == 0 else "alice and root")


def test_a_png_directory_that_cannot_be_made_names_the_os_reason_and_the_fix(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(UserError) as refused:
        write_pngs([], blocker / "charts", [])
    assert (
        str(refused.value)
        == f"cannot create {blocker / 'charts'} for the PNG charts: Not a directory; choose another --png"
    )


DAYS_30 = 30 * 86_400  # the longest a run's times may be: a month (a longer one is a typo of units)
# Every bounded number on the command line, with why its range is what it is: (low, high), None for no bound.
LIMITS: dict[tuple[str, str], tuple[float, float | None]] = {
    ("agent", "--port"): (1, 65535),  # a TCP port
    ("history", "--min-runs"): (2, None),  # a COV needs two runs
    ("export", "--min-runs"): (2, None),
    ("history", "--last"): (1, None),  # counts and run ids start at 1
    ("ls", "--limit"): (1, None),
    ("ls", "--before"): (1, None),
    ("run", "--runtime"): (1, DAYS_30),
    ("run", "--ramp"): (0, DAYS_30),  # no ramp is a choice
    ("run", "--min-seconds"): (1, DAYS_30),
    ("run", "--max-seconds"): (1, DAYS_30),
    ("run", "--repeat"): (1, 1000),
    ("run", "--interval"): (0.1, None),  # telemetry no faster than 10 samples a second
}


def _bounded_options():  # type: ignore[no-untyped-def]
    from iolab.cli import click_command
    from iolab.cli.numeric import BoundedFloat, BoundedInt

    def walk(command, path):  # type: ignore[no-untyped-def]
        for param in command.params:
            if isinstance(param.type, BoundedFloat | BoundedInt):
                yield path, param
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, f"{path} {name}".strip())

    yield from walk(click_command(), "")


def test_every_bounded_option_takes_its_limits_and_refuses_just_past_them():
    from typer._click.exceptions import BadParameter

    seen = set()
    for path, param in _bounded_options():
        command = "run" if path == "schedule install" else path  # it takes `run`'s options
        low, high = LIMITS[command, param.opts[0]]
        seen.add((command, param.opts[0]))
        step = 0.01 if isinstance(low, float) or param.type.name == "float" else 1
        for value in (low, high):
            if value is not None:
                assert param.type.convert(str(value), param, None) == value
        for value in (low - step, None if high is None else high + step):
            if value is not None:
                with pytest.raises(BadParameter):
                    param.type.convert(str(value), param, None)
    assert seen == set(LIMITS)
