"""The malformed-input corpus (tests/data/malformed): every case a clean exit 2, never a traceback or a hang.

Each case runs iolab's real entry point (`main`) in a child forked, with the command tree built once before,
from a small server process (tests/cli/malformed_forks.py), so 700 cases cost seconds instead of one
interpreter start each, and a case can neither hang the suite (the child and everything it started are
killed after 60 s) nor leave state behind (signal handlers, working directory, open stores die with the
child). Plans, job files and host files are checked by `run --dry-run`, which expands and checks them
exactly as a run does without running fio. See generate.py there for what each case breaks. A seeded
sample also goes through the installed command in a process of its own, as a user runs it.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.malformed_forks import CRASHED, LIMIT_S, Forks
from tests.iolab_cli import assert_clean_error, iolab

CORPUS = Path(__file__).resolve().parents[1] / "data" / "malformed"
CASES = json.loads((CORPUS / "cases.json").read_text())
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def forks() -> Iterator[Forks]:
    """The fork server, one for the module's cases."""
    server = Forks(ROOT)
    yield server
    server.close()


def test_the_corpus_is_large_and_matches_its_generator():
    files = sorted(p.name for p in (CORPUS / "cases").iterdir())
    assert sorted(c["file"] for c in CASES if c["file"]) == files
    assert len(CASES) >= 500
    assert all(c["expect"] in ("error", "accepted") for c in CASES)


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (job files are checked against it)")
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_malformed_input_is_a_clean_exit_2(case, forks, tmp_path, monkeypatch):
    monkeypatch.setenv("IOLAB_HOME", str(tmp_path / "home"))
    target = tmp_path / "target"
    target.mkdir()
    (target / "plan.toml").mkdir()  # a plan path that is a directory
    file = str(CORPUS / "cases" / case["file"]) if case["file"] else ""
    argv = [a.replace("{file}", file).replace("{dir}", str(target)) for a in case["argv"]]
    code, stderr, seconds = forks.run(argv, tmp_path)
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
