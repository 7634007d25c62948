"""`iolab lint`, `doctor`, `probe` as a user runs them: findings, exit codes, no tracebacks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
SEED_JOB = DATA / "jobs" / "seed003_seq_read.fio"
REPO = Path(__file__).resolve().parents[2]
IOLAB = str(Path(sys.executable).with_name("iolab"))


def run_iolab(*args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, IOLAB, *args], capture_output=True, text=True, timeout=60, cwd="/", check=False)


def test_lint_cli_prints_findings():
    proc = run_iolab("lint", str(SEED_JOB))
    assert proc.returncode == 0, proc.stderr
    for rule_id in ("FIO-SYNC-ENGINE-QD", "FIO-CACHE-SIZE", "FIO-FILE-TARGET"):
        assert rule_id in proc.stdout
    assert "FIO-BUFFERED" not in proc.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (("lint", "/nonexistent/job.fio"), "cannot read job file"),
        (("doctor", "--from", "/nonexistent/bundle.tar.gz"), "not found"),
        (("doctor", "--root", "/nonexistent/tree"), "not a directory"),
        (("doctor", "/nonexistent/target"), "name an existing"),
    ],
)
def test_bad_input_is_a_user_error(args, message):
    proc = run_iolab(*args)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_bad_bundle_is_a_user_error(tmp_path):
    junk = tmp_path / "junk.tar.gz"
    junk.write_text("not a tarball")
    proc = run_iolab("doctor", "--from", str(junk))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_doctor_on_this_machine_as_root_prints_findings():
    proc = run_iolab("doctor")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert " not evaluated" in proc.stdout and "critical," in proc.stdout


def _unprivileged_prefix() -> tuple[str, ...] | None:
    import os

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    probe = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", IOLAB, "--help"],
        capture_output=True,
        timeout=30,
        cwd="/",
        check=False,
    )
    return ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups") if probe.returncode == 0 else None


def test_doctor_as_unprivileged_user_never_tracebacks():
    prefix = _unprivileged_prefix()
    if prefix is None:
        pytest.skip("needs root and setpriv, and the venv readable by uid 65534, to drop privileges")
    proc = run_iolab("doctor", "--json", prefix=prefix)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    findings = json.loads(proc.stdout)
    assert {f["severity"] for f in findings} <= {"critical", "warning", "info", "not-evaluated"}


def test_probe_save_then_doctor_from_bundle(tmp_path):
    bundle = tmp_path / "host.tar.gz"
    proc = run_iolab("probe", "--save", str(bundle), "--json")
    assert proc.returncode == 0, proc.stderr
    live = json.loads(proc.stdout)
    offline = json.loads(run_iolab("probe", "--json", "--root", str(_extract(bundle, tmp_path / "tree"))).stdout)
    assert offline == live  # the bundle holds what the live snapshot read, even if the host changed since
    doctored = run_iolab("doctor", "--from", str(bundle), "--json")
    assert doctored.returncode == 0, doctored.stderr
    assert json.loads(doctored.stdout)


def _extract(bundle: Path, dest: Path) -> Path:
    import tarfile

    with tarfile.open(bundle) as tar:
        tar.extractall(dest, filter="data")
    return dest
