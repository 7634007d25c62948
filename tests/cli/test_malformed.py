"""The malformed-input corpus (tests/data/malformed): every case a clean exit 2, never a traceback or a hang.

Each case runs iolab's real entry point (`main`) in a child forked from
this process, with the command tree built once before (`cli.click_command`),
so 700 cases cost seconds instead of one interpreter start each, and a case can neither hang the suite (the child and everything it
started are killed after 10 s) nor leave state behind (signal handlers,
working directory, open stores die with the child). Plans, job files and
host files are checked by `run --dry-run`, which expands and checks them
exactly as a run does without running fio. See generate.py there for
what each case breaks. A seeded sample also goes through the installed
command in a process of its own, as a user runs it.
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import signal
import sys
import time
import traceback
from pathlib import Path

import pytest

from iolab.cli import click_command, main
from tests.iolab_cli import assert_clean_error, iolab

CORPUS = Path(__file__).resolve().parents[1] / "data" / "malformed"
CASES = json.loads((CORPUS / "cases.json").read_text())
# A case that spins is stopped by its CPU limit (RLIMIT_CPU: SIGXCPU, a crash the test names); one that blocks
# by the wall clock. That is generous: the slowest case runs 1.2 s alone, but a loaded CI worker on two CPUs
# ran 5,000 sections past a 10 s wall clock (ci20, ci21), which timed the host and not iolab.
CPU_LIMIT_S = 20
LIMIT_S = 60
CRASHED = 99  # the child's exit code when something escaped main()


def _child(argv: list[str], cwd: Path, stderr: Path) -> None:
    """Runs `iolab ARGV` as the forked child and never returns: its exit code is iolab's."""
    code = CRASHED
    try:
        os.setpgid(0, 0)  # so the parent can kill whatever this case starts
        _confine()
        os.chdir(cwd)
        fd = os.open(stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 2)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        sys.stderr = open(2, "w", closefd=False)  # pytest's capture objects stand in for them here
        sys.stdout = open(1, "w", closefd=False)
        sys.argv = ["iolab", *argv]
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            sys.stderr.write(traceback.format_exc())
            code = CRASHED
        sys.stderr.flush()
        sys.stdout.flush()
    finally:
        os._exit(code)


def _confine() -> None:
    """Caps the child's memory, file sizes and CPU so a case that gets past the checks cannot hurt the machine."""
    gib = 1 << 30
    resource.setrlimit(resource.RLIMIT_AS, (4 * gib, 4 * gib))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT_S, CPU_LIMIT_S))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large write fails with EFBIG instead of killing


def _run(argv: list[str], cwd: Path) -> tuple[int | None, str, float]:
    """(exit code or None when killed for taking too long, stderr, seconds) of `iolab ARGV`."""
    stderr = cwd / "stderr.txt"
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        _child(argv, cwd, stderr)
    code: int | None = None
    while time.monotonic() - started < LIMIT_S:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            break
        time.sleep(0.01)
    else:
        _kill_group(pid)
    seconds = time.monotonic() - started
    _kill_group(pid)  # anything the case left running
    return code, stderr.read_text(errors="replace") if stderr.exists() else "", seconds


def _kill_group(pid: int) -> None:
    """SIGKILL the case's process group and reap its leader."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


@pytest.fixture(scope="module", autouse=True)
def _loaded_before_forking() -> None:
    """What every case would load again in its child, loaded once here: the modules the commands of the
    corpus import (each of them imported by more than a few cases, found by listing what each case's child
    added to sys.modules), and fio's option catalogue (`fio --cmdhelp`, cached per process). Forked children
    inherit both. The import command's modules, left to the children, were half of their CPU time (200 cases:
    10-12 s of children's CPU before, 6.3-6.5 s after)."""
    import importlib

    from iolab.fio import catalog

    click_command()  # typer's command tree: ~50 ms a case when each child built it again
    for module in (
        "iolab.runner.dryrun",
        "iolab.runner.execute",
        "iolab.plan.schema",  # pydantic: most of a child's own time before this
        "iolab.plan.planfile",
        "iolab.report.terminal",
        "iolab.report.formats",
        "iolab.views.run",
        "iolab.cluster.cluster",
        "iolab.views.history",
        "iolab.imports",  # 410 cases import a file: its readers, tools' parsers and multiprocessing
        "iolab.cli.import_progress",
        "typer._click.decorators",
        "encodings.utf_8_sig",
        "orjson",
        "_strptime",
    ):
        importlib.import_module(module)

    if shutil.which("fio") is not None:
        catalog.job_option_names()
        for engine in ("libaio", "psync", "sync", "io_uring", "null", "filecreate", "filestat", "filedelete"):
            catalog.engine_option_names(engine)


