"""A test module that starts the iolab command is end-to-end, whatever it spells it as.

tests/conftest.py marks a module e2e by what it mentions (`E2E_USES`); a module that started `iolab` as
`Path(sys.executable).parent / "iolab"` matched none of it and ran in the unit tier, beside the unit tests
and without the e2e tier's isolation. This finds every way the suite starts the command and holds each
such module to the e2e mark.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import _is_e2e

TESTS = Path(__file__).parent
STARTS_IOLAB = re.compile(
    r'"-m",\s*"iolab"|executable\)\.(parent\s*/|with_name\()\s*"iolab"|tests\.iolab_cli|\[str\(command\)'
)


def test_every_module_that_starts_the_iolab_command_is_marked_e2e():
    modules = [p for p in sorted(TESTS.rglob("test_*.py")) if p != Path(__file__)]
    starters = [p for p in modules if STARTS_IOLAB.search(p.read_text(encoding="utf-8"))]
    assert len(starters) >= 10  # the suite's end-to-end CLI tests are found at all
    assert [p.relative_to(TESTS).as_posix() for p in starters if not _is_e2e(p)] == []


def test_the_spelling_that_slipped_through_is_caught():
    planted = 'command = Path(sys.executable).parent / "iolab"\nsubprocess.run([str(command), "ls"])\n'
    assert STARTS_IOLAB.search(planted)
