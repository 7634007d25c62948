"""IOzone's decimals (its version and its timer resolution) planted bad: refused in one line, never read past.

Issue 39: a real IOzone output whose decimals were all `1e400` imported (the version fell back to "iozone"
and the resolution was never read). Each real output under tests/data/iozone is mutated here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.tools import iozone

FILES = sorted((Path(__file__).resolve().parents[1] / "data" / "iozone").glob("*.txt"))
DECIMAL = re.compile(r"(?<![\w.])[0-9]+\.[0-9]+(?![\w.])")


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
@pytest.mark.parametrize("bad", ["1e400", "nan", "inf", "-1.0", "0.0", "x.y", "2.5"])
def test_every_decimal_planted_bad_is_refused(path, bad):
    text = path.read_text()
    assert len(DECIMAL.findall(text)) == 2  # the version and the time resolution
    with pytest.raises(UserError) as refused:
        iozone.parse(DECIMAL.sub(bad, text), path.name)
    assert "\n" not in str(refused.value) and path.name in str(refused.value)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_the_real_files_still_read_with_their_version(path):
    assert iozone.parse(path.read_text(), path.name).version.startswith("iozone-3.")
