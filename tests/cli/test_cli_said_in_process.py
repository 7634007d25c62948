"""What the command line takes and says at the edges a user meets, in process (no fio): the durations
`--window` takes (anything above zero, a fraction of a minute too), the runs a compare finds in both groups, which presets say "up to", and when an import's progress shows (issue 41: survivors of the
mutation sample drawn with seed 5813 over cli/)."""

from __future__ import annotations

import json

import pytest

from iolab.cli.history import _window_seconds
from iolab.errors import UserError
from tests.cli.test_cli_contracts import _runs
from tests.in_process import assert_clean_error, iolab


@pytest.mark.parametrize(("text", "seconds"), [("0.01m", 0.6), ("0.5min", 30.0), ("0.0001h", 0.36)])
def test_a_window_under_a_second_is_above_zero_and_taken(text, seconds):
    """The rule is "above zero", as the refusal says: a window shorter than a second is a short window."""
    assert _window_seconds(text) == pytest.approx(seconds)


def test_a_window_that_rounds_to_nothing_is_refused_with_the_rule():
    with pytest.raises(UserError, match="above zero and at most ten years"):
        _window_seconds("0.0m")


def test_runs_in_both_groups_of_a_compare_are_named_up_to_five_then_elided(iolab_home):
    ids = _runs(iolab_home, 7)
    five = iolab("compare", f"{ids[0]}-{ids[4]}", f"{ids[0]}-{ids[5]}")
    said = assert_clean_error(five)
    assert f"run(s) {', '.join(map(str, ids[:5]))} are in both groups" in said and "..." not in said
    six = assert_clean_error(iolab("compare", f"{ids[0]}-{ids[5]}", f"{ids[0]}-{ids[6]}"))
    assert f"run(s) {', '.join(map(str, ids[:5]))} ... are in both groups" in six


def test_a_preset_whose_length_depends_on_what_it_finds_says_up_to():
    listed = {line.split()[0]: line for line in iolab("presets").stdout.splitlines()}
    for open_ended in ("latency-curve", "metadata", "ssd-steady"):  # they stop when they know the answer
        assert listed[open_ended].split()[1:3] == ["up", "to"], listed[open_ended]
    for fixed in ("quick", "qd-sweep", "bs-sweep"):  # every point runs its time
        assert "up to" not in listed[fixed], listed[fixed]


def _progress(tty: bool, seconds_ago: float):  # type: ignore[no-untyped-def]
    import io

    from iolab.cli.import_progress import ImportProgress

    stream = io.StringIO()
    progress = ImportProgress(stream)
    progress.tty, progress.started = tty, progress.started - seconds_ago
    return progress, stream


def test_off_a_terminal_an_import_of_a_thousand_files_prints_its_tenths_and_a_smaller_one_nothing():
    from iolab.cli.import_progress import LARGE

    progress, stream = _progress(tty=False, seconds_ago=10.0)
    for done in range(1, LARGE + 1):
        progress(done, LARGE)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 10 and lines[0].startswith(f"import   100/{LARGE:,} files")
    progress, stream = _progress(tty=False, seconds_ago=10.0)
    for done in range(1, LARGE):
        progress(done, LARGE - 1)
    assert stream.getvalue() == ""


def test_a_terminal_sees_nothing_of_its_first_second_then_the_rate_and_time_left():
    progress, stream = _progress(tty=True, seconds_ago=0.0)
    progress(1, 10)
    assert stream.getvalue() == ""  # an import shorter than a second never shows a line
    progress, stream = _progress(tty=True, seconds_ago=10.0)
    progress(100, 1000)
    shown = stream.getvalue()
    assert " 10%  10 files/s  1 min 30 s left" in shown, shown  # 100 files in 10 s: 900 more take 90 s


@pytest.mark.parametrize("where", ["existing", "new/and/deeper"])
def test_png_charts_go_into_a_directory_that_exists_or_is_made_with_its_parents(tmp_path, capsys, where):
    from iolab.cli.report import write_pngs

    (tmp_path / "existing").mkdir()
    write_pngs([], tmp_path / where, [])
    assert (tmp_path / where).is_dir()
    assert capsys.readouterr().err.strip() == f"wrote 0 charts into {tmp_path / where}"


