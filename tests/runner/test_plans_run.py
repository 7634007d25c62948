"""Plans through the runner with the real fio: repeats, resume, dry-run, phases, presets, snapshots."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import time

import pytest

from iolab.models import Severity
from iolab.models.result import primary_metric
from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest
from iolab.store.db import open_store
from iolab.store.queries import get_run, point_samples, run_findings, run_points, run_snapshot
from tests import in_process
from tests.iolab_cli import assert_clean_error, iolab, run_job
from tests.loopdev import loop_devices, loop_skip_reason

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")

PLAN_12 = """
name = "twelve"
[options]
ioengine = "libaio"
time_based = true
runtime = "1s"
ramp_time = "0s"
rate_iops = 2000
[axes]
rw = ["randread", "read"]
bs = ["4k", "64k"]
iodepth = [1, 4, 8]
"""


def _write_plan(tmp_path, text: str, name: str = "plan.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_killed_twelve_point_plan_resumes_to_exactly_twelve_without_rerunning(tmp_path, iolab_home):
    plan = _write_plan(tmp_path, PLAN_12)
    target = tmp_path / "data"
    target.mkdir()
    argv = [sys.executable, "-m", "iolab", "run", str(plan), str(target), "--size", "32M", "--no-telemetry"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    db = iolab_home / "iolab.db"
    deadline = time.monotonic() + 120
    while True:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=5) as conn:
                    if conn.execute("SELECT COUNT(*) FROM points WHERE status = 'ok'").fetchone()[0] >= 5:
                        break
            except sqlite3.OperationalError:
                pass
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    store = open_store()
    before = {r.point.key: r.started_at for r in run_points(store, 1) if r.status == "ok"}
    assert len(before) >= 5

    again = iolab("run", str(plan), str(target), "--size", "32M", "--no-telemetry")  # same plan: resumes
    assert again.returncode == 0, again.stderr
    assert "resuming run 1" in again.stderr
    records = run_points(open_store(), 1)
    assert len(records) == 12 and all(r.status == "ok" for r in records)
    assert len({r.point.key for r in records}) == 12
    for record in records:
        if record.point.key in before:
            assert record.started_at == before[record.point.key]  # not run again
    assert get_run(open_store(), 1).status == "complete"
    assert json.loads(in_process.iolab("ls", "--json").stdout)[0]["id"] == 1  # no second run was made


def test_dry_run_lists_points_time_and_writes_without_running(tmp_path):
    plan = _write_plan(tmp_path, PLAN_12.replace("iodepth = [1, 4, 8]", "iodepth = [1]").replace('"read"]', '"write"]'))
    target = tmp_path / "data"
    target.mkdir()
    proc = iolab("run", str(plan), str(target), "--size", "32M", "--dry-run", "--allow-write")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count(" on ") == 4
    assert "4 points, estimated" in proc.stderr
    assert "scratch file" in proc.stderr and "removed afterwards" in proc.stderr
    assert json.loads(in_process.iolab("ls", "--json").stdout) == []  # nothing was recorded
    assert list(target.iterdir()) == []


def test_plan_errors_are_clear(tmp_path):
    bad = _write_plan(tmp_path, PLAN_12.replace("iodepth = [1, 4, 8]", "iodpeth = [1]"))
    assert "iodpeth" in assert_clean_error(iolab("run", str(bad), str(tmp_path), "--dry-run"))
    assert "no such plan file" in assert_clean_error(iolab("run", str(tmp_path / "none.toml")))
    assert "no preset" in assert_clean_error(iolab("run", "--preset", "nope", str(tmp_path)))


def test_repeats_are_separate_samples_with_snapshots_findings_and_telemetry(tmp_path):
    plan = _write_plan(
        tmp_path,
        PLAN_12.replace("iodepth = [1, 4, 8]", "iodepth = [4]")
        .replace('rw = ["randread", "read"]', 'rw = ["randread"]')
        .replace('bs = ["4k", "64k"]', 'bs = ["4k"]')
        .replace('name = "twelve"', 'name = "three"\nrepeat = 3')
        .replace('runtime = "1s"', 'runtime = "2s"'),
    )
    proc = iolab("run", str(plan), str(tmp_path), "--size", "32M", "--json")
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout)
    assert [p["repeat"] for p in shown["points"]] == [0, 1, 2]
    assert len({p["key"] for p in shown["points"]}) == 3
    store = open_store()
    assert run_snapshot(store, 1, "before")["kernel"] == os.uname().release
    assert run_snapshot(store, 1, "after") is not None
    findings = run_findings(store, 1)
    assert any(f.rule_id == "FIO-SHORT-RUN" for f in findings)  # 2 s runs are called out
    samples = point_samples(store, shown["points"][0]["id"])
    assert any(s.metric == "cpu.busy" for s in samples)
    assert any(s.metric == "bw" and s.source == "job1" for s in samples)


def test_diff_env_names_a_changed_setting(tmp_path):
    job = "[rr]\nrw=randread\nbs=4k\nrate_iops=2000\ntime_based=1\nruntime=1\n"  # the snapshots are the subject
    for _ in range(2):
        done = run_job(tmp_path, job, "--size", "32M", "--fresh", "--no-telemetry")
        assert done.returncode == 0, done.stderr
    store = open_store()
    # Other workers' loop devices come and go, and their files fill and empty shared file systems (/dev/shm,
    # /tmp), during the two runs on a shared host: not what is tested here, so every snapshot of both runs
    # keeps one device list and one file-system list.
    first = run_snapshot(store, 1, "before")
    for run_id in (1, 2):
        for phase in ("before", "after"):
            held = run_snapshot(store, run_id, phase)
            if held is not None:
                held["devices"], held["filesystems"] = first["devices"], first["filesystems"]
                store.save_snapshot(run_id, phase, held)
    same = in_process.iolab("diff-env", "1", "2")
    assert same.returncode == 0 and "No differences" in same.stdout, same.stdout
    snap = run_snapshot(store, 2, "before")
    snap["cmdline"] = snap["cmdline"] + " spec_rstack_overflow=safe-ret"
    store.save_snapshot(2, "before", snap)
    changed = in_process.iolab("diff-env", "1", "2")
    assert "spec_rstack_overflow=safe-ret" in changed.stdout


def test_metadata_preset_reports_create_stat_remove_rates(tmp_path):
    """(How close a run comes to its estimate is measured by bench/dryrun_accuracy.py; a wall-clock bound here
    failed on a loaded host.)"""
    from iolab.store.queries import open_scratch

    request = RunRequest(
        plan="metadata", settings={"threads": (1, 4), "runtime": 1}, targets=[str(tmp_path)], telemetry_interval=None
    )
    outcome = execute(request, open_store(), SilentProgress())
    assert outcome.status == "complete", outcome.failed
    records = run_points(open_store(), outcome.run_id)
    assert [r.point.name for r in records] == [f"{op}-j{n}" for n in (1, 4) for op in ("create", "stat", "remove")]
    for record in records:
        assert record.result is not None and record.result.directions["read"].iops > 0, record.point.name
    stat, remove = records[1].point.options, records[2].point.options
    assert stat["nrfiles"] == remove["nrfiles"]  # the files the create made, every one of them
    assert sorted(p.name for p in tmp_path.iterdir()) == ["iolab-home"]  # metadata directory removed
    recorded = open_store().conn.execute("SELECT kind, path FROM scratch WHERE kind != 'workdir'").fetchall()
    assert [kind for kind, _ in recorded] == ["dir"]  # no scratch file made, let alone written (fio's work
    # directories are recorded too, and removed: open_scratch below)
    assert open_scratch(open_store()) == []
    rules = {f.rule_id for f in outcome.findings}
    assert not rules & {"FIO-CACHE-SIZE", "FIO-SHORT-RUN", "FIO-BUFFERED", "RES-QD-PEAK", "RES-QD-KNEE"}, rules


@pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
def test_ssd_steady_on_a_loop_device_reports_its_window_or_the_cap():
    with loop_devices(1, size_mib=32) as (dev,):
        request = RunRequest(
            plan="ssd-steady",
            settings={"round_runtime": 1, "max_rounds": 6},
            targets=[dev.path],
            allow_write=True,
            telemetry_interval=None,
        )
        outcome = execute(request, open_store(), SilentProgress())
    steady = [f for f in outcome.findings if f.rule_id == "RES-STEADY-STATE"]
    assert len(steady) == 1
    assert steady[0].severity in (Severity.INFO, Severity.WARNING)
    assert ("steady in rounds" in steady[0].title) or ("not reached by round 6" in steady[0].title)
    rounds = [r for r in run_points(open_store(), outcome.run_id) if "round" in r.point.name]
    assert 5 <= len(rounds) <= 6
    assert [r.point.repeat for r in rounds] == list(range(len(rounds)))
    from iolab.views.run import load_run

    report = load_run(open_store(), outcome.run_id).report
    assert dict(report.facts)["steady state (rounds)"] == f"{steady[0].subject}: {steady[0].title}"


@pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
def test_adaptive_qd_sweep_on_a_loop_device_brackets_the_knee():
    with loop_devices(1, size_mib=64) as (dev,):
        request = RunRequest(
            plan="qd-sweep",
            settings={"adaptive": True, "runtime": 1, "ramp": 0, "max_qd": 32, "max_jobs": 4},
            targets=[dev.path],
            telemetry_interval=None,
        )
        outcome = execute(request, open_store(), SilentProgress())
    assert outcome.status == "complete", outcome.failed
    records = run_points(open_store(), outcome.run_id)
    depths = sorted({int(r.point.options["iodepth"]) for r in records})
    assert depths[0] == 1 and len(depths) >= 2
    assert all(d <= 32 for d in depths)
    # then more jobs, doubling from 2 while it pays, each at the power of two at least twice one job's knee
    # (recomputed here from the one-job points, not imported, so a wrong rule in the code fails this)
    for base in ("randread-4k", "seqread-128k"):
        mine = [r for r in records if r.point.name.startswith(base)]
        single = {
            int(r.point.options["iodepth"]): primary_metric(r.result)
            for r in mine
            if r.point.options.get("numjobs", "1") == "1"
        }
        plateau = statistics.median(sorted(single.values(), reverse=True)[:3])
        knee = min(qd for qd, v in single.items() if v >= 0.9 * plateau)
        each = min(32, next(2**k for k in range(9) if 2**k >= 2 * knee))
        more = [r for r in mine if r.point.options.get("numjobs", "1") != "1"]
        jobs = [r.point.options["numjobs"] for r in more if int(r.point.options["iodepth"]) == each]
        assert jobs and jobs == ["2", "4"][: len(jobs)]
        deeper = [r for r in more if int(r.point.options["iodepth"]) != each]
        assert len(deeper) <= 1 and all(int(r.point.options["iodepth"]) == min(32, 2 * each) for r in deeper)
        # the answers are findings of the run: one job's knee, and the best configuration measured
        best = max(mine, key=lambda r: primary_metric(r.result)).point.options
        peak = [f for f in outcome.findings if f.rule_id == "RES-QD-PEAK" and f.subject == base]
        assert len(peak) == 1 and f"at QD{best['iodepth']} x {best.get('numjobs', '1')} job" in peak[0].title
        assert peak[0].evidence["configurations measured"] == str(len(mine))
        # a knee needs three depths at one job; a host too busy for QD4 to pay stops the climb at two
        knee = [f for f in outcome.findings if f.rule_id == "RES-QD-KNEE" and f.subject == base]
        if len(single) >= 3:
            assert len(knee) == 1 and knee[0].title.startswith(f"{base}: queue-depth knee at QD ")
        else:
            assert knee == [], single


@pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
def test_qd_sweep_on_a_loop_device_gives_a_markdown_row_per_queue_depth_with_repeats(iolab_home):
    with loop_devices(1, size_mib=64) as (dev,):
        request = RunRequest(
            plan="qd-sweep",
            settings={"runtime": 1, "ramp": 0, "max_qd": 4},
            repeat=2,
            targets=[dev.path],
            telemetry_interval=None,
        )
        outcome = execute(request, open_store(), SilentProgress())
    assert outcome.status == "complete", outcome.failed
    md = in_process.iolab("report", str(outcome.run_id), "--format", "md")
    assert md.returncode == 0, md.stderr
    tables = [block for block in md.stdout.split("### Table ")[1:]]
    assert len(tables) == 2  # 4 KiB random and 128 KiB sequential read
    for table in tables:
        rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| iodepth")]
        assert [row.split("|")[1].strip() for row in rows] == ["1", "2", "4"]
        for row in rows:
            mbps = row.split("|")[2]
            assert "±" in mbps and mbps.strip().endswith("%)")  # mean ± stddev (COV)
            assert row.split("|")[-2].strip() == "2"  # repeats


def test_phases_drop_caches_and_run_pre_and_post_commands_around_each_point(tmp_path):
    marker = tmp_path / "marks"
    plan = _write_plan(
        tmp_path,
        PLAN_12.replace("iodepth = [1, 4, 8]", "iodepth = [2]").replace('bs = ["4k", "64k"]', 'bs = ["4k"]')
        + f"""
