"""The issue's damaged IOzone output through `iolab import`: exit 2, one line (moved from
test_iozone_decimals.py, whose other tests need no command and now run in the fast tier)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.iolab_cli import assert_clean_error, iolab

FILES = sorted((Path(__file__).resolve().parents[1] / "data" / "iozone").glob("*.txt"))
DECIMAL = re.compile(r"(?<![\w.])[0-9]+\.[0-9]+(?![\w.])")


def test_the_issue_s_file_is_exit_2_through_the_command(tmp_path, iolab_home):
    damaged = tmp_path / "iozone.txt"
    damaged.write_text(DECIMAL.sub("1e400", FILES[0].read_text()))
    assert "is no version" in assert_clean_error(iolab("import", str(damaged)))