def test_adaptive_asks_the_qd_sweep_to_adapt_and_nothing_else_does():
    from tests.cli.test_request_flags import _request_of_run

    adaptive, _ = _request_of_run(["--preset", "qd-sweep", "--adaptive", "/mnt/x"])
    plain, _ = _request_of_run(["--preset", "qd-sweep", "/mnt/x"])
    assert adaptive.settings.get("adaptive") is True and "adaptive" not in plain.settings
    with pytest.raises(UserError, match="--adaptive applies to --preset qd-sweep"):
        _request_of_run(["--preset", "quick", "--adaptive", "/mnt/x"])


def test_subsets_choose_the_sets_of_the_devices_and_without_them_every_set_is_the_default():
    from iolab.runner.request import RunRequest
    from tests.cli.test_request_flags import DEVICES, _request_of_run

    chosen, _ = _request_of_run([*DEVICES, "--subsets", "1,2"])
    assert chosen.subsets == ["1,2"]
    unchosen, _ = _request_of_run(DEVICES)
    assert unchosen.subsets == RunRequest(plan="array-read").subsets


@pytest.mark.parametrize("quiet", [False, True])
def test_a_run_s_html_page_is_written_and_said_unless_quiet(tmp_path, monkeypatch, quiet):
    """The line saying where the page is (the page's charts are the report tests'; drawn here they cost 2 s)."""
    import io

    from rich.console import Console

    import iolab.report.html

    monkeypatch.setattr(iolab.report.html, "render_html", lambda views: ("<!DOCTYPE html><p>the run</p>", []))

    from iolab.cli.runs import _write_run_report
    from iolab.store.db import open_store
    from tests.store.test_series import SEQ_READ, _bw, _run

    store = open_store(tmp_path / "home")
    run_id, _ = _run(store, "seq", SEQ_READ, [_bw(400)])
    said = io.StringIO()
    _write_run_report(store, run_id, Console(file=said, width=200), quiet)
    page = store.path.parent / "reports" / f"run-{run_id}.html"
    assert page.read_text() == "<!DOCTYPE html><p>the run</p>"
    assert said.getvalue() == ("" if quiet else f"report: {page}\n")


def test_a_home_others_may_write_is_still_read_by_the_commands_that_only_read(iolab_home):
    """Reading deletes nothing: a shared lab's results stay readable (read-only), where writing is refused."""
    first, second = _runs(iolab_home, 2)
    iolab_home.chmod(0o777)
    listed = iolab("ls", "--json")
    assert listed.returncode == 0 and len(json.loads(listed.stdout)) == 2, listed.stderr
    # diff-env reads both runs, and finds what they lack (made by hand here, they have no snapshot)
    said = assert_clean_error(iolab("diff-env", str(first), str(second)))
    assert said.strip() == f"iolab: run {first} has no host snapshot (imported, or made before iolab kept snapshots)"
    assert "is writable by group" in assert_clean_error(iolab("tag", str(first), "baseline"))


def test_removing_a_systemd_schedule_stops_its_timer_first_and_a_cron_one_runs_no_systemctl(
    tmp_path, monkeypatch, capfd
):
    """Without --unit-dir, `schedule remove` of a timer is the machine's: the timer is stopped (`systemctl
    disable --now`) before its files go, and systemd told after (daemon-reload). Here the machine's unit
    directory and cron file are scratch ones and `systemctl` a stand-in that notes what it was asked."""
    from iolab import schedule

    units, cron, asked = tmp_path / "units", tmp_path / "cron.d" / "iolab", tmp_path / "asked"
    monkeypatch.setattr(schedule, "SYSTEMD_UNIT_DIR", units)
    monkeypatch.setattr(schedule, "CRON_FILE", cron)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # it complains as systemctl does of a timer never started: that is no failure, and nothing the user need read
    (bin_dir / "systemctl").write_text(
        f'#!/bin/sh\necho "$*" >> {asked}\necho "Failed to disable unit: Unit file iolab-six.timer does not exist." >&2\n'
        'echo "Unit file iolab-six.timer does not exist." \nexit 1\n'
    )
    (bin_dir / "systemctl").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    plan = tmp_path / "nightly.toml"
    plan.write_text(f'targets = ["{tmp_path}"]\n[options]\nrw = "randread"\n')
    installed = iolab("schedule", "install", str(plan), "--every", "6h", "--name", "six", "--unit-dir", str(units))
    assert installed.returncode == 0, installed.stderr
    assert iolab("schedule", "install", str(plan), "--every", "1h", "--cron-file", str(cron)).returncode == 0
    asked.unlink(missing_ok=True)
    capfd.readouterr()
    removed = iolab("schedule", "remove", "six")
    assert removed.returncode == 0, removed.stderr
    assert removed.stdout.splitlines() == [
        f"removed six from {units / f'iolab-six.{kind}'}" for kind in ("timer", "service")
    ]
    assert removed.stderr == ""
    assert capfd.readouterr() == ("", "")  # systemctl's own words are not passed on
    assert asked.read_text().splitlines() == ["disable --now iolab-six.timer", "daemon-reload"]
    assert not (units / "iolab-six.timer").exists()
    asked.unlink()
    assert iolab("schedule", "remove", "nightly").returncode == 0
    assert not asked.exists()  # a cron line is only deleted


