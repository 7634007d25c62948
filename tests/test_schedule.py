"""Schedules written into temporary directories; systemctl is never run, cron lines are run through sh."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from iolab import schedule
from iolab.errors import UserError
from iolab.schedule import (
    activation_commands,
    cron_fields,
    deactivation_commands,
    install,
    list_installed,
    on_calendar,
    parse_every,
    remove,
)

FLOCK = shutil.which("flock")


@pytest.fixture
def plan(tmp_path) -> Path:
    path = tmp_path / "plans dir" / "nightly plan.toml"  # spaces on purpose
    path.parent.mkdir()
    path.write_text("[[job]]\n")
    return path


@pytest.fixture
def fake_iolab(tmp_path) -> Path:
    """An executable that records its argv as JSON, standing in for iolab."""
    path = tmp_path / "bin" / "iolab"
    path.parent.mkdir()
    path.write_text(
        f"#!{sys.executable}\nimport json, sys\nopen(sys.argv[0] + '.argv', 'w').write(json.dumps(sys.argv[1:]))\n"
    )
    path.chmod(0o755)
    return path


@pytest.mark.parametrize(
    "every, seconds", [("30m", 1800), ("1h", 3600), ("1d", 86400), (" 15min ", 900), ("90m", 5400)]
)
def test_every_is_parsed(every, seconds):
    assert parse_every(every) == seconds


@pytest.mark.parametrize("every", ["", "1", "0h", "-1h", "1.5h", "1w", "hourly", "1 h 30m", None])
def test_bad_every_is_a_user_error_that_says_what_works(every):
    with pytest.raises(UserError, match="30m, 1h"):
        parse_every(every)


def test_calendar_and_cron_forms():
    assert on_calendar(1800) == "*-*-* *:00/30:00" and cron_fields(1800) == "*/30 * * * *"
    assert on_calendar(3600) == "*-*-* 00/1:00:00" and cron_fields(3600) == "0 * * * *"
    assert on_calendar(6 * 3600) == "*-*-* 00/6:00:00" and cron_fields(6 * 3600) == "0 */6 * * *"
    assert on_calendar(86400) == "*-*-* 00:00:00" and cron_fields(86400) == "0 0 * * *"
    assert on_calendar(5400) is None and cron_fields(5400) is None  # 90m divides neither an hour nor a day
    assert on_calendar(2 * 86400) is None


def test_systemd_units_with_calendar_persistence_and_a_shared_lock(tmp_path, plan):
    units = tmp_path / "units"
    argv = ["/opt/iolab/bin/iolab", "run", "--tag", "50% fill"]
    written = install(plan, "1h", "nightly", argv, unit_dir=units, use_systemd=True)
    assert written == [units / "iolab-nightly.service", units / "iolab-nightly.timer"]
    service, timer = (p.read_text() for p in written)
    assert "Type=oneshot" in service
    assert (
        f'ExecStart=/usr/bin/flock -n -E 75 /run/lock/iolab.lock /opt/iolab/bin/iolab run --tag "50%% fill" '
        f'"{plan}"' in service
    )
    assert "OnCalendar=*-*-* 00/1:00:00\nPersistent=true\n" in timer
    assert "Unit=iolab-nightly.service" in timer and "WantedBy=timers.target" in timer
    assert all(oct(p.stat().st_mode & 0o777) == "0o600" for p in written)  # private: they hold the command


def test_an_interval_with_no_calendar_form_uses_monotonic_timers(tmp_path, plan):
    units = tmp_path / "units"
    install(plan, "90m", "odd", ["/usr/bin/iolab", "run"], unit_dir=units, use_systemd=True)
    timer = (units / "iolab-odd.timer").read_text()
    assert "OnBootSec=5400s\nOnUnitActiveSec=5400s\n" in timer and "OnCalendar" not in timer


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_systemd_analyze_accepts_the_units(tmp_path, plan, fake_iolab):
    units = tmp_path / "units"
    for every, name in (("30m", "a"), ("90m", "b")):
        install(
            plan,
            every,
            name,
            [str(fake_iolab), "run"],
            unit_dir=units,
            use_systemd=True,
            flock=FLOCK or "/usr/bin/flock",
        )
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *map(str, sorted(units.iterdir()))],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # Offline (no running systemd) verify may complain about the environment; never about our syntax.
    problems = [line for line in done.stderr.splitlines() if str(units) in line]
    assert done.returncode == 0 and problems == [], done.stderr


def test_list_and_remove_systemd(tmp_path, plan):
    units = tmp_path / "units"
    install(plan, "1h", "hourly", ["/usr/bin/iolab", "run"], unit_dir=units, use_systemd=True)
    install(plan, "1d", "daily", ["/usr/bin/iolab", "run"], unit_dir=units, use_systemd=True)
    (units / "other.timer").write_text("[Timer]\nOnCalendar=daily\n")  # not ours
    found = list_installed(units, cron_file=None)
    assert [(s.name, s.every, s.plan_path, s.kind) for s in found] == [
        ("daily", "1d", plan, "systemd"),
        ("hourly", "1h", plan, "systemd"),
    ]
    removed = remove("hourly", units, cron_file=None)
    assert sorted(p.name for p in removed) == ["iolab-hourly.service", "iolab-hourly.timer"]
    assert [s.name for s in list_installed(units, cron_file=None)] == ["daily"]
    with pytest.raises(UserError, match="no schedule named"):
        remove("hourly", units, cron_file=None)


def test_reinstalling_replaces_the_schedule(tmp_path, plan):
    units, cron = tmp_path / "units", tmp_path / "cron.d" / "iolab"
    install(plan, "1h", "x", ["/usr/bin/iolab"], unit_dir=units, use_systemd=True)
    install(plan, "30m", "x", ["/usr/bin/iolab"], unit_dir=units, use_systemd=True)
    install(plan, "1h", "x", ["/usr/bin/iolab"], use_systemd=False, cron_file=cron)
    install(plan, "30m", "x", ["/usr/bin/iolab"], use_systemd=False, cron_file=cron)
    assert [(s.every, s.kind) for s in list_installed(units, cron)] == [("30m", "cron"), ("30m", "systemd")]


def test_commands_to_activate_and_deactivate_are_returned_not_run():
    assert activation_commands("nightly") == [
        ["systemctl", "daemon-reload"],
        ["systemctl", "enable", "--now", "iolab-nightly.timer"],
    ]
    assert deactivation_commands("nightly") == [["systemctl", "disable", "--now", "iolab-nightly.timer"]]


def test_cron_line_keeps_other_lines_and_lists_and_removes(tmp_path, plan):
    cron = tmp_path / "cron.d" / "iolab"
    cron.parent.mkdir()
    cron.write_text("MAILTO=ops@example.org\n")
    (written,) = install(plan, "30m", "every-half-hour", ["/usr/bin/iolab", "run"], use_systemd=False, cron_file=cron)
    assert written == cron
    lines = cron.read_text().splitlines()
    assert lines[0] == "MAILTO=ops@example.org"
    assert lines[2].startswith("*/30 * * * * root /usr/bin/flock -n -E 75 /run/lock/iolab.lock /usr/bin/iolab run '")
    assert cron.read_text().endswith("\n")
    install(plan, "1d", "daily", ["/usr/bin/iolab", "run"], use_systemd=False, cron_file=cron, cron_user=None)
    assert cron.read_text().splitlines()[-1].startswith("0 0 * * * /usr/bin/flock")
    assert [(s.name, s.every, s.plan_path) for s in list_installed(tmp_path / "none", cron)] == [
        ("daily", "1d", plan),
        ("every-half-hour", "30m", plan),
    ]
    remove("every-half-hour", tmp_path / "none", cron)
    assert cron.read_text().splitlines()[0] == "MAILTO=ops@example.org"
    assert [s.name for s in list_installed(tmp_path / "none", cron)] == ["daily"]


def test_cron_refuses_an_interval_it_cannot_express(tmp_path, plan):
    with pytest.raises(UserError, match="cron cannot run every 90m"):
        install(plan, "90m", "odd", ["/usr/bin/iolab"], use_systemd=False, cron_file=tmp_path / "iolab")


@pytest.mark.skipif(FLOCK is None, reason="flock (util-linux) not installed")
def test_cron_command_runs_with_its_arguments_intact_and_never_overlaps(tmp_path, plan, fake_iolab):
    cron, lock = tmp_path / "iolab.cron", tmp_path / "iolab.lock"
    argv = [str(fake_iolab), "run", "--tag", 'it\'s 50% "done"']
    install(plan, "1h", "q", argv, use_systemd=False, cron_file=cron, cron_user=None, lock_path=lock, flock=FLOCK)
    line = cron.read_text().splitlines()[-1]
    command = line.split(" ", 5)[5].replace("\\%", "%")  # what cron hands to sh: fields gone, \% unescaped
    assert subprocess.run(["/bin/sh", "-c", command], timeout=30, check=False).returncode == 0
    assert json.loads(Path(str(fake_iolab) + ".argv").read_text()) == ["run", "--tag", 'it\'s 50% "done"', str(plan)]
    # While another run holds the lock, this one is skipped with exit code 75.
    with open(lock, "w") as held:
        subprocess.run([FLOCK, "-n", str(lock), "true"], check=True)  # lock is free
        import fcntl

        fcntl.flock(held, fcntl.LOCK_EX)
        busy = subprocess.run(["/bin/sh", "-c", command], timeout=30, check=False)
    assert busy.returncode == schedule.BUSY_EXIT_CODE


def test_input_errors_are_user_errors(tmp_path, plan):
    units = tmp_path / "units"
    with pytest.raises(UserError, match="absolute path"):
        install(plan, "1h", "x", ["iolab", "run"], unit_dir=units, use_systemd=True)
    with pytest.raises(UserError, match="does not exist"):
        install(tmp_path / "missing.toml", "1h", "x", ["/usr/bin/iolab"], unit_dir=units, use_systemd=True)
    for bad in ("", "../etc", "a b", "x" * 65, "-lead"):
        with pytest.raises(UserError, match="schedule name"):
            install(plan, "1h", bad, ["/usr/bin/iolab"], unit_dir=units, use_systemd=True)
    assert not units.exists()


def test_systemd_detection_follows_the_runtime_directory(tmp_path, plan):
    assert schedule.systemd_available(tmp_path) is True
    assert schedule.systemd_available(tmp_path / "absent") is False
    assert os.path.isdir("/run/systemd/system") == schedule.systemd_available()
