"""`run` and `schedule install` share their run flags (`cli.request_flags`), and mean the same by them.

Generated from the command tree, not a list of today's flags: every option `run` has is either one a
schedule takes too, with the same names, type and default, or named below as `run`'s own with the reason;
and for every flag a schedule takes, the request `iolab run PLAN TARGET FLAG` builds equals the request of
the command line `iolab schedule install PLAN TARGET FLAG` leaves for its timer, parsed back by `run` in
the timer's environment.
"""

from __future__ import annotations

import shlex
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from iolab.cli import app, click_command
from iolab.cli.request_flags import FLAGS, SCHEDULED, RunFlags, build_request, split_args

# `run`'s own options, and why a schedule has no use for them (the timer passes --quiet --fresh itself).
RUN_ONLY = {
    "args": "a schedule takes PLAN and TARGET... as its own arguments",
    "resume": "a scheduled run is never a resumed one (--fresh)",
    "fresh": "always given by the timer",
    "dry": "`schedule install --dry-run` shows the schedule instead",
    "quiet": "always given by the timer",
    "fmt": "the timer's output goes to the journal or cron's mail; results are in the store",
    "output": "as --format",
    "as_json": "as --format",
    "verbose": "as --format",
    "preset_name": "a schedule runs its PLAN file",
    "adaptive": "applies to --preset qd-sweep only",
}

DEVICES = ["--devices", "/dev/loop7,/dev/loop8"]
# One use of each flag a schedule takes (with the flags it needs); a flag added without a sample fails below.
SAMPLES: dict[str, list[str]] = {
    "allow_write": ["--allow-write"],
    "verify_blank": ["--verify-blank", "sample"],
    "allow_commands": ["--allow-commands"],
    "allow_unknown_options": ["--allow-unknown-options"],
    "allow_host_changes": ["--allow-host-changes"],
    "runtime": ["--runtime", "7"],
    "ramp": ["--ramp", "3"],
    "size": ["--size", "64M"],
    "stop_when_known": ["--stop-when-known"],
    "target_ci": ["--stop-when-known", "--target-ci", "5%"],
    "min_seconds": ["--stop-when-known", "--min-seconds", "2.5"],
    "max_seconds": ["--stop-when-known", "--max-seconds", "90"],
    "repeat": ["--repeat", "3"],
    "devices": DEVICES,
    "array_modes": [*DEVICES, "--array-modes", "together,alone"],
    "subsets": [*DEVICES, "--subsets", "1,2"],
    "telemetry": ["--no-telemetry"],
    "interval": ["--interval", "0.5"],
    "hosts": ["--hosts", "node1,node2:8765"],
    "hostfile": ["--hostfile", "HOSTFILE"],
    "skip_unreachable": ["--skip-unreachable"],
    "on_host_failure": ["--on-host-failure", "stop"],
    "write_report": ["--report"],  # tests/conftest.py sets IOLAB_RUN_REPORT=0: the flag turns it back on
}


def _command(*path: str):
    command = click_command()
    for name in path:
        command = command.commands[name]
    return command


def _parsed(path: tuple[str, ...], args: list[str]) -> dict:
    """The parameters `iolab PATH ARGS` parses, in a context under the root's as the command line makes it:
    a command's first context fixes its help option for the process (the tree is built once,
    `cli.click_command`), and one made without the root's settings would leave `run` without `-h`."""
    root = click_command()
    parent = root.context_class(root, info_name="iolab", **root.context_settings)
    return _command(*path).make_context(" ".join(path), list(args), parent=parent).params


def _request_of_run(args: list[str]):
    """The request `iolab run ARGS` builds, and its flags."""
    flags = RunFlags.given(_parsed(("run",), args))
    plan_file, targets = split_args(_parsed(("run",), args)["args"] or [], flags.preset_name)
    return build_request(flags, plan_file, targets), flags


@pytest.fixture
def places(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    plan = tmp_path / "hourly.toml"
    plan.write_text('[options]\nrw = "randread"\n')
    target = tmp_path / "data"
    target.mkdir()
    hostfile = tmp_path / "hosts.txt"
    hostfile.write_text("node1 ssh=no\nnode2 ssh=no address=10.0.0.2 port=8765\n")
    return plan, target, hostfile


def test_every_option_of_run_is_shared_with_a_schedule_or_named_as_run_s_own():
    run = {p.name: p for p in _command("run").params}
    install = {p.name: p for p in _command("schedule", "install").params}
    scheduled = {f.name for f in SCHEDULED}
    assert set(run) - scheduled == set(RUN_ONLY)
    for name in scheduled:
        mine, theirs = run[name], install[name]
        assert (mine.opts, mine.secondary_opts, mine.default, mine.envvar) == (
            theirs.opts,
            theirs.secondary_opts,
            theirs.default,
            theirs.envvar,
        ), name
        assert type(mine.type) is type(theirs.type), name


def test_every_scheduled_flag_has_a_sample():
    assert set(SAMPLES) == {f.name for f in SCHEDULED}
    assert {f.name for f in FLAGS} - set(SAMPLES) == {name for name in RUN_ONLY if name in {f.name for f in FLAGS}}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_flag_means_the_same_to_run_and_to_a_schedule(name, places, monkeypatch):
    plan, target, hostfile = places
    sample = [str(hostfile) if word == "HOSTFILE" else word for word in SAMPLES[name]]
    where = [str(plan)] if "--devices" in sample else [str(plan), str(target)]
    by_hand, flags = _request_of_run([*where, *sample])
    default, default_flags = _request_of_run(where)
    assert (by_hand, flags) != (default, default_flags), f"{sample} changed nothing: the sample does not test it"

    scheduled = RunFlags.given(_parsed(("schedule", "install"), [*where, "--every", "1h", *sample]))
    monkeypatch.delenv("IOLAB_RUN_REPORT")  # the timer's environment: systemd and cron pass on none of this one's
    timer, timer_flags = _request_of_run([*scheduled.argv(), *where])
    assert timer == by_hand
    assert timer_flags.write_report == flags.write_report


def test_the_installed_command_line_builds_the_same_request(places):
    """The command `schedule install --dry-run` prints is the command the timer runs (in process: typer's
    CliRunner, so the fast tier holds it)."""
    plan, target, _ = places
    given = ["--verify-blank", "sample", "--runtime", "3", "--repeat", "2", "--no-telemetry", "--size", "64M"]
    shown = CliRunner().invoke(
        app, ["schedule", "install", str(plan), str(target), "--every", "1h", "--dry-run", "--unit-dir", "u", *given]
    )
    assert shown.exit_code == 0, shown.output
    (line,) = [ln.removeprefix("command: ") for ln in shown.stdout.splitlines() if ln.startswith("command: ")]
    words = shlex.split(line)
    timer, _ = _request_of_run(words[words.index("run") + 1 :])
    by_hand, _ = _request_of_run([str(plan), str(target), *given])
    assert replace(timer, command="") == replace(by_hand, command="")
    assert timer.verify_blank == "sample" and timer.settings == {"runtime": 3} and timer.telemetry_interval is None
