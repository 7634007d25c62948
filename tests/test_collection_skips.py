"""The directories pytest does not walk (pyproject's `norecursedirs`) hold no tests.

The collection skips every directory named `data` or `artifacts` (1,100 real outputs it had walked seven times a
`make test`): a test module placed in one would never run, and nothing would say so."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def skipped_modules(tests: Path, patterns: list[str]) -> list[str]:
    """The test modules (`test_*.py`, `*_test.py`, `conftest.py`) under a directory of `tests` one of `patterns`
    names, as paths relative to `tests`."""
    found = []
    for module in [*tests.rglob("test_*.py"), *tests.rglob("*_test.py"), *tests.rglob("conftest.py")]:
        parts = module.relative_to(tests).parts[:-1]
        if any(fnmatch.fnmatch(part, pattern) for part in parts for pattern in patterns):
            found.append(module.relative_to(tests).as_posix())
    return sorted(found)


def test_no_test_module_sits_where_the_collection_does_not_walk():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["norecursedirs"]
    assert {"data", "artifacts"} <= set(patterns)
    assert skipped_modules(ROOT / "tests", patterns) == []


def test_a_module_under_a_data_directory_is_found(tmp_path):
    (tmp_path / "probe" / "data").mkdir(parents=True)
    (tmp_path / "probe" / "data" / "test_lost.py").write_text("def test_x():\n    pass\n")
    (tmp_path / "probe" / "test_kept.py").write_text("def test_y():\n    pass\n")
    assert skipped_modules(tmp_path, ["data"]) == ["probe/data/test_lost.py"]
