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
    list_installed,
    on_calendar,
    parse_every,
    prepare,
    remove,
    write,
)

FLOCK = shutil.which("flock")
HOME, WORKDIR = Path("/var/lib/iolab"), Path("/srv/bench")


def install(plan: Path, every: str, name: str, argv: list[str], **settings) -> list[Path]:
    """Prepare and write a schedule; IOLAB_HOME and the working directory default to fixed absolute paths.

    Never the machine's own: a test names where the files go and which kind they are.
    """
    assert "use_systemd" in settings and ("unit_dir" in settings or "cron_file" in settings), settings
    settings = {"home": HOME, "workdir": WORKDIR, **settings}
    return write(prepare(plan, every, name, argv, **settings))


@pytest.fixture
def plan(tmp_path) -> Path:
    path = tmp_path / "plans dir" / "nightly plan.toml"  # spaces on purpose
    path.parent.mkdir()
    path.write_text("[[job]]\n")
    return path


@pytest.fixture
def fake_iolab(tmp_path) -> Path:
    """An executable that records its argv as JSON, standing in for iolab; and where it ran, with which
    IOLAB_HOME, in `.where`."""
    path = tmp_path / "bin" / "iolab"
    path.parent.mkdir()
    path.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        "open(sys.argv[0] + '.argv', 'w').write(json.dumps(sys.argv[1:]))\n"
        "open(sys.argv[0] + '.where', 'w').write(json.dumps([os.getcwd(), os.environ.get('IOLAB_HOME')]))\n"
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
        f'ExecStart=/usr/bin/flock -n -E 75 {HOME}/schedule.lock /opt/iolab/bin/iolab run --tag "50%% fill" '
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
    assert lines[2].startswith(
        "*/30 * * * * root cd /srv/bench && IOLAB_HOME=/var/lib/iolab "
        "/usr/bin/flock -n -E 75 /var/lib/iolab/schedule.lock /usr/bin/iolab run '"
    )
    assert cron.read_text().endswith("\n")
    install(plan, "1d", "daily", ["/usr/bin/iolab", "run"], use_systemd=False, cron_file=cron, cron_user=None)
    assert cron.read_text().splitlines()[-1].startswith("0 0 * * * cd /srv/bench && IOLAB_HOME=/var/lib/iolab /usr/")
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
    home, workdir = tmp_path / "it's 50% home", tmp_path / "work dir"  # quotes, % and spaces on purpose
    workdir.mkdir()
    argv = [str(fake_iolab), "run", "--tag", 'it\'s 50% "done"']
    target = str(tmp_path / "data dir")
    settings = {"home": home, "workdir": workdir, "targets": [target], "lock_path": lock, "flock": FLOCK}
    install(plan, "1h", "q", argv, use_systemd=False, cron_file=cron, cron_user=None, **settings)
    line = cron.read_text().splitlines()[-1]
    command = line.split(" ", 5)[5].replace("\\%", "%")  # what cron hands to sh: fields gone, \% unescaped
    cron_env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}  # what cron gives a job: no IOLAB_HOME
    assert subprocess.run(["/bin/sh", "-c", command], cwd="/", env=cron_env, timeout=30, check=False).returncode == 0
    recorded = json.loads(Path(str(fake_iolab) + ".argv").read_text())
    assert recorded == ["run", "--tag", 'it\'s 50% "done"', str(plan), target]
    assert json.loads(Path(str(fake_iolab) + ".where").read_text()) == [str(workdir), str(home)]
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


def test_systemd_units_carry_the_home_the_working_directory_and_the_targets(tmp_path, plan):
    units = tmp_path / "units"
    home, workdir = Path('/var/lib/it\'s 50% "home"'), Path("/srv/50% bench")
    argv = ["/opt/iolab/bin/iolab", "run", "--quiet", "--size", "128M"]
    targets = ["/mnt/a b", "/dev/sdb"]
    install(plan, "1h", "h", argv, home=home, workdir=workdir, targets=targets, unit_dir=units, use_systemd=True)
    service = (units / "iolab-h.service").read_text()
    assert 'Environment="IOLAB_HOME=/var/lib/it\'s 50%% \\"home\\""\n' in service  # % doubled, quotes escaped
    assert "WorkingDirectory=/srv/50%% bench\n" in service
    assert service.splitlines()[-1].endswith(f'run --quiet --size 128M "{plan}" "/mnt/a b" /dev/sdb')


def test_prepare_writes_nothing_and_its_shell_line_runs_the_command_there(tmp_path, plan, fake_iolab):
    units, home, workdir = tmp_path / "units", tmp_path / "home", tmp_path / "work"
    workdir.mkdir()
    entry = prepare(
        plan,
        "1h",
        "dry",
        [str(fake_iolab), "run", "--quiet"],
        home=home,
        workdir=workdir,
        targets=[str(tmp_path)],
        unit_dir=units,
        use_systemd=True,
        lock_path=tmp_path / "lock",
        flock=FLOCK or "/usr/bin/flock",
    )
    assert not units.exists() and sorted(p.name for p in entry.files) == ["iolab-dry.service", "iolab-dry.timer"]
    assert entry.shell_line().startswith(f"cd {workdir} && IOLAB_HOME={home} ")
    if FLOCK is None:
        return
    done = subprocess.run(["/bin/sh", "-c", entry.shell_line()], cwd="/", env={"PATH": "/usr/bin:/bin"}, check=False)
    assert done.returncode == 0
    assert json.loads(Path(str(fake_iolab) + ".argv").read_text()) == ["run", "--quiet", str(plan), str(tmp_path)]
    assert json.loads(Path(str(fake_iolab) + ".where").read_text()) == [str(workdir), str(home)]


@pytest.mark.parametrize("place", ["home", "workdir", "targets"])
def test_relative_places_are_refused_a_scheduled_run_starts_elsewhere(tmp_path, plan, place):
    settings: dict = {"home": HOME, "workdir": WORKDIR, "targets": ["/mnt/data"]}
    settings[place] = ["data"] if place == "targets" else Path("data")
    with pytest.raises(UserError, match="data is not an absolute path"):
        prepare(plan, "1h", "x", ["/usr/bin/iolab"], unit_dir=tmp_path / "units", use_systemd=True, **settings)
