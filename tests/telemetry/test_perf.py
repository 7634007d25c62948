"""`perf stat` on this host: its CSV read back, and every way it can be unavailable said in one line."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from iolab.telemetry.perf import EVENTS, parse_stat_csv, perf_problem

PERF = shutil.which("perf")
DURATION = "duration_time"  # perf's own count of how long it counted, in ns
needs_perf = pytest.mark.skipif(PERF is None, reason="perf is not installed (apt-get install linux-perf)")


@needs_perf
def test_perf_s_csv_is_read_back_with_what_it_could_not_count_as_none(tmp_path):
    """Software events count everywhere; a hardware one counts where the CPU's counters are exposed."""
    out = tmp_path / "perf.csv"
    done = subprocess.run(
        [PERF, "stat", "-a", "-x,", "-e", f"cpu-clock,cycles,{DURATION}", "-o", str(out), "--", "sleep", "0.3"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"perf stat -a is refused here: {done.stderr.strip()[-200:]}")
    counts = parse_stat_csv(out.read_text())
    assert set(counts) == {"cpu-clock", "cycles", DURATION}
    assert 0.25e9 <= (counts[DURATION] or 0) <= 2e9  # ns
    cpus = len(os.sched_getaffinity(0))
    assert 0.2e3 <= (counts["cpu-clock"] or 0) <= cpus * 2e3  # ms over every CPU
    assert counts["cycles"] is None or counts["cycles"] > 0  # `<not supported>` in a VM without a PMU


@needs_perf
def test_this_host_can_count_or_says_why_not():
    problem = perf_problem(PERF)
    assert problem is None or problem.startswith(("perf cannot count", "not permitted")), problem
    if problem is not None and "cannot count" in problem:
        assert all(event in problem for event in EVENTS)


@needs_perf
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root to drop to nobody")
def test_an_unprivileged_user_is_told_about_perf_event_paranoid(tmp_path):
    level = int(Path("/proc/sys/kernel/perf_event_paranoid").read_text())
    if level < 1:
        pytest.skip(f"perf_event_paranoid is {level}: anyone may count every CPU here")
    wrapper = tmp_path / "perf-as-nobody"
    wrapper.write_text(f'#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups {PERF} "$@"\n')
    wrapper.chmod(0o755)
    problem = perf_problem(str(wrapper), ("cpu-clock",))
    assert problem == (
        f"not permitted: kernel.perf_event_paranoid is {level}, and counting every CPU needs root, "
        "CAP_PERFMON or a setting of 0 or less"
    )


def test_perf_missing_or_unable_to_start_is_one_line():
    assert perf_problem(None) == (
        "perf is not installed (Debian: apt-get install linux-perf; Ubuntu: apt-get install linux-tools-$(uname -r))"
    )
    assert perf_problem("/nonexistent/perf").startswith("perf could not run: [Errno 2]")
