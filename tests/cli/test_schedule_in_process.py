"""`iolab schedule` install, list and remove against a scratch unit directory and cron file, in process
(`tests.in_process`: no fio runs, so the fast tier holds the command's wiring); systemctl is never run.
Every call names --unit-dir or --cron-file: the machine's own systemd and cron are never touched. What
runs a unit's command by hand (real fio) stays in tests/cli/test_schedule_cli.py."""

from __future__ import annotations

import sys

from tests.in_process import assert_clean_error, iolab


def test_install_list_remove_with_cron_and_systemd(tmp_path):
    plan = tmp_path / "nightly.toml"
    plan.write_text(f'targets = ["{tmp_path}"]\n[options]\nrw = "randread"\n')
    cron, units = tmp_path / "cron.d" / "iolab", tmp_path / "units"
    proc = iolab("schedule", "install", str(plan), "--every", "1h", "--cron-file", str(cron))
    assert proc.returncode == 0, proc.stderr
    line = cron.read_text().splitlines()[-1]
    assert line.startswith("0 * * * * root ")
    # IOLAB_RUN_REPORT=0 (tests/conftest.py) is passed on as --no-report: a timer does not see this environment
    assert f"{sys.executable} -P -m iolab run --quiet --fresh --no-report {plan}" in line
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


def test_the_plan_s_size_is_checked_at_install_and_a_missing_target_refused(tmp_path):
    units = tmp_path / "units"
    plan = tmp_path / "hourly.toml"
    plan.write_text('name = "hourly"\n[options]\nrw = "randread"\nbs = "4k"\n')
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
