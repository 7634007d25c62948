"""`iolab schedule` against a scratch unit directory and cron file; systemctl is never run.

Every call names --unit-dir or --cron-file (and --lock-file where a command runs): the machine's own
systemd and cron are never touched.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

from tests.iolab_cli import assert_clean_error, iolab

ONE_SECOND = (
    'name = "hourly"\n[options]\nrw = "randread"\nbs = "4k"\nruntime = 1\ntime_based = true\nioengine = "psync"\n'
)


def test_install_list_remove_with_cron_and_systemd(tmp_path):
    plan = tmp_path / "nightly.toml"
    plan.write_text(f'targets = ["{tmp_path}"]\n[options]\nrw = "randread"\n')
    cron, units = tmp_path / "cron.d" / "iolab", tmp_path / "units"
    proc = iolab("schedule", "install", str(plan), "--every", "1h", "--cron-file", str(cron))
    assert proc.returncode == 0, proc.stderr
    line = cron.read_text().splitlines()[-1]
    assert line.startswith("0 * * * * root ")
    # IOLAB_RUN_REPORT=0 (tests/conftest.py) is passed on as --no-report: a timer does not see this environment
    assert f"{sys.executable} -m iolab run --quiet --fresh --no-report {plan}" in line
    proc = iolab("schedule", "install", str(plan), "--every", "6h", "--name", "six", "--unit-dir", str(units))
    assert proc.returncode == 0, proc.stderr
    assert "OnCalendar=*-*-* 00/6:00:00" in (units / "iolab-six.timer").read_text()
    listed = iolab("schedule", "list", "--cron-file", str(cron), "--unit-dir", str(units)).stdout
    assert "nightly\tevery 1h" in listed and "six\tevery 6h" in listed
    assert iolab("schedule", "remove", "nightly", "--cron-file", str(cron), "--unit-dir", str(units)).returncode == 0
    assert iolab("schedule", "remove", "six", "--cron-file", str(cron), "--unit-dir", str(units)).returncode == 0
    assert "No schedules" in iolab("schedule", "list", "--cron-file", str(cron), "--unit-dir", str(units)).stdout
    assert_clean_error(iolab("schedule", "install", str(plan), "--every", "often", "--cron-file", str(cron)))
    assert_clean_error(iolab("schedule", "remove", "nightly", "--cron-file", str(cron), "--unit-dir", str(units)))


def test_install_refuses_a_plan_without_targets_and_lists_what_a_plan_runs(tmp_path):
    cron = tmp_path / "cron.d" / "iolab"
    untargeted = tmp_path / "anywhere.toml"
    untargeted.write_text('[options]\nrw = "randread"\n')
    assert "must name its targets" in assert_clean_error(
        iolab("schedule", "install", str(untargeted), "--every", "1h", "--cron-file", str(cron))
    )
    runs = tmp_path / "runs.fio"
    (tmp_path / "data").write_bytes(b"\0" * (1 << 20))
    runs.write_text(f"[j]\nfilename={tmp_path}/data\nrw=read\nexec_prerun=touch {tmp_path}/marker\n")
    refused = iolab("schedule", "install", str(runs), "--every", "1h", "--cron-file", str(cron))
    assert "runs: j: exec_prerun=touch" in refused.stdout
    assert "--allow-commands" in assert_clean_error(refused)
    assert not cron.exists()
    allowed = iolab("schedule", "install", str(runs), "--every", "1h", "--allow-commands", "--cron-file", str(cron))
    assert allowed.returncode == 0, allowed.stderr
    assert "--allow-commands" in cron.read_text()
    assert not (tmp_path / "marker").exists()


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


def test_the_plan_s_size_is_checked_at_install_and_a_missing_target_refused(tmp_path):
    units = tmp_path / "units"
    plan = tmp_path / "hourly.toml"
    plan.write_text(ONE_SECOND)
    missing = assert_clean_error(
        iolab("schedule", "install", str(plan), str(tmp_path / "absent"), "--every", "1h", "--unit-dir", str(units))
    )
    assert "no such file, directory or device" in missing
    assert "is not a size" in assert_clean_error(
        iolab(
            "schedule", "install", str(plan), str(tmp_path), "--every", "1h", "--size", "lots", "--unit-dir", str(units)
        )
    )
    assert not units.exists()


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
