"""An imported IOR, mdtest or IOzone result carries no error code (those tools print none; fio's `error` is
fio's alone): `show --json` says error 0 for every point of a real output, and no point is failed."""

from __future__ import annotations

import json
from pathlib import Path

from tests.in_process import iolab

DATA = Path(__file__).resolve().parents[1] / "data"


def test_an_imported_tool_result_has_no_error(tmp_path):
    """(One tool stands for the three: they build their results in one place, `tools.model`.)"""
    output = "mdtest/akrr-v1-mdtest-1.9.3.txt"
    env = {"IOLAB_HOME": str(tmp_path / "home")}
    assert iolab("import", str(DATA / output), env=env).returncode == 0
    points = json.loads(iolab("show", "1", "--json", env=env).stdout)["points"]
    assert points and all(p["status"] == "ok" and p["error"] == "" and p["result"]["error"] == 0 for p in points)
