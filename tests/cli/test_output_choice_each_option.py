"""Which outputs a command writes for each combination of its output options (issue 41: `bench/mutation.py`
found `outputs` held only through commands that always gave a format or read the file, so a command given
only files to write, or `--png` alone, printing onto standard output too passed; and a report file that
cannot be written, naming the OS's reason, was run end to end only). Every combination of --format, -o,
--json, --html FILE and something else written is checked against the rule its docstring states."""

from __future__ import annotations

import itertools
import stat
from pathlib import Path

import pytest

from iolab.cli.output import Out, chosen, outputs, write_file
from iolab.errors import UserError

PAGE = Path("page.html")
OUT = Path("out.txt")


@pytest.mark.parametrize(
    ("fmt", "output", "as_json", "html", "elsewhere"),
    [
        c
        for c in itertools.product([None, "markdown", "json"], [None, OUT], [False, True], [None, PAGE], [False, True])
        if not (c[2] and c[0] == "markdown")
    ],
)
def test_the_chosen_format_is_printed_unless_only_files_or_something_else_were_asked_for(
    fmt, output, as_json, html, elsewhere
):
    wanted = outputs(fmt, output, as_json, {"html": html}, elsewhere=elsewhere)
    files = [Out("html", PAGE, "--html")] if html else []
    asked = fmt is not None or output is not None or as_json
    main = Out("json" if as_json else fmt or "text", output, default=fmt is None and not as_json)
    assert wanted == files + ([main] if asked or not (files or elsewhere) else [])


def test_json_and_another_format_are_two_formats_and_refused():
    assert chosen(None, False) == "text" and chosen(None, False, default="csv") == "csv"
    assert chosen("json", True) == "json" and chosen(None, True) == "json" and chosen("csv", False) == "csv"
    with pytest.raises(UserError, match="--json and --format csv ask for two formats: give one"):
        chosen("csv", True)


def test_a_report_written_whole_and_private_and_a_place_it_cannot_go_named_with_the_reason(tmp_path, capsys):
    target = tmp_path / "r.txt"
    write_file(target, "figures\n", "--html")
    assert target.read_text() == "figures\n" and stat.S_IMODE(target.stat().st_mode) == 0o600
    assert capsys.readouterr().err == f"wrote {target}\n"
    (tmp_path / "taken").mkdir()
    with pytest.raises(UserError) as refused:
        write_file(tmp_path / "taken", "x", "--html")
    said = f"cannot write the report to {tmp_path / 'taken'}: Is a directory; choose another --html"
    assert str(refused.value) == said
