"""Seed 001, "Nine months in the life of an all-flash file system", as its engineers' session: a plan run
on a schedule, folders of hourly results imported, history with its per-day COV, its change point
attributed to the host setting changed there and its one bad run named an outlier, notes and tags, run
ranges compared, CSV and Prometheus exports and the HTML page.

The hourly results are real fio outputs made here, one fio invocation each of the same job on a loop device
(a blkio throttle stands for the file system's speed: 8 MiB/s for the first 15 hours, 6 MiB/s after a
setting changed midway, and one bad hour at 1 MiB/s), each dated by setting `time`, `timestamp` and
`timestamp_ms` in its JSON as fio writes them: 30 hours over three days, ten a day. The engineers import
each folder with `--snapshot` as it is written (the hours before the change, then the hours after it),
the loop device's read_ahead_kb standing for the setting they changed.
"""

from __future__ import annotations

import csv
import io
import json
import re
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests import in_process
from tests.iolab_cli import iolab
from tests.loopdev import LoopDevice, blkio_cgroup, loop_devices, loop_skip_reason

pytestmark = pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))  # a throttle: per test

UTC = {"TZ": "UTC"}  # the per-day COV counts calendar days where the engineer is; here, UTC
DAY0 = 1_767_225_600  # 2026-01-01T00:00:00Z
HOURS = [DAY0 + day * 86_400 + (9 + hour) * 3600 for day in range(3) for hour in range(10)]  # 09:00..18:00
CHANGE_AT = 15  # the setting changed at 14:00 of the second day
BAD = 24  # one bad hour on the third day, 13:00
# The file system's speed, set by a blkio throttle: low rates, so 15 readers at once cost little CPU.
BEFORE_BPS, AFTER_BPS, BAD_BPS = 8 << 20, 6 << 20, 1 << 20
READ_AHEAD_KB = ("128", "4096")  # the host setting changed at CHANGE_AT
PLAN = """name = "hourly"
[options]
rw = "randread"
bs = "4k"
ioengine = "psync"
runtime = 1
time_based = true
size = "8M"
"""


