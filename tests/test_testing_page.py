"""docs/testing.md names only test files that exist, and names every directory of tests/.

Rows of the page once named files under the wrong directory or files since renamed, with nothing failing. A name
with a directory (`runner/test_x.py`, `tests/runner/test_x.py`, `tests/runner/`) sets the directory of the bare names after it
in its section (`test_y.py`); a bare name may also be at the top of tests/.
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
PAGE = TESTS.parent / "docs" / "testing.md"
NAMED = re.compile(r"(?<![\w/.])(?:tests/)?((?:\w+/)*)(test_\w+\.py)|tests/((?:\w+/)+)(?![\w.])")


def missing_files(text: str, tests: Path) -> list[str]:
    """Each test file the page names that is not there, as the page names it."""
    missing, directory = [], ""
    for line in text.splitlines():
        if line.startswith("#"):
            directory = ""
        for match in NAMED.finditer(line):
            directory = match.group(1) or match.group(3) or directory
            if match.group(2) and not any((tests / place / match.group(2)).is_file() for place in (directory, "")):
                missing.append(match.group(0))
    return missing


def unnamed_directories(text: str, tests: Path) -> list[str]:
    """Each directory of tests/ holding test modules that the page does not name as `tests/<dir>/`."""
    holding = sorted({p.parent.name for p in tests.glob("*/test_*.py")})
    return [name for name in holding if f"tests/{name}/" not in text]


def test_every_test_file_the_page_names_exists():
    assert missing_files(PAGE.read_text(), TESTS) == []


def test_every_test_directory_is_named():
    assert unnamed_directories(PAGE.read_text(), TESTS) == []


def test_a_wrong_name_and_an_unnamed_directory_are_found(tmp_path):
    (tmp_path / "runner").mkdir()
    (tmp_path / "runner" / "test_a.py").write_text("")
    (tmp_path / "test_top.py").write_text("")
    (tmp_path / "quiet").mkdir()
    (tmp_path / "quiet" / "test_q.py").write_text("")
    page = "## One\n`runner/test_a.py`, `test_b.py`, `test_top.py`\n## Two\n`test_a.py`, `tests/runner/`: `test_a.py`"
    assert missing_files(page, tmp_path) == ["test_b.py", "test_a.py"]
    assert unnamed_directories(page, tmp_path) == ["quiet"]
