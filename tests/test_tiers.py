"""A test is end to end by what it uses (tests/tiers.py, applied by tests/conftest.py), not by its file's words.

The file used to be marked whole when any trigger word appeared anywhere in it, a docstring too: the fast tests
beside one real-fio test, or under a docstring that said `which("fio")`, ran only in the end-to-end tier, so
bench/mutation.py's fast-tier map never counted them. And a module that started `iolab` as
`Path(sys.executable).parent / "iolab"` had matched no word and ran in the unit tier: every spelling the suite
uses to start the command must still make its test end to end.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace

from tests import tiers
from tests.conftest import _is_e2e

TESTS = Path(__file__).parent
STARTS_IOLAB = re.compile(
    r'"-m",\s*"iolab"|executable\)\.(parent\s*/|with_name\()\s*"iolab"|from tests\.iolab_cli import[^\n]*\biolab\b'
    r'|\[str\(command\)|"-c",\s*"from iolab\.cli import main'
)

MIXED = '''
"""A docstring that says which("fio"), requires_fio, loopdev, chromium and sshd: words, not uses."""
import subprocess
import sys

import pytest

from tests.iolab_cli import assert_clean_error, iolab

requires_fio = pytest.mark.skipif(False, reason="fio is not installed")


def _helper():
    return iolab("ls")


@pytest.fixture
def through_a_helper():
    return _helper()


class Case:
    def world(self):
        return subprocess.run([sys.executable, "-m", "iolab", "ls"])

    def name(self):
        return "plain"


def test_fast_beside_real_ones():
    """Not even when I say loopdev here."""
    assert assert_clean_error  # a checker of a finished process is not the command


@requires_fio
def test_marked():
    pass


def test_calls_the_command_through_a_helper():
    _helper()


def test_fixture_that_runs_the_command(through_a_helper):
    pass


def test_a_method_that_runs_nothing_real():
    assert Case().name() == "plain"


def test_a_method_that_starts_the_command():
    Case().world()


def test_a_parameter_named_like_a_real_helper(iolab=None):
    assert iolab is None
'''


def _judged(tmp_path: Path) -> dict[str, bool]:
    path = tmp_path / "test_mixed.py"
    path.write_text(MIXED)
    tree = ast.parse(MIXED)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            fixtures = [(path, a.arg, 0) for a in node.args.args if a.arg == "through_a_helper"]
            line = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out[node.name] = tiers.is_end_to_end(path, node.name, line, None, fixtures)
    return out


def test_each_test_is_judged_by_what_it_uses_not_by_its_file_s_words(tmp_path):
    assert _judged(tmp_path) == {
        "test_fast_beside_real_ones": False,
        "test_marked": True,
        "test_calls_the_command_through_a_helper": True,
        "test_fixture_that_runs_the_command": True,
        "test_a_method_that_runs_nothing_real": False,
        "test_a_method_that_starts_the_command": True,
        "test_a_parameter_named_like_a_real_helper": False,
    }


def test_a_module_pytestmark_makes_every_test_of_the_module_end_to_end(tmp_path):
    path = tmp_path / "test_marked_module.py"
    path.write_text(
        "import shutil\nimport pytest\n"
        "pytestmark = pytest.mark.skipif(shutil.which('fio') is None, reason='no fio')\n"
        "def test_x():\n    pass\n"
    )
    assert tiers.is_end_to_end(path, "test_x", 4, None, [])


def test_the_suite_s_mixed_file_is_marked_test_by_test():
    """tests/plan/test_plan_check_cli.py starts the command in a fresh interpreter in one test only."""
    from tests.plan import test_plan_check_cli as module

    def item(function):
        return SimpleNamespace(
            function=function, fixturenames=[], _fixtureinfo=SimpleNamespace(name2fixturedefs={}), cls=None, path=""
        )

    assert _is_e2e(item(module.test_real_command_exits_2_without_traceback))
    assert not _is_e2e(item(module.test_empty_axis_is_named))


def test_every_definition_that_starts_the_iolab_command_is_end_to_end():
    """Each spelling the suite uses to start the command, wherever a module-level function, class or fixture
    holds it, is judged a use."""
    found = 0
    for path in sorted(TESTS.rglob("*.py")):
        if path in (Path(__file__), Path(tiers.__file__)):  # these two spell the spellings out
            continue
        text = path.read_text(encoding="utf-8")
        if not STARTS_IOLAB.search(text):
            continue
        lines = text.splitlines()
        for node in ast.parse(text).body:
            source = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and STARTS_IOLAB.search(source):
                found += 1
                assert tiers.reaches_something_real(path, node.name), f"{path.relative_to(TESTS)}: {node.name}"
    assert found >= 10  # the suite's end-to-end CLI tests are found at all


def test_the_spelling_that_slipped_through_is_caught(tmp_path):
    path = tmp_path / "test_planted.py"
    path.write_text(
        "import subprocess, sys\nfrom pathlib import Path\n"
        "def test_x():\n"
        '    command = Path(sys.executable).parent / "iolab"\n'
        '    subprocess.run([str(command), "ls"])\n'
    )
    assert tiers.is_end_to_end(path, "test_x", 3, None, [])