def _hourly_outputs(folders: tuple[Path, Path], device: LoopDevice) -> None:
    """30 real fio outputs of one job, each dated to its hour as fio dates its JSON, the hours before the
    change in the first folder. The hours run side by side, each fio in a blkio group of its own whose cap is
    the file system's speed that hour (a cap holds per group, so readers of one device each read at their
    own): 9 s of fio, where one after another took 24 x 1.6 s. Each hour reads for 4 s: the throttle dispatches
    in slices of a tenth of a second, so a 1 s hour of some 100 I/Os read up to 13% off its cap on a busy host,
    enough for the first hour after the change to read as an outlier and the change point to move one run; 4 s
    halves that again."""
    for folder, hours in zip(folders, (range(0, CHANGE_AT), range(CHANGE_AT, len(HOURS))), strict=True):
        with ExitStack() as groups:
            running = []
            for i in hours:
                cgroup = groups.enter_context(blkio_cgroup())
                cgroup.set_read_bps(
                    device.major_minor, BAD_BPS if i == BAD else (BEFORE_BPS if i < CHANGE_AT else AFTER_BPS)
                )
                argv = ["fio", "--name=hourly", f"--filename={device.path}", "--rw=read", "--bs=64k", "--direct=1"]
                argv += ["--ioengine=psync", "--time_based", "--runtime=4", "--output-format=json"]
                argv += [f"--output={folder / f'hourly-{i:02d}.json'}"]
                running.append(cgroup.popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
            for proc in running:
                assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
                if proc.stderr:
                    proc.stderr.close()
    for i, when in enumerate(HOURS):
        out = folders[i >= CHANGE_AT] / f"hourly-{i:02d}.json"
        doc = json.loads(out.read_text())
        doc["timestamp"], doc["timestamp_ms"] = when, when * 1000 + 123
        doc["time"] = time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime(when))
        out.write_text(json.dumps(doc, indent=2))


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The two folders of hourly outputs, each imported with this host's snapshot into a home of the
    module's own, the loop device's read_ahead_kb changed between them: run ids in hour order."""
    root = tmp_path_factory.mktemp("seed001")
    folders, home = (root / "before", root / "after"), root / "home"
    env = {**UTC, "IOLAB_HOME": str(home)}
    said = ""
    with loop_devices(1, size_mib=64) as (device,):
        for folder in folders:
            folder.mkdir()
        _hourly_outputs(folders, device)
        read_ahead = Path(f"/sys/block/{device.name}/queue/read_ahead_kb")
        for folder, value in zip(folders, READ_AHEAD_KB, strict=True):
            read_ahead.write_text(value)
            proc = iolab("import", "--snapshot", str(folder), env=env)
            assert proc.returncode == 0, proc.stderr
            said += proc.stderr
    runs = sorted(
        json.loads(in_process.iolab("ls", "--json", "--limit", "100", env=env).stdout), key=lambda r: r["started_at"]
    )
    return env, [r["id"] for r in runs], said, root, device


@pytest.fixture(scope="module")
def history(imported) -> tuple[str, dict]:
    """`iolab history` and `iolab history --json` of the imported runs, as the engineers first read them (before
    any note or tag): asked once for the tests that read that same history."""
    env = imported[0]
    (series,) = json.loads(in_process.iolab("history", "--json", env=env).stdout)
    return in_process.iolab("history", env=env).stdout, series


def test_folders_of_30_hourly_outputs_are_30_runs_and_three_days_of_per_day_cov(imported, history):
    _, ids, said, _, _ = imported
    assert len(ids) == 30 and said.count("Imported ") == 30, said  # one run per fio invocation, not one run
    text, series = history
    assert series["runs"] == 30
    days = series["days"]
    assert [d["day"] for d in days] == ["2026-01-01", "2026-01-02", "2026-01-03"] and all(d["runs"] == 10 for d in days)
    assert "per day: 3 days" in text
    # over the target: the day of the change (5 hours at 8, 5 at 6 MiB/s) and the day of the bad hour
    assert "2 days over the 8% target: 2026-01-02" in text and "2026-01-03" in text, text
    assert days[0]["cov"] < 0.08, days


def test_the_change_point_is_at_the_hour_the_setting_changed_and_names_it(imported, history):
    _, ids, _, _, device = imported
    text, series = history
    # the change point sits at the first hour measured after the change, not at the bad hour, and says
    # what changed on the host over the hours around it (views.history.HOST_WINDOW)
    assert f"(run {ids[CHANGE_AT]}, p=<0.001); between run " in text, text
    assert f"(the runs around the change point): {device.name}: read_ahead_kb 128 -> 4096" in text, text
    # One change point at the hour of the change. A host the suite loads can starve some hours' fio of CPU so they
    # read short of their throttle (a fresh-clone CI once found a second change point, 2026-12-02; 4 CPU hogs
    # here read the hours after the change at 4.9 MB/s, not 6): a further change point is a statement about
    # those measured hours, so it is allowed, but never at the bad hour, which is an outlier run
    changes = {c["run"]: c for c in series["change_points"]}
    assert ids[CHANGE_AT] in changes, (series["change_points"], text)
    assert all(abs(run - ids[BAD]) > 1 for run in changes if run != ids[CHANGE_AT]), series["change_points"]
    change = changes[ids[CHANGE_AT]]
    assert change["run_before"] == ids[CHANGE_AT - 1], change
    assert change["host_changes"] == [
        {"subject": device.name, "what": "read_ahead_kb", "before": "128", "after": "4096"}
    ], change
    # the bad hour is an outlier run, not a change of level. A 1 s hour of a host the suite loads can read
    # 5-10% short of its throttle and be named too (seen: -9% at 6 MiB/s, whose runs otherwise agree to
    # 0.1%); that is a true statement about that hour, so only the bad hour's -84% is required, and no
    # other outlier run may be anywhere near it
    outliers = {o["run_id"]: o["relative"] for o in series["outlier_runs"]}
    assert ids[BAD] in outliers and outliers[ids[BAD]] < -0.8, series["outlier_runs"]
    assert all(abs(r) < 0.3 for run, r in outliers.items() if run != ids[BAD]), series["outlier_runs"]
    # the bad hour's figure as the text gives it is the one measured (1.0 MB/s here, 0.83 MB/s under 4 CPU hogs)
    shown = re.search(rf"run {ids[BAD]} \(2026-01-03 13:00\): ([0-9.]+) MB/s", text)
    measured = next(o["value"] for o in series["outlier_runs"] if o["run_id"] == ids[BAD]) / 1e6
    assert shown and abs(float(shown[1]) - measured) <= 0.05 * measured, (measured, text)
    assert "outlier run" in text, text


def test_notes_tags_and_the_ranges_compared(imported):
    env, ids, _, _, _ = imported
    assert iolab("note", str(ids[CHANGE_AT]), "checksums on", env=env).returncode == 0
    assert in_process.iolab("tag", f"{ids[CHANGE_AT]}-{ids[-1]}", "after-change", env=env).returncode == 0
    text = in_process.iolab("history", env=env).stdout
    assert "  notebook:" in text and '"checksums on"' in text and "at the change point" in text, text
    before = f"{ids[0]}-{ids[CHANGE_AT - 1]}"
    compared = in_process.iolab("compare", before, "tag:after-change", "--json", env=env)
    assert compared.returncode == 0, compared.stderr
    (row,) = json.loads(compared.stdout)["workloads"]
    assert row["verdict"] == "slower" and -0.35 < row["change"] < -0.15, row  # 8 -> 6 MiB/s: -25%


def test_csv_prometheus_and_html(imported):
    env, ids, _, root, _ = imported
    from prometheus_client.parser import text_string_to_metric_families

    csv_path, prom, page = root / "points.csv", root / "iolab.prom", root / "history.html"
    proc = in_process.iolab("export", "--csv", str(csv_path), "--prometheus", str(prom), env=env)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(csv_path.read_text())))
    assert len(rows) == 30 and rows[0]["run_started"].startswith("2026-01-01T09:00")
    assert rows[-1]["run_started"].startswith("2026-01-03T18:00")
    families = {f.name: f for f in text_string_to_metric_families(prom.read_text())}
    (change,) = families["iolab_last_change_point_run"].samples
    assert change.value == ids[CHANGE_AT]
    (last,) = families["iolab_last_run_timestamp_seconds"].samples
    assert last.value == pytest.approx(HOURS[-1], abs=1)
    assert in_process.iolab("history", "--html", str(page), env=env).returncode == 0
    assert "per-day COV" in page.read_text()


def test_the_scheduled_plan_never_resumes_a_run_it_did_not_start(tmp_path, iolab_home):
    """The unit's command (written to a scratch unit directory) runs with --fresh: after a run of the same
    plan was killed, the next scheduled run is a run of its own; run by hand, the plan resumes the killed run
    and says so on stderr, even with -q."""
    plan, data, units = tmp_path / "hourly.toml", tmp_path / "data", tmp_path / "units"
    plan.write_text(PLAN)
    data.mkdir()
    installed = iolab(
        "schedule",
        "install",
        str(plan),
        str(data),
        "--every",
        "1h",
        "--size",
        "32M",
        "--unit-dir",
        str(units),
        "--lock-file",
        str(tmp_path / "lock"),
    )
    assert installed.returncode == 0, installed.stderr
    (service,) = units.glob("*.service")
    assert "run --quiet --fresh " in service.read_text()
    (command,) = [ln.removeprefix("command: ") for ln in installed.stdout.splitlines() if ln.startswith("command: ")]

    killed = subprocess.Popen(
        [sys.executable, "-m", "iolab", "run", "-q", str(plan), str(data), "--size", "32M"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not _has_run(iolab_home / "iolab.db"):
        assert killed.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    killed.send_signal(signal.SIGKILL)
    killed.wait()

    scheduled = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, timeout=120, check=False)
    assert scheduled.returncode == 0, scheduled.stderr
    assert "resum" not in scheduled.stderr
    runs = json.loads(in_process.iolab("ls", "--json").stdout)
    assert len(runs) == 2 and {r["status"] for r in runs} >= {"complete"}
    by_hand = iolab("run", "-q", str(plan), str(data), "--size", "32M")
    assert by_hand.returncode == 0, by_hand.stderr
    assert f"resumed run {min(r['id'] for r in runs)}" in by_hand.stderr  # the killed one, said even with -q


def _has_run(db: Path) -> bool:
    if not db.exists():
        return False
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] > 0
    except sqlite3.OperationalError:
        return False