def test_the_corpus_is_large_and_matches_its_generator():
    files = sorted(p.name for p in (CORPUS / "cases").iterdir())
    assert sorted(c["file"] for c in CASES if c["file"]) == files
    assert len(CASES) >= 500
    assert all(c["expect"] in ("error", "accepted") for c in CASES)


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (job files are checked against it)")
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_malformed_input_is_a_clean_exit_2(case, tmp_path, monkeypatch):
    monkeypatch.setenv("IOLAB_HOME", str(tmp_path / "home"))
    target = tmp_path / "target"
    target.mkdir()
    (target / "plan.toml").mkdir()  # a plan path that is a directory
    file = str(CORPUS / "cases" / case["file"]) if case["file"] else ""
    argv = [a.replace("{file}", file).replace("{dir}", str(target)) for a in case["argv"]]
    code, stderr, seconds = _run(argv, tmp_path)
    assert code is not None, f"{case['why']}: still running after {LIMIT_S} s"
    assert "Traceback" not in stderr and code != CRASHED, f"{case['why']}: {stderr}"
    lines = [line for line in stderr.splitlines() if line.strip()]
    stderr = stderr if len(stderr) < 400 else stderr[:400] + "..."
    if case["expect"] == "accepted":  # valid after all (a field iolab does not read): taken without fuss
        assert code == 0, f"{case['why']}: exit {code}: {stderr}"
        return
    assert code == 2, f"{case['why']}: exit {code}: {stderr}"
    assert 1 <= len(lines) <= 2, f"{case['why']}: {len(lines)} lines: {stderr}"


# The examples of issue 30 (item 9), each a case above: a traceback or an acceptance before.
ISSUE_EXAMPLES = {
    "jobs.0.read.iops = 100000000000...": "error",  # 10^400 in fio JSON: OverflowError in fio/validate.py
    "IOR v33 summary without its Test# column": "error",  # KeyError
    "IOR v33 summary Test# = 1e999": "error",  # OverflowError
    "byte-order mark": "accepted",  # was "not valid TOML"
    "target_ci a word": "error",  # passed a dry run
    "rw suffix negative": "error",  # rw = "read:-5" passed a dry run
    "export window negative": "error",  # export --window -5d was accepted
}


def test_the_issues_examples_are_in_the_corpus():
    found = {c["why"]: c["expect"] for c in CASES}
    assert {why: found.get(why) for why in ISSUE_EXAMPLES} == ISSUE_EXAMPLES


# Cases that go through the real `iolab` command too (a process each: ~0.5 s), drawn with a fixed seed.
SAMPLE = random.Random(30).sample([c for c in CASES if c["expect"] == "error"], 12)


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (job files are checked against it)")
@pytest.mark.parametrize("case", SAMPLE, ids=[c["id"] for c in SAMPLE])
def test_a_sample_through_the_installed_command(case, tmp_path, monkeypatch):
    monkeypatch.setenv("IOLAB_HOME", str(tmp_path / "home"))
    target = tmp_path / "target"
    target.mkdir()
    file = str(CORPUS / "cases" / case["file"]) if case["file"] else ""
    argv = [a.replace("{file}", file).replace("{dir}", str(target)) for a in case["argv"]]
    assert_clean_error(iolab(*argv, cwd=tmp_path, timeout=60), 2)
