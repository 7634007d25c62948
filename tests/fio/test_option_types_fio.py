"""Option types against the installed fio's own table, and the issue's examples through the `iolab` command
(moved from test_option_types.py, whose other tests need neither and now run in the fast tier)."""

from __future__ import annotations

import random
import re
import shutil
import subprocess

import pytest

from iolab.models.option_spec import FLOAT_LIST, INTEGER, ROWS, SIZE
from tests.iolab_cli import assert_clean_error, iolab

INTEGER_OPTIONS = {row.name: (row.low or 0, row.high) for row in ROWS if row.type == INTEGER}
SIZE_OPTIONS = {row.name for row in ROWS if row.type == SIZE}
FLOAT_LIST_OPTIONS = {row.name for row in ROWS if row.type == FLOAT_LIST}
SAMPLE = random.Random(39).sample(sorted(INTEGER_OPTIONS), 10) + ["rate", "nice", "size", "percentile_list"]


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
@pytest.mark.parametrize("name", SAMPLE)
def test_the_table_says_what_the_installed_fio_says(name):
    said = subprocess.run(["fio", f"--cmdhelp={name}"], capture_output=True, text=True, timeout=10, check=True).stdout
    kind = re.search(r"type: (.*?)\s*(\(opt=.*\))?$", said, re.M)
    assert kind is not None, said
    if name in INTEGER_OPTIONS:
        assert kind.group(1) == "integer value"
        low, high = (int(v) for v in re.search(r"range: min=(-?\d+), max=(-?\d+)", said).groups())
        assert INTEGER_OPTIONS[name] == (low, None if high == -1 else high)
    elif name in SIZE_OPTIONS:
        assert kind.group(1) == "(null)"
    else:
        assert kind.group(1).startswith("list of floating point values")


@pytest.mark.parametrize(
    ("file", "text", "said"),
    [
        ("job.fio", "[j]\nrw=read\nrate=1e400\n", "[j].rate: expected a whole number from 0"),
        ("plan.toml", '[[workloads]]\nname = "a"\n[workloads.options]\nrw = "read"\nbs = 1.5\n', "bs: expected a size"),
    ],
)
def test_the_issue_s_examples_are_exit_2_in_one_line(tmp_path, iolab_home, file, text, said):
    (tmp_path / file).write_text(text)
    (tmp_path / "d").mkdir()
    assert said in assert_clean_error(iolab("run", str(tmp_path / file), str(tmp_path / "d"), "--dry-run"))
