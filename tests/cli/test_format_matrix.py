"""Every command that prints, in every format: it renders (JSON that parses, CSV with a header and rows of
its width, a whole HTML page, ...) or refuses in one line, exit 2, naming formats that do work.

The commands and the formats are read from the command tree and `report.formats.FORMATS`, not listed
here: a command given `--format` later, or a format added, is in the matrix at once. Only the words that
fill each command's arguments are named below, by the argument's name (a new argument fails
`test_every_argument_has_words` until it has some). Each command runs through iolab's real entry point
(`main`) on a store of two imported real fio outputs with this host's snapshot; `run` runs real fio.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from iolab.cli import click_command, main
from iolab.report.formats import ALIASES, FORMATS, VIEWS, renders
from tests.iolab_cli import iolab

FIO_JSON = Path(__file__).resolve().parents[1] / "data" / "fio" / "randread-4jobs.json"
JOB = "[r]\nrw=randread\nbs=4k\nsize=4M\nruntime=1\ntime_based=1\nioengine=psync\n"
# The words that fill each argument, by its name ({job}, {data}: a job file and a directory made here).
ARGUMENT_WORDS: dict[str, list[str]] = {
    "args": ["{job}", "{data}"],  # run: a one-second job on a directory
    "runs": ["1", "2"],  # report
    "run": ["2"],  # show
    "selection_a": ["1"],  # compare
    "selection_b": ["2"],
    "run_a": ["1"],  # diff-env
    "run_b": ["2"],
    "jobfile": ["{job}"],  # lint
    "targets": [],  # probe, doctor: the whole host
    "old_json_file": [],  # export's `--json FILE` of before (tested in test_history_cli)
}
OPTION_WORDS = {("run",): ["--no-telemetry", "--quiet", "--size", "4M"]}  # a run kept short and quiet


def _commands(command, path=()):
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


PRINTING = sorted(path for path, c in _commands(click_command()) if any(p.name == "fmt" for p in c.params))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A store with two runs of the same workload (a second import of the same output, one byte apart), each
    with this host's snapshot; a job file and a directory for `run` and `lint`."""
    place = tmp_path_factory.mktemp("formats")
    home = place / "home"
    again = place / "again.json"
    again.write_text(FIO_JSON.read_text() + "\n")
    for path in (FIO_JSON, again):
        assert iolab("import", "--snapshot", str(path), env={"IOLAB_HOME": str(home)}).returncode == 0
    (place / "job.fio").write_text(JOB)
    (place / "data").mkdir()
    return place


def _argv(lab: Path, path: tuple[str, ...], fmt: str) -> list[str]:
    words = [w for p in _params(path) if p.param_type_name == "argument" for w in ARGUMENT_WORDS[p.name]]
    filled = [w.format(job=lab / "job.fio", data=lab / "data") for w in words]
    return [*path, *filled, *OPTION_WORDS.get(path, []), "--format", fmt]


def _params(path: tuple[str, ...]):
    command = click_command()
    for name in path:
        command = command.commands[name]
    return command.params


def _invoke(argv: list[str], capsys, monkeypatch) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.argv", ["iolab", *argv])
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    out = capsys.readouterr()
    return code, out.out, out.err


def _csv(text: str) -> bool:
    """A header, and every row as wide as it (a listing with nothing to list is its header alone)."""
    rows = list(csv.reader(io.StringIO(text)))
    return bool(rows and rows[0]) and all(len(row) == len(rows[0]) for row in rows)


def _prometheus(text: str) -> bool:
    samples = [line for line in text.splitlines() if line and not line.startswith("#")]
    return bool(samples) and all(re.fullmatch(r"[a-zA-Z_:][\w:]*(\{.*\})? \S+", line) for line in samples)


def _json(text: str) -> bool:
    json.loads(text)
    return True


VALID = {
    "text": lambda text: bool(text.strip()),
    "markdown": lambda text: bool(text.strip()),
    "json": _json,
    "csv": _csv,
    "html": lambda text: text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>"),
    "prometheus": _prometheus,
}