[phases]
drop_caches = true
pre_point = [["sh", "-c", "echo pre >> {marker}"]]
post_point = [["sh", "-c", "echo post >> {marker}"]]
""",
    )
    data = tmp_path / "data"
    data.mkdir()
    refused = iolab("run", str(plan), str(data), "--size", "32M", "--no-telemetry")
    assert refused.returncode == 2 and "before each point: sh -c" in refused.stderr and not marker.exists()
    proc = iolab("run", str(plan), str(data), "--size", "32M", "--no-telemetry", "--json", "--allow-commands")
    assert proc.returncode == 0, proc.stderr
    points = json.loads(proc.stdout)["points"]
    assert len(points) == 2
    assert marker.read_text().split() == ["pre", "post", "pre", "post"]
    store = open_store()
    assert store.artifact(points[0]["id"], "pre-command").startswith(b"sh -c")
    if os.geteuid() != 0:
        assert "could not drop the page cache" in proc.stderr


def test_a_failing_pre_point_command_fails_that_point_only(tmp_path):
    plan = _write_plan(
        tmp_path,
        PLAN_12.replace("iodepth = [1, 4, 8]", "iodepth = [2]").replace('bs = ["4k", "64k"]', 'bs = ["4k"]')
        + '\n[phases]\npre_point = [["false"]]\n',
    )
    data = tmp_path / "data"
    data.mkdir()
    proc = iolab("run", str(plan), str(data), "--size", "32M", "--no-telemetry", "--allow-commands")
    assert proc.returncode == 3
    assert "pre-point command failed: false" in proc.stderr


def test_latency_curve_and_adaptive_repeats_run_their_chosen_points(tmp_path):
    from dataclasses import replace as dc_replace

    from iolab.plan.presets import preset

    plan = preset("latency-curve", runtime=1, ramp=0, fractions=(0.5, 1.0))
    request = RunRequest(plan="latency-curve", targets=[str(tmp_path)], size=32 << 20, telemetry_interval=None)
    outcome = execute(request, open_store(), SilentProgress(), plan=plan)
    records = run_points(open_store(), outcome.run_id)
    rates = [int(r.point.options["rate_iops"]) for r in records if "rate_iops" in r.point.options]
    assert len(records) == 3 and len(rates) == 2  # the probe, then 50% and 100% of what it measured
    probe_iops = records[0].result.directions["read"].iops
    jobs = int(records[0].point.options.get("numjobs", "1"))
    assert rates[0] * jobs == pytest.approx(probe_iops * 0.5, rel=0.01, abs=jobs)

    quick = preset("quick", runtime=1, ramp=0)
    adaptive = dc_replace(quick, workloads=quick.workloads[-1:])
    adaptive.repeats = dc_replace(adaptive.repeats, count=2, adaptive=True, cov_target=0.0001, max_count=4)
    outcome = execute(
        RunRequest(plan="adaptive", targets=[str(tmp_path)], size=32 << 20, telemetry_interval=None),
        open_store(),
        SilentProgress(),
        plan=adaptive,
    )
    repeats = [r.point.repeat for r in run_points(open_store(), outcome.run_id)]
    assert repeats == [0, 1, 2, 3]  # a 0.01% CoV target is never met: the cap of 4 stops it


def test_a_job_that_asks_fio_for_steady_state_reports_whether_and_when_it_held(tmp_path):
    job = tmp_path / "ss.fio"
    job.write_text(
        "[steady]\nrw=randread\nbs=4k\nioengine=psync\nrate_iops=400\ntime_based=1\nruntime=6\nss=iops:50%\nss_dur=1\n"
    )
    target = tmp_path / "t"
    target.mkdir()
    request = RunRequest(plan=str(job), targets=[str(target)], size=8 << 20, telemetry_interval=None)
    outcome = execute(request, open_store(), SilentProgress())
    (record,) = run_points(open_store(), outcome.run_id)
    steady = record.result.steady
    assert steady is not None and steady.attained and steady.criterion.startswith("iops:50")
    assert steady.runtime_ms < 6000  # fio stopped once it held, before the 6 s asked
    assert abs(steady.runtime_ms - record.result.directions["read"].runtime_ms) <= 1  # fio's two clocks, 1 ms apart


def test_a_job_files_own_new_file_and_size_are_honoured_and_the_file_removed_afterwards(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    new = data / "mine.dat"
    job = tmp_path / "own.fio"
    job.write_text(
        "[global]\nioengine=libaio\nbs=4k\niodepth=4\ntime_based=1\nruntime=1\n"
        f"[w]\nfilename={new}\nsize=8m\nrw=randwrite\n"
        f"[r]\nstonewall\ndirectory={data}\nsize=4m\nrw=randread\n"
    )
    outcome = execute(RunRequest(plan=str(job), telemetry_interval=None), open_store(), SilentProgress())
    assert outcome.status == "complete", outcome.failed
    records = {r.point.name: r for r in run_points(open_store(), outcome.run_id)}
    assert records["w"].point.target.filename == str(new) and records["w"].point.target.size_bytes == 8 << 20
    assert records["w"].result.directions["write"].io_bytes > 0
    assert records["r"].point.target.size_bytes == 4 << 20  # the job's size, not a 2 GiB scratch file
    assert list(data.iterdir()) == []  # the new file and the scratch file are gone
    rows = open_store().conn.execute("SELECT path, removed_at IS NOT NULL FROM scratch ORDER BY id").fetchall()
    recorded = [tuple(row) for row in rows]
    assert (str(new), 1) in recorded and all(removed for _, removed in recorded)
