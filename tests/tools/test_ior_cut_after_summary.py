"""An IOR report cut right after its "Summary of all tests" line (a copy stopped there, a full disk) is an
incomplete run, refused in one line, not a traceback reading the header line that is not there. Real output
(tests/data/ior) cut at that line; no fast test cut one there (fresh seed 84263 found `index + 1` turned
`index - 1` survived: it read past the last line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.tools import ior

DATA = Path(__file__).parent.parent / "data" / "ior"


@pytest.mark.parametrize("name", ["akrr-v30-ior-3.0.1.txt", "akrr-v33-ior-3.3.0.txt"])
def test_a_report_cut_right_after_its_summary_line_is_refused_as_unfinished(name):
    text = (DATA / name).read_text()
    at = text.index("Summary of all tests")
    cut = text[: text.index("\n", at)]  # the summary's own line is the last
    with pytest.raises(UserError, match="without a complete 'Summary of all tests'; did IOR finish"):
        ior.parse_text(cut, name)