DATA = __import__("pathlib").Path(__file__).resolve().parents[1] / "data"


def test_an_import_keeps_this_host_s_snapshot_only_when_asked(iolab_home, tmp_path):
    """Without --snapshot an imported run has no snapshot (the outputs may come from anywhere), and says so
    where one is needed; with it, the run keeps this host as it is now."""
    for name, given in (("randread-4jobs.json", []), ("randrw-json.json", ["--snapshot"])):
        done = iolab("import", str(DATA / "fio" / name), *given)
        assert done.returncode == 0, done.stderr
    first, second = (run["id"] for run in reversed(json.loads(iolab("ls", "--json").stdout)))
    said = assert_clean_error(iolab("diff-env", str(first), str(second)))
    assert said.strip() == f"iolab: run {first} has no host snapshot (imported, or made before iolab kept snapshots)"
    assert iolab("diff-env", str(second), str(second)).returncode == 0


def test_an_import_with_several_bad_files_names_the_first_and_counts_the_rest(tmp_path):
    for name in ("a.json", "b.json", "c.json"):
        (tmp_path / name).write_text("{ not json: " + name)
    said = assert_clean_error(
        iolab("import", str(tmp_path / "a.json"), str(tmp_path / "b.json"), str(tmp_path / "c.json"))
    )
    assert said.startswith(f"iolab: could not import {tmp_path / 'a.json'}") and said.rstrip().endswith("(and 2 more)")


def test_a_dry_run_prints_paths_as_they_are_brackets_and_all(tmp_path):
    """Rich would read `[bold]` in a path as markup and drop it: every line of a dry run is printed plain."""
    target = tmp_path / "data[bold]x"
    target.mkdir()
    shown = iolab("run", "--dry-run", str(target))
    assert shown.returncode == 0, shown.stderr
    assert f"writes: scratch file {target}/iolab-scratch-" in shown.stderr
    assert f"checks: {target} (its directory): {target}: owner chain ok" in shown.stderr


def test_png_charts_that_cannot_be_written_name_the_os_reason_and_the_fix(tmp_path, monkeypatch):
    import errno
    import os

    import iolab.report.html
    from iolab.cli.report import write_pngs

    def full(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(iolab.report.html, "render_html", full)
    with pytest.raises(UserError) as refused:
        write_pngs([], tmp_path, [])
    assert (
        str(refused.value)
        == f"cannot write the PNG charts into {tmp_path}: No space left on device; choose another --png"
    )


def test_the_progress_bar_keeps_its_width_and_fills_with_the_share_done():
    """The terminal's line is rewritten in place: its bar is as wide at 100% as at 0%, filled in proportion."""
    import re

    from iolab.cli.import_progress import line

    bars = {done: re.search(r"\[([#.]*)\]", line(done, 200, 10.0)).group(1) for done in range(0, 201, 10)}
    assert {len(bar) for bar in bars.values()} == {len(bars[0])}
    assert bars[0] == "." * len(bars[0]) and bars[200] == "#" * len(bars[0])
    assert [bar.count("#") for bar in bars.values()] == sorted(bar.count("#") for bar in bars.values())
    assert bars[100].count("#") == len(bars[0]) // 2
