"""Multi-host runs through fio's client/server mode, on real fio servers at 127.0.0.x and a real sshd."""

from __future__ import annotations

import json
import math
import os
import re
import sqlite3
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from tests import in_process
from tests.cluster.servers import FIO, fio_servers, free_port, hostfile, kill_tree, local_sshd, processes_with, tree
from tests.iolab_cli import assert_clean_error, iolab
from tests.loopback import Loopback

ADDRESSES = ["127.0.0.31", "127.0.0.32", "127.0.0.33"]
# Two short points (1 s unless a test needs time to act during one); rate-capped so three hosts on two cores
# stay responsive.
PLAN = """[global]
ioengine=libaio
iodepth=4
bs=4k
time_based=1
runtime={runtime}
rate_iops=3000

[randread]
rw=randread

[randwrite]
rw=randwrite
stonewall
"""


def plan(tmp_path: Path, runtime: int = 1) -> Path:
    path = tmp_path / "plan.fio"
    path.write_text(PLAN.format(runtime=runtime))
    return path


def database(home: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(home / "iolab.db")
    conn.row_factory = sqlite3.Row
    return conn


def merged_p99(entries: list[dict], ddir: str) -> float:
    """p99 of every I/O of every host: bins summed, then the value at rank ceil(0.99 N) (fio's rule)."""
    bins: dict[int, int] = {}
    for entry in entries:
        for value, count in entry[ddir]["lat_ns"]["bins"].items():
            bins[int(value)] = bins.get(int(value), 0) + count
    rank, seen = math.ceil(0.99 * sum(bins.values())), 0
    for value in sorted(bins):
        seen += bins[value]
        if seen >= rank:
            return float(value)
    raise AssertionError("empty histogram")


def test_three_hosts_results_per_host_and_an_honest_aggregate(tmp_path, iolab_home):
    target = tmp_path / "shared"
    target.mkdir()
    with fio_servers(ADDRESSES) as (port, _):
        hosts = hostfile(tmp_path / "hosts", ADDRESSES, port)
        proc = iolab("run", str(plan(tmp_path)), str(target), "--hostfile", str(hosts), "--size", "32M", "--json")
        assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["run"]["status"] == "complete"
    assert [p["status"] for p in out["points"]] == ["ok", "ok"]
    for point in out["points"]:
        assert sorted(h["host"] for h in point["hosts"]) == ["h1", "h2", "h3"]
        assert all(h["status"] == "ok" and h["bw_bytes"] > 0 for h in point["hosts"])
    assert list(target.iterdir()) == [], "each host's scratch file is removed at the end"

    conn = database(iolab_home)
    for point in out["points"]:
        ddir = "read" if point["name"] == "randread" else "write"
        raw = conn.execute("SELECT data FROM artifacts WHERE point_id = ? AND name = 'fio.json'", (point["id"],))
        text = zlib.decompress(raw.fetchone()[0]).decode()
        doc = json.loads(text[text.index("\n{") + 1 :])
        hosts_entries = [e for e in doc["client_stats"] if e["jobname"] != "All clients"]
        all_clients = next(e for e in doc["client_stats"] if e["jobname"] == "All clients")[ddir]
        stored = point["result"]["directions"][ddir]
        # Sums and pooled mean equal fio's own "All clients" entry ...
        assert stored["total_ios"] == all_clients["total_ios"]
        assert stored["bw_bytes"] == sum(e[ddir]["bw_bytes"] for e in hosts_entries)
        assert stored["latency"]["mean_ns"] == pytest.approx(all_clients["lat_ns"]["mean"], rel=1e-6)
        # ... and p99 is that of the merged histograms (fio 3.33's "All clients" carries no percentiles).
        assert stored["latency"]["percentiles"]["99.0"] == merged_p99(hosts_entries, ddir)
        per_host = [h["p99_ns"] for h in point["hosts"]]
        assert stored["latency"]["percentiles"]["99.0"] <= max(per_host)
    snapshots = {row[0] for row in conn.execute("SELECT phase FROM snapshots")}
    assert {"before@h1", "before@h2", "before@h3", "after@h1"} <= snapshots
    data = json.loads(conn.execute("SELECT data FROM snapshots WHERE phase = 'before@h2'").fetchone()[0])
    assert data["fio_server"]["fio"].startswith("fio-") and data["source"] == "fio server probe"

    shown = in_process.iolab("show", str(out["run"]["id"]))
    assert "Per host" in shown.stdout and "h3" in shown.stdout


def test_this_host_s_network_is_the_wire_a_multi_host_run_shows(tmp_path, iolab_home):
    """fio's client/server mode sends jobs and results, not the I/O's data: on fio servers at 127.0.0.x
    the loopback carries what this host's network saw (here also 20 MB/s this test pushes through it);
    the hosts' CPUs and counters are not this host's, and the figures say so instead."""
    target = tmp_path / "shared"
    target.mkdir()
    with fio_servers(ADDRESSES[:2]) as (port, _), Loopback(20e6):
        hosts = hostfile(tmp_path / "hosts", ADDRESSES[:2], port)
        one_point = "[global]\nioengine=psync\nbs=4k\ntime_based=1\nruntime=1\n[randread]\nrw=randread\n"
        (tmp_path / "one.fio").write_text(one_point)
        proc = iolab("run", str(tmp_path / "one.fio"), str(target), "--hostfile", str(hosts), "--size", "32M")
        assert proc.returncode == 0, proc.stderr
    [point] = json.loads(in_process.iolab("report", "last", "-f", "json").stdout)["points"]
    side = point["side"]
    assert side["wire.lo.rx"]["value"] > 5e6 and side["wire.lo.tx"]["value"] > 5e6
    assert side["host_cpu_us_per_io"]["problem"] == "multi-host run: the hosts' CPUs are not sampled"
    assert side["perf"]["problem"] == "multi-host run: fio runs on the hosts, not on this one"
    assert side["fio_cpu_us_per_io"]["value"] > 0  # fio's own figure covers every host's jobs
    md = in_process.iolab("report", "last", "-f", "md").stdout
    assert " lo rx MB/s " in md
    assert "- **wire:** lo is this host" in md


def run_and_kill_h2(tmp_path: Path, *extra: str, come_back: bool = False) -> subprocess.CompletedProcess:
    """A two-point run on three hosts; h2's server and its jobs are killed during the first point
    (and, `come_back`, a new server started at its address right after, as a rebooted host would)."""
    target = tmp_path / "shared"
    target.mkdir()
    with fio_servers(ADDRESSES) as (port, servers):
        hosts = hostfile(tmp_path / "hosts", ADDRESSES, port)
        argv = [
            sys.executable,
            "-m",
            "iolab",
            "run",
            str(plan(tmp_path, runtime=4)),
            str(target),
            "--hostfile",
            str(hosts),
            "--size",
            "32M",
            "--json",
            *extra,
        ]
        run = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        victim = servers[ADDRESSES[1]].pid
        # The first point is running once h2's server has had a job process for a while (the
        # start-up probe's null job lives for a fraction of a second) and h2's scratch file exists.
        deadline, since = time.monotonic() + 60, None
        while time.monotonic() < deadline:
            busy = len(tree(victim)) >= 3 and any("h2" in p.name for p in target.iterdir())
            since = (since or time.monotonic()) if busy else None
            if since and time.monotonic() - since > 1.0:
                break
            time.sleep(0.1)
        else:
            run.kill()
            raise AssertionError("the first point never started on h2")
        kill_tree(victim)
        if come_back:
            servers[ADDRESSES[1]].wait()
            servers[ADDRESSES[1]] = subprocess.Popen(
                [FIO, f"--server={ADDRESSES[1]},{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        stdout, stderr = run.communicate(timeout=120)
    return subprocess.CompletedProcess(argv, run.returncode, stdout, stderr)


def test_a_host_killed_mid_run_is_marked_failed_and_the_others_are_kept(tmp_path, iolab_home):
    proc = run_and_kill_h2(tmp_path)
    # The run did not do all it was asked: exit 3, naming the host, after printing what it kept.
    assert proc.returncode == 3 and "Traceback" not in proc.stderr
    assert "host(s) failed during run" in proc.stderr and "h2: its fio server disconnected" in proc.stderr
    # h2 never answered again: its scratch file is named as left, the others' are gone.
    left = sorted(p.name for p in (tmp_path / "shared").iterdir())
    assert len(left) == 1 and "h2" in left[0], proc.stderr
    assert (
        "h2 did not answer, so its scratch files (if it made them) are left" in proc.stderr and left[0] in proc.stderr
    )
    out = json.loads(proc.stdout)
    assert out["run"]["status"] == "partial"
    first, second = out["points"]
    assert [p["status"] for p in out["points"]] == ["partial", "partial"]
    status = {h["host"]: h for h in first["hosts"]}
    assert status["h2"]["status"] == "failed" and "disconnected" in status["h2"]["error"]
    assert status["h1"]["status"] == status["h3"]["status"] == "ok"
    assert {h["host"]: h["status"] for h in second["hosts"]} == {"h1": "ok", "h2": "failed", "h3": "ok"}
    for point in (first, second):
        ddir = "read" if point["name"] == "randread" else "write"
        survivors = sum(h["bw_bytes"] for h in point["hosts"] if h["status"] == "ok")
        assert point["result"]["directions"][ddir]["bw_bytes"] == pytest.approx(survivors)
    assert any(f["rule_id"] == "HOSTS-FAILED" and f["subject"] == "h2" for f in out["findings"])


def test_a_host_that_answers_again_has_its_scratch_removed(tmp_path, iolab_home):
    proc = run_and_kill_h2(tmp_path, come_back=True)
    assert proc.returncode == 3 and "h2: its fio server disconnected" in proc.stderr, proc.stderr
    out = json.loads(proc.stdout)
    assert {h["host"]: h["status"] for h in out["points"][1]["hosts"]} == {"h1": "ok", "h2": "failed", "h3": "ok"}
    assert list((tmp_path / "shared").iterdir()) == [] and "scratch files are left" not in proc.stderr


def test_on_host_failure_stop_ends_the_run_and_keeps_the_point(tmp_path, iolab_home):
    proc = run_and_kill_h2(tmp_path, "--on-host-failure", "stop")
    assert proc.returncode == 3 and "Traceback" not in proc.stderr
    assert "--on-host-failure stop" in proc.stderr
    statuses = [row[0] for row in database(iolab_home).execute("SELECT status FROM points ORDER BY seq")]
    assert statuses == ["partial", "pending"]


def test_unreachable_host_is_reported_before_anything_runs(tmp_path, iolab_home):
    target = tmp_path / "shared"
    target.mkdir()
    with fio_servers(ADDRESSES[:2]) as (port, _):
        hosts = hostfile(tmp_path / "hosts", [*ADDRESSES[:2], "127.0.0.39"], port)
        proc = iolab("run", str(plan(tmp_path)), str(target), "--hostfile", str(hosts), "--size", "32M")
        message = assert_clean_error(proc)
        assert "h3: no fio server listens at 127.0.0.39" in message and "--skip-unreachable" in message
        assert (
            not (iolab_home / "iolab.db").exists()
            or database(iolab_home).execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0
        )

        proc = iolab(
            "run",
            str(plan(tmp_path)),
            str(target),
            "--hostfile",
            str(hosts),
            "--size",
            "32M",
            "--skip-unreachable",
            "--json",
        )
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert sorted(h["host"] for h in out["points"][0]["hosts"]) == ["h1", "h2"]
        assert "h3: left out" in proc.stderr


def test_different_fio_versions_are_refused(tmp_path, iolab_home):
    """The controller's fio says it is another version than the servers': nothing runs."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    real = subprocess.run(["which", "fio"], capture_output=True, text=True, check=False).stdout.strip()
    (bin_dir / "fio").write_text(
        f'#!/bin/sh\nif [ "$1" = --version ]; then echo fio-3.1; exit 0; fi\nexec {real} "$@"\n'
    )
    (bin_dir / "fio").chmod(0o755)
    target = tmp_path / "shared"
    target.mkdir()
    with fio_servers(ADDRESSES[:2]) as (port, _):
        hosts = hostfile(tmp_path / "hosts", ADDRESSES[:2], port)
        proc = iolab(
            "run",
            str(plan(tmp_path)),
            str(target),
            "--hostfile",
            str(hosts),
            env={"PATH": f"{bin_dir}:{os.environ['PATH']}"},
        )
    message = assert_clean_error(proc)
    assert "fio versions differ (this host: fio-3.1; h1: fio-3." in message


# fio 3.33's line when a job process of its server finds its client gone, as an `iolab agent`'s log showed it.
ASSERTION = "fio: server.c:2341: fio_server_send_start: Assertion `sk_out->sk != -1' failed."


def test_servers_started_over_ssh_are_stopped_afterwards(tmp_path, iolab_home):
    """...and what their logs said went wrong is in the run's notes: the server's fio here is a wrapper that
    prints the assertion line above, then runs the real server. Both sides have a TMPDIR of this test's own
    (`local_sshd`), and the server is known by the pid and the socket its wrapper recorded: nothing another
    xdist worker or user has in /tmp or in the process table is looked at."""
    target = tmp_path / "shared"
    target.mkdir()
    started = tmp_path / "started"  # the wrapper's pid (fio's, after exec) and its arguments
    wrapper = tmp_path / "fio-wrapper"
    wrapper.write_text(f'#!/bin/sh\necho "$$ $*" >{started}\ncat >&2 <<\'EOF\'\n{ASSERTION}\nEOF\nexec {FIO} "$@"\n')
    wrapper.chmod(0o755)
    with local_sshd(tmp_path / "ssh") as sshd:
        port = free_port("127.0.0.41")
        hosts = tmp_path / "hosts"
        hosts.write_text(f"remote ssh=iolab-test fio={wrapper}\n")  # started over ssh, on a Unix socket
        # A trap at the pid-file name older versions used (in the server's TMPDIR): never followed, never removed.
        victim = tmp_path / "victim"
        victim.write_text("keep me\n")
        trap = sshd.remote / f"iolab-fio-server-{port}.pid"
        trap.symlink_to(victim)
        proc = iolab(
            "run",
            str(plan(tmp_path)),
            str(target),
            "--hostfile",
            str(hosts),
            "--size",
            "32M",
            "--json",
            "-q",
            env=sshd.env,
        )
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert [h["host"] for h in out["points"][0]["hosts"]] == ["remote"]
        said = f"remote: its fio server reported: {ASSERTION}"
        assert f"note: {said}" in proc.stderr, proc.stderr  # what the run printed, even with -q (cron)
        (kept,) = database(iolab_home).execute("SELECT message FROM runs").fetchone()
        assert said in kept  # and what it stored with the run
        data = json.loads(
            database(iolab_home).execute("SELECT data FROM snapshots WHERE phase = 'before@remote'").fetchone()[0]
        )
        assert data["source"] in ("iolab probe", "minimal probe over ssh")
        assert data.get("kernel") or data.get("snapshot")
        # The server iolab started listened on a Unix socket (never on TCP) in a private directory of the
        # session's TMPDIR, and is gone again: no process runs with that socket, the pid it had is not it.
        pid, argument = started.read_text().split()
        socket_dir = re.fullmatch(
            rf"--server=sock:({re.escape(str(sshd.remote))}/iolab-fio-server\.\w{{10}})/fio.sock", argument
        )
        assert socket_dir, argument
        # The server is killed; a child it forked for a connection ends on its own a moment later (seen here:
        # one still there as the run returned, gone within seconds), so its end is waited for, not raced.
        deadline = time.monotonic() + 10.0
        while processes_with(argument) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert processes_with(argument) == []
        assert not Path(f"/proc/{pid}").exists() or argument.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
        # Its socket, pid file and log lived in that directory, removed with it; so did the controller's end
        # of the ssh forward (in the controller's TMPDIR). The trap is as it was.
        assert list(sshd.remote.iterdir()) == [trap] and list(sshd.local.iterdir()) == []
        assert trap.is_symlink() and victim.read_text() == "keep me\n"

        hosts.write_text("nowhere ssh=nobody@iolab-test\n")
        proc = iolab("run", str(plan(tmp_path)), str(target), "--hostfile", str(hosts), env=sshd.env)
        assert "nowhere: ssh nobody@iolab-test failed" in assert_clean_error(proc)
