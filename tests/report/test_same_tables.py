"""`iolab run`, `show` and `report` print the same tables for the same run, in every format.

The run is made in-process on the fake executor (fio's saved outputs, tests/runner/fake_executor.py), once
per format, so each `run --format F` can be held against `show` and `report` of the same run in F. The
three commands' outputs must be the same text, and each format's cells the same cells: Markdown's and
HTML's table cells are parsed back and held against the JSON's, cell by cell. An array run (per-device
and scaling tables) is held the same way in tests/runner/test_arrays.py, on loop devices.
"""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from iolab.cli import app
from iolab.errors import UserError
from tests.runner.fake_executor import Answer, FakeExecutor

FORMATS = ("table", "md", "json", "csv", "html")
PLAN = """
name = "same"
[options]
runtime = "1s"
[axes]
iodepth = [1, 4]
[repeat]
count = 2
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of its own, this host's executor answering with fio's saved outputs, and no fio or perf on PATH."""
    import iolab.runner.execute as execute

    monkeypatch.setenv("IOLAB_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    outputs = ("randread-4jobs.json", "quick/randread-4k-qd1.json")  # two 4k random reads: repeats that differ
    real = execute.execute

    def on_saved_outputs(*args, **kwargs):  # `iolab run` as it is, but its executor's fio: the saved outputs
        return real(*args, executor=FakeExecutor(script=lambda point, n: Answer(outputs[n % 2])), **kwargs)

    monkeypatch.setattr(execute, "execute", on_saved_outputs)
    return tmp_path


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def _run(tmp_path: Path, fmt: str) -> tuple[int, str]:
    """A new run of the plan printed in `fmt`, and its id."""
    target = tmp_path / "data.img"
    target.write_bytes(b"\0" * (4 << 20))
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    printed = _invoke("run", str(plan), str(target), "--fresh", "--no-report", "--no-telemetry", "-q", "-f", fmt)
    return json.loads(_invoke("ls", "--json"))[0]["id"], printed


class _Cells(HTMLParser):
    """The cells of every `table.notebook` of an HTML page, table by table, row by row."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.cell: list[str] | None = None
        self.inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and ("class", "notebook") in attrs:
            self.tables.append([])
            self.inside = True
        elif self.inside and tag == "tr":
            self.tables[-1].append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.inside = False
        elif tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def _markdown_tables(text: str) -> list[list[list[str]]]:
    """Each `| a | b |` table of a Markdown page as rows of unescaped cells (its rule line left out)."""
    tables: list[list[list[str]]] = []
    previous = ""
    for line in text.splitlines():
        if line.startswith("| "):
            if not previous.startswith("|"):
                tables.append([])
            cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])
            tables[-1].append([re.sub(r"\\(.)", r"\1", cell.strip()) for cell in cells])
        elif not line.startswith("|---") and not line.startswith("|:") and line:
            pass
        previous = line
    return tables


def _json_tables(document: dict) -> list[list[list[str]]]:
    return [[[c["header"] for c in t["columns"]], *(row["cells"] for row in t["rows"])] for t in document["tables"]]


def _same_text(run_id: int, fmt: str, printed: str) -> None:
    """What `run` printed in `fmt` is what `show` and `report` print of that run."""
    assert _invoke("show", str(run_id), "-f", fmt) == printed, fmt
    assert _invoke("report", str(run_id), "-f", fmt) == printed, fmt


def _same_cells(printed: dict[str, str]) -> None:
    """The cells of Markdown, HTML and the terminal are the JSON's, table by table and row by row."""
    cells = _json_tables(json.loads(printed["json"]))
    assert _markdown_tables(printed["md"]) == cells
    parser = _Cells()
    parser.feed(printed["html"])
    assert parser.tables == cells
    lines = printed["table"].splitlines()
    for table in cells:
        for row in table[1:]:  # each row on one line of the terminal's table, its cells in order
            pattern = r"\s+".join(re.escape(cell) for cell in row if cell)
            assert any(re.search(pattern, line) for line in lines), row


def test_run_show_and_report_print_the_same_tables_in_every_format(home: Path):
    printed = {}
    for fmt in FORMATS:  # each format's run is a run of its own: the saved outputs make the same figures
        run_id, printed[fmt] = _run(home, fmt)
        _same_text(run_id, fmt, printed[fmt])
    _same_cells(printed)
    (table,) = json.loads(printed["json"])["tables"]
    assert table["title"] == "iodepth sweep" and [row["cells"][0] for row in table["rows"]] == ["1", "4"]
    rows = list(csv.DictReader(io.StringIO(printed["csv"])))
    assert [row["fio_iodepth"] for row in rows] == ["1", "1", "4", "4"]  # every point: the rows' repeats


def test_json_is_the_same_as_format_json_and_a_format_a_command_cannot_write_is_refused(home: Path):
    run_id, printed = _run(home, "json")
    assert _invoke("show", str(run_id), "--json") == printed
    result = CliRunner().invoke(app, ["show", str(run_id), "-f", "prometheus"])  # the CLI's main exits 2 on it
    assert isinstance(result.exception, UserError)
    assert (
        str(result.exception)
        == "--format prometheus cannot write runs' tables: choose one of text, markdown, json, csv, html"
    )
