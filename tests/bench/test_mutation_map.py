"""bench/mutation.py's coverage map gives a line to the test whose fixture ran it (a mutant there is run
against that test, not reported "not covered"); made by two processes side by side (`--coverage-shards`),
it holds the lines of both (two processes writing one data file kept only one's); a shard killed by a signal
is named lost, not taken for a shard that ran no line."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import mutation  # noqa: E402

FIXTURE_ONLY = """
import pytest

from iolab.numbers import whole


@pytest.fixture
def twelve():
    return whole("12", "x")


def test_with_a_fixture(twelve):
    assert twelve == 12
"""

KILLED = """
import os
import signal

from iolab.numbers import whole


def test_that_ends_its_process():
    assert whole("3", "x") == 3
    os.kill(os.getpid(), signal.SIGKILL)
"""

OTHER = """
from iolab.numbers import real


def test_real():
    assert real("1.5", "x") == 1.5
"""


def test_a_line_run_only_by_a_fixture_is_mapped_to_its_test_and_each_shard_s_lines_are_kept(tmp_path: Path) -> None:
    test_file, other, killed = (
        tmp_path / "test_fixture_only.py",
        tmp_path / "test_other.py",
        tmp_path / "test_killed.py",
    )
    test_file.write_text(FIXTURE_ONLY)
    other.write_text(OTHER)
    killed.write_text(KILLED)
    files = [str(test_file), str(other), str(killed)]
    assert len(mutation.dealt(files, 3)) == 3
    mapped, times, lost = mutation._run_under_coverage(tmp_path / "map.json", files, shards=3)
    body = next(
        n
        for n, line in enumerate((ROOT / "src/iolab/numbers.py").read_text().splitlines(), 1)
        if line.startswith("def whole(")
    )
    runners = {t for line, tests in mapped["numbers.py"].items() if line > body for t in tests}
    assert any(t.endswith("test_with_a_fixture") for t in runners), runners
    assert any(t.endswith("test_real") for tests in mapped["numbers.py"].values() for t in tests)
    # each test timed, in whichever shard ran it: the bench runs a mutant's covering tests fastest first
    assert {t.rpartition("::")[2] for t in times} == {"test_with_a_fixture", "test_real"}, times
    # a shard killed by a signal saved no lines (coverage.py writes its data as a process exits): its files are
    # named lost, so the map maps them again next time, and the other shards' lines are kept
    assert lost == {str(killed)}
    assert not any(
        t.endswith("test_that_ends_its_process") for lines in mapped.values() for ts in lines.values() for t in ts
    )
