"""bench/mutation.py's coverage map gives a line to the test whose fixture ran it (a mutant there is run
against that test, not reported "not covered")."""

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


def test_a_line_run_only_by_a_fixture_is_mapped_to_its_test(tmp_path: Path) -> None:
    test_file = tmp_path / "test_fixture_only.py"
    test_file.write_text(FIXTURE_ONLY)
    mapped = mutation._run_under_coverage(tmp_path / "map.json", [str(test_file)])
    body = next(
        n
        for n, line in enumerate((ROOT / "src/iolab/numbers.py").read_text().splitlines(), 1)
        if line.startswith("def whole(")
    )
    runners = {t for line, tests in mapped["numbers.py"].items() if line > body for t in tests}
    assert any(t.endswith("test_with_a_fixture") for t in runners), runners
