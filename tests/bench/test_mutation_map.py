"""bench/mutation.py's coverage map gives a line to the test whose fixture ran it (a mutant there is run
against that test, not reported "not covered"); made by two processes side by side (`--coverage-shards`),
it holds the lines of both (two processes writing one data file kept only one's)."""

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

OTHER = """
from iolab.numbers import real


def test_real():
    assert real("1.5", "x") == 1.5
"""


def test_a_line_run_only_by_a_fixture_is_mapped_to_its_test_and_each_shard_s_lines_are_kept(tmp_path: Path) -> None:
    test_file, other = tmp_path / "test_fixture_only.py", tmp_path / "test_other.py"
    test_file.write_text(FIXTURE_ONLY)
    other.write_text(OTHER)
    assert len(mutation.dealt([str(test_file), str(other)], 2)) == 2
    mapped, times = mutation._run_under_coverage(tmp_path / "map.json", [str(test_file), str(other)], shards=2)
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
