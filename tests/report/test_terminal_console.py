"""What reaches a terminal and what reaches a pipe or a file (issue 41 item 8): on a terminal, its width and
colours; elsewhere plain rows of PLAIN_WIDTH with no escape codes. `emit` decides by standard output being a
terminal and no --output given; a forced-terminal console shows the difference the fast tier never saw."""

from __future__ import annotations

import io
import re
import sys

import pytest

from iolab.models.finding import Finding, Severity
from iolab.report.formats import DOCTOR
from iolab.report.terminal import PLAIN_WIDTH, text_console

ESC = "\x1b["
FINDINGS = [Finding("RES-X", "results", Severity.CRITICAL, "a [b]bracketed[/b] title " + "long " * 40, "run 1")]


def test_a_terminal_console_has_the_terminal_s_width_and_colours_a_plain_one_neither(monkeypatch):
    monkeypatch.setenv("COLUMNS", "97")
    terminal = text_console(io.StringIO(), terminal=True)
    assert terminal.is_terminal and terminal.width == 97 and terminal.color_system is not None
    plain = text_console(io.StringIO(), terminal=False)
    assert not plain.is_terminal and plain.width == PLAIN_WIDTH and plain.color_system is None


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("tty", [True, False])
def test_emit_colours_only_standard_output_on_a_terminal_and_never_a_file(monkeypatch, tmp_path, tty):
    from iolab.cli.output import emit

    monkeypatch.setenv("COLUMNS", "120")
    out = _Tty() if tty else io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    emit(DOCTOR, FINDINGS, "text", None)
    shown = out.getvalue()
    assert (ESC in shown) is tty
    assert "[b]bracketed[/b]" in shown  # a finding's text is never read as markup
    widest = max(len(line) for line in re.sub(r"\x1b\[[0-9;]*m", "", shown).splitlines())
    assert widest <= 120 if tty else 120 < widest <= PLAIN_WIDTH  # wrapped at the terminal's width, else at 200
    written = tmp_path / "findings.txt"
    emit(DOCTOR, FINDINGS, "text", written)  # a file is never a terminal, whatever standard output is
    assert ESC not in written.read_text() and "bracketed" in written.read_text()