def test_every_format_has_a_check_and_every_argument_has_words():
    assert set(VALID) == set(FORMATS)
    named = {p.name for path in PRINTING for p in _params(path) if p.param_type_name == "argument"}
    assert named <= set(ARGUMENT_WORDS), named - set(ARGUMENT_WORDS)
    assert len(PRINTING) >= 11, PRINTING  # run show report compare history export ls diff-env probe doctor lint


def test_one_output_vocabulary_on_every_command_that_prints():
    """--format, -o/--output and --json (the same as --format json), each meaning the same everywhere."""
    for path in PRINTING:
        options = {p.name: p for p in _params(path)}
        assert options["fmt"].opts == ["--format", "-f"], path
        assert options["output"].opts == ["--output", "-o"], path
        assert options["as_json"].opts == ["--json"] and options["as_json"].is_flag, path


@pytest.mark.skipif(shutil.which("fio") is None, reason="run needs fio")
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_run_renders_a_format_or_refuses_naming_one_that_works(fmt, lab, capsys, monkeypatch):
    """`run` starts fio: here; every other printing command in tests/cli/test_format_matrix_in_process.py."""
    renders_or_refuses(("run",), fmt, lab, capsys, monkeypatch)


def renders_or_refuses(path: tuple[str, ...], fmt: str, lab: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The command renders the format (a whole, valid document of its kind), or refuses it in one line, exit 2,
    naming a format it does write (and that one renders)."""
    monkeypatch.setenv("IOLAB_HOME", str(lab / "home"))
    monkeypatch.chdir(lab)
    code, out, err = _invoke(_argv(lab, path, fmt), capsys, monkeypatch)
    if code == 0:
        assert VALID[fmt](out), (fmt, out[:400])
        return
    assert code == 2, (code, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    named = re.search(r"cannot write .*: choose one of ([a-z, ]+)$", lines[0])
    assert named, lines[0]
    works = named[1].split(", ")[0]
    assert works != fmt and works in FORMATS
    code, out, err = _invoke(_argv(lab, path, works), capsys, monkeypatch)
    assert code == 0 and VALID[works](out), (works, err)


def test_an_old_format_name_is_the_new_one(lab, capsys, monkeypatch):
    monkeypatch.setenv("IOLAB_HOME", str(lab / "home"))
    for old, new in ALIASES.items():
        assert _invoke(["show", "2", "-f", old], capsys, monkeypatch) == _invoke(
            ["show", "2", "-f", new], capsys, monkeypatch
        )


def test_report_html_is_the_same_page_by_either_option(lab, capsys, monkeypatch):
    monkeypatch.setenv("IOLAB_HOME", str(lab / "home"))
    page = lab / "page.html"
    code, printed, _ = _invoke(["report", "1", "2", "--format", "html"], capsys, monkeypatch)
    assert code == 0 and _invoke(["report", "1", "2", "--html", str(page)], capsys, monkeypatch)[0] == 0
    assert page.read_text() == printed
    assert 'id="comparison-1-2"' in printed  # the runs' comparison follows the runs in both


def test_pairs_counted():
    """Which formats render which view (docs/output-formats.md's table): 9 views, 6 formats."""
    pairs = {(view.name, fmt) for fmt in FORMATS for view in VIEWS if view.name in renders(fmt)}
    assert len(VIEWS) == 9 and len(pairs) >= 34, sorted(pairs)
    assert {view.name for view in VIEWS} == {name for fmt in FORMATS for name in renders(fmt)}


def test_the_docs_table_is_the_renderers():
    """docs/output-formats.md's table says for each view and format what `RENDERS` holds."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "output-formats.md").read_text()
    header = "| view | commands | " + " | ".join(FORMATS) + " |"
    rows = doc[doc.index(header) :].split("\n\n")[0].splitlines()[2:]
    table = {row.split("|")[1].strip(): [c.strip() for c in row.split("|")[3:-1]] for row in rows}
    assert table == {view.name: ["yes" if view.name in renders(fmt) else "-" for fmt in FORMATS] for view in VIEWS}
    pairs = sum(cell == "yes" for cells in table.values() for cell in cells)
    assert f"{pairs} of the {len(VIEWS) * len(FORMATS)} pairs" in doc
