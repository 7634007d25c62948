"""`iolab schedule` against a scratch unit directory and cron file; systemctl is never run.

Every call names --unit-dir or --cron-file (and --lock-file where a command runs): the machine's own
systemd and cron are never touched.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess

from tests.iolab_cli import assert_clean_error, iolab

ONE_SECOND = (
    'name = "hourly"\n[options]\nrw = "randread"\nbs = "4k"\nruntime = 1\ntime_based = true\nioengine = "psync"\n'
)


def test_a_dry_run_prints_units_whose_command_run_by_hand_stores_into_the_home_in_effect(tmp_path, iolab_home):
    """The printed command, run from another directory with no IOLAB_HOME, stores its run where
    `iolab ls` and `iolab history` under the installing IOLAB_HOME look."""
    home, units, data = tmp_path / "lab home", tmp_path / "units", tmp_path / "data"
    data.mkdir()
    plan = tmp_path / "hourly.toml"
    plan.write_text(ONE_SECOND)
    proc = iolab(
        "schedule",
        "install",
        "hourly.toml",
        "data",
        "--every",
        "1h",
        "--size",
        "128M",
        "--dry-run",
        "--unit-dir",
        str(units),
        "--lock-file",
        str(tmp_path / "lock"),
        cwd=tmp_path,
        env={"IOLAB_HOME": str(home)},
    )
    assert proc.returncode == 0, proc.stderr
    assert not units.exists() and not home.exists()  # nothing installed, nothing stored
    assert f'Environment="IOLAB_HOME={home}"\n' in proc.stdout
    assert f"WorkingDirectory={tmp_path}\n" in proc.stdout
    assert f"-m iolab run --quiet --fresh --size 128M --no-report {plan} {data}\n" in proc.stdout
    assert "writes: scratch file " in proc.stdout and "(128.0 MiB, removed afterwards)" in proc.stdout
    (command,) = [line.removeprefix("command: ") for line in proc.stdout.splitlines() if line.startswith("command: ")]
    assert command.startswith(f"cd {shlex.quote(str(tmp_path))} && IOLAB_HOME={shlex.quote(str(home))} ")

    # By hand, as cron or systemd would start it: elsewhere, and with no IOLAB_HOME of its own. A HOME and
    # XDG data home of the test's own catch a run that would otherwise land in the default home.
    bare = {k: v for k, v in os.environ.items() if k != "IOLAB_HOME"}
    bare |= {"HOME": str(tmp_path / "nobody"), "XDG_DATA_HOME": str(tmp_path / "xdg"), "IOLAB_RUN_REPORT": "0"}
    done = subprocess.run(
        ["/bin/sh", "-c", command], cwd="/", env=bare, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    (run,) = json.loads(iolab("ls", "--json", env={"IOLAB_HOME": str(home)}).stdout)
    assert run["targets"] == [str(data)] and run["status"] == "complete"
    (series,) = json.loads(iolab("history", "--json", env={"IOLAB_HOME": str(home)}).stdout)
    assert series["target"] == str(data) and series["runs"] == 1
    assert not (tmp_path / "xdg").exists() and not iolab_home.exists()
    assert os.listdir(data) == []  # its scratch file removed


def test_a_scheduled_write_test_is_allowed_with_allow_write_shown_in_the_unit_and_its_dry_run(tmp_path):
    """`schedule install --allow-write`: the unit's command carries it and the check lists the device's write
    (it said "note: /dev/loopN: skipped write", and a scheduled write test could not be made)."""
    from tests.loopdev import loop_devices, loop_skip_reason

    if loop_skip_reason():
        import pytest

        pytest.skip(loop_skip_reason())
    plan = tmp_path / "writes.toml"
    plan.write_text('name = "writes"\n[options]\nrw = "randwrite"\nbs = "4k"\nruntime = 1\ntime_based = true\n')
    with loop_devices(1, size_mib=32) as (device,):
        common = ["schedule", "install", str(plan), device.path, "--every", "1d", "--unit-dir", str(tmp_path / "u")]
        refused = assert_clean_error(iolab(*common, "--dry-run"))
        assert "writes need --allow-write" in refused  # a write test alone: nothing left to schedule
        proc = iolab(*common, "--allow-write", "--dry-run")
        assert proc.returncode == 0, proc.stderr
        assert "skipped write" not in proc.stdout and f"writes: {device.path}" in proc.stdout, proc.stdout
        assert f"-m iolab run --quiet --fresh --allow-write --no-report {plan} {device.path}\n" in proc.stdout
        installed = iolab(*common, "--allow-write")
        assert installed.returncode == 0, installed.stderr
        (service,) = (tmp_path / "u").glob("*.service")
        assert "--allow-write" in service.read_text()
