"""On a colour terminal the lines a command prints itself (not through a renderer) carry iolab's colours
only: `run --dry-run`'s points, writes, checks and summary are the same with Rich's highlighter switched off
(it would paint every number and path). FORCE_COLOR makes Rich treat the captured stream as a terminal."""

from __future__ import annotations

import re

from rich.highlighter import ReprHighlighter

from tests.in_process import iolab

ANSI = re.compile(r"\x1b\[[0-9;]*m")
SCRATCH = re.compile(r"iolab-scratch-[0-9a-f]+")  # a new random name each time


def _said(done) -> str:  # type: ignore[no-untyped-def]
    assert done.returncode == 0 and done.stderr.count("\n") >= 5, done.stderr
    return SCRATCH.sub("iolab-scratch-NAME", done.stderr)


def test_a_dry_run_on_a_colour_terminal_is_coloured_by_iolab_alone(tmp_path, monkeypatch):
    argv = ["run", "--dry-run", "--repeat", "2"]
    env = {"IOLAB_HOME": str(tmp_path / "home"), "FORCE_COLOR": "1", "COLUMNS": "200", "NO_COLOR": None}
    (tmp_path / "data").mkdir()
    coloured = _said(iolab(*argv, str(tmp_path / "data"), env=env))
    monkeypatch.setattr(ReprHighlighter, "highlight", lambda self, text: None)
    assert _said(iolab(*argv, str(tmp_path / "data"), env=env)) == coloured
