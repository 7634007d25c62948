"""`iolab compare` on real fio runs of a read-throttled loop device (root, cgroup-v1 blkio).

Three groups of four runs (ROUNDS), interleaved round by round so drift hits all of
them alike: A at 100 MiB/s, B at 90 MiB/s (10% slower), and A2 at 100 MiB/s
again. B against A must be "slower" with a CI that excludes no change;
A2 against A must never be called faster or slower.

Only the runs are processes of their own (each in the throttled cgroup); `tag`, `compare` and `ls` start no
fio, so they run in this process (tests.in_process: the same entry point and arguments, without an
interpreter's start for each of the twenty-odd commands).
"""

from __future__ import annotations

import json
import sys

import pytest

from tests.in_process import assert_clean_error, iolab
from tests.loopdev import blkio_cgroup, loop_devices

MIB = 1 << 20
ROUNDS = 4
JOB = "[seqread]\nrw=read\nbs=128k\niodepth=4\nioengine=libaio\ndirect=1\ntime_based=1\nruntime=1\nramp_time=0\n"


@pytest.fixture(scope="module")
def three_groups(tmp_path_factory) -> dict:
    """IOLAB_HOME holding runs tagged A, B and A2; returns the home and the per-run bandwidths asked for."""
    import os

    home = tmp_path_factory.mktemp("compare-home")
    job = tmp_path_factory.mktemp("jobs") / "seqread.fio"
    job.write_text(JOB)
    env = {**os.environ, "IOLAB_HOME": str(home)}
    groups = (("A", 100 * MIB), ("B", 90 * MIB), ("A2", 100 * MIB))
    with loop_devices(1, size_mib=64) as (dev,), blkio_cgroup() as cgroup:
        for _ in range(ROUNDS):
            for tag, bps in groups:
                cgroup.set_read_bps(dev.major_minor, bps)
                argv = [
                    sys.executable,
                    "-m",
                    "iolab",
                    "run",
                    str(job),
                    dev.path,
                    "--fresh",
                    "--quiet",
                    "--no-telemetry",
                ]
                proc = cgroup.popen(argv, stdout=-1, stderr=-1, text=True, env=env)
                _, err = proc.communicate(timeout=60)
                assert proc.returncode == 0, err
                tagged = iolab("tag", "last", tag, env={"IOLAB_HOME": str(home)})
                assert tagged.returncode == 0, tagged.stderr
    return {"IOLAB_HOME": str(home)}


def _only_workload(env: dict, a: str, b: str, *extra: str) -> tuple[dict, int]:
    proc = iolab("compare", a, b, "--json", *extra, env=env)
    assert proc.returncode in (0, 1), proc.stderr
    (row,) = json.loads(proc.stdout)["workloads"]
    return row, proc.returncode


def test_ten_percent_less_bandwidth_is_slower_with_a_ci_excluding_zero(three_groups):
    row, _ = _only_workload(three_groups, "tag:A", "tag:B")
    print(row["summary"])
    assert row["metric"] == "bw"
    assert len(row["a"]["values"]) == ROUNDS and len(row["b"]["values"]) == ROUNDS
    assert row["verdict"] == "slower"
    assert row["ci_low"] < row["ci_high"] < 0
    assert -0.15 < row["change"] < -0.05


def test_same_configuration_is_never_faster_or_slower(three_groups):
    row, _ = _only_workload(three_groups, "tag:A", "tag:A2")
    print(row["summary"])
    assert row["verdict"] in ("equivalent", "inconclusive")
    assert abs(row["change"]) < 0.05


def test_regression_gate_and_output_formats(three_groups):
    env = three_groups
    gate = iolab("compare", "tag:A", "tag:B", "--fail-on-regression", "5%", env=env)
    assert gate.returncode == 1 and "regression gate failed" in gate.stderr
    assert iolab("compare", "tag:A", "tag:B", "--fail-on-regression", "30%", env=env).returncode == 0
    assert iolab("compare", "tag:A", "tag:A2", "--fail-on-regression", "1%", env=env).returncode == 0
    text = iolab("compare", "tag:A", "tag:B", env=env)
    assert text.returncode == 0 and "slower" in text.stdout and "Host differences" in text.stdout
    md = iolab("compare", "tag:A", "tag:B", "--format", "md", env=env).stdout
    assert "| workload |" in md and "slower" in md
    # One run on each side: not enough for a verdict, and it says so.
    single, _ = _only_workload(env, "1", "2")
    assert single["verdict"] == "not evaluated"
    listed = iolab("ls", "--tag", "B", "--json", env=env)
    assert [r["tags"] for r in json.loads(listed.stdout)] == [["B"]] * ROUNDS
    assert_clean_error(iolab("compare", "tag:A", "tag:nope", env=env))
    assert_clean_error(iolab("compare", "tag:A", "999", env=env))
    assert_clean_error(iolab("compare", "tag:A", "tag:B", "--fail-on-regression", "lots", env=env))
