"""Every option of the installed fio has a row in iolab's option table (moved from test_option_spec.py, whose
other tests need no fio and now run in the fast tier)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from iolab.fio.options import DATA_ENGINES
from iolab.models.option_spec import SPECS
from iolab.models.option_values import METADATA_ENGINES

_NAME = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*:", re.MULTILINE)


def _fio_names(*args: str) -> set[str]:
    out = subprocess.run(["fio", *args], capture_output=True, text=True, timeout=30, check=False).stdout
    return set(_NAME.findall(out))


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_every_option_of_the_installed_fio_is_classified():
    """A fio that grows an option fails here until the option is classified (an allowlist, not a denylist)."""
    names = _fio_names("--cmdhelp=all")
    assert len(names) > 150  # fio 3.33 lists 217; a parse that found nothing must not pass
    for engine in sorted(DATA_ENGINES | METADATA_ENGINES):
        names |= _fio_names(f"--enghelp={engine}") - {"IO engine"}
    missing = sorted(n for n in names if n not in SPECS)
    assert not missing, f"give these a row in iolab/models/option_spec.py: {missing}"
