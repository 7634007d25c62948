"""Text another user controls never reaches root's terminal raw: every page, every format, every string planted.

A mount point, a process or job name, a file of an imported folder, fio's error line, a note: any of them may
hold ESC and other control characters, and Rich passes ESC through, so a name like '\\x1b]0;title\\x07' once
set root's terminal title (or cleared its screen, or wrote its clipboard by OSC 52). The fix is at the output
(`iolab.printable`): here a control-laden string is planted in every string field of the inputs of every view
(generated runs, a comparison, histories, findings, `ls`, `probe`, `lint`, `diff-env`), each page is rendered
through the format registry in every format, for a pipe and for a terminal, and no raw control character may
be left but newline, tab and, on a terminal, the colours iolab draws itself.
"""

from __future__ import annotations

import dataclasses
import io
import random
import re
import subprocess
import sys
from enum import Enum
from types import SimpleNamespace
from typing import Any

import pytest
import typer

from iolab.models import Run
from iolab.models.snapshot import BlockDevice, Change, FileSystem, Snapshot, TargetInfo
from iolab.printable import escaping_console, guard_streams
from iolab.report import charts
from iolab.report.formats import (
    COMPARISON,
    DOCTOR,
    EXPORT,
    HISTORY,
    HOST_DIFF,
    LINT,
    RUN_LIST,
    RUNS,
    SNAPSHOT,
    View,
    able,
    renderer,
)
from iolab.store.db import open_store
from iolab.views.export import ExportedRun
from iolab.views.host_diff import HostDiff
from iolab.views.lint import LintView
from iolab.views.run_list import ListedRun, RunList
from iolab.views.series_metrics import SeriesMetrics
from tests.views.test_pages_pinned import _comparison, _run, _view
from tests.views.test_views_pinned import DAY, FINDINGS, _history, _series

pytestmark = pytest.mark.usefixtures("utc")

# a terminal title (OSC 0 ended by BEL), a screen cleared, a CSI in C1, a right-to-left override, NUL, CR, DEL
HOSTILE = "\x1b]0;PWNED\x07\x1b[2J\x9b6n\u202egnp.exe\x00\r\x7f"
# what iolab itself may send a terminal: its colours (SGR), newline and tab
OWN_COLOURS = re.compile(r"\x1b\[[0-9;]*m")
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# what must stay as it is for a page to be drawn at all: a point's status, a metric's name, fio's options...
RUN_CHARTS = ("workload_bars", "sweep_throughput", "sweep_latency", "latency_throughput", "timeline_chart",
              "device_bars", "scaling_chart")  # fmt: skip
MEANING = {"status", "kind", "metric", "options", "direction", "shape", "severity", "category", "rule_id", "version"}


def planted(value: Any, field: str = "") -> Any:
    """`value` with HOSTILE added to every string in it that only names or tells (dataclass fields, list
    items, a dict's values), recursively; strings that choose what a page computes (MEANING) are kept."""
    if field in MEANING or isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return value + HOSTILE
    if isinstance(value, list):
        return [planted(v) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(planted(v) for v in value)
    if isinstance(value, dict):
        return {k: planted(v, k if isinstance(k, str) else "") for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: planted(getattr(value, f.name), f.name) for f in dataclasses.fields(value) if f.init}
        return dataclasses.replace(value, **changes)
    return value


def _raw_left(page: str, terminal: bool) -> list[str]:
    return RAW.findall(OWN_COLOURS.sub("", page) if terminal else page)


def _pages(view: View[Any], shown: Any) -> list[tuple[str, bool, str]]:
    """Every page of `view`: each format, for a pipe (short) and for a terminal (verbose); HTML is one page."""
    return [
        (fmt, terminal, renderer(fmt, view)(shown, terminal=terminal, verbose=terminal))
        for fmt in able(view)
        for terminal in ((False, True) if fmt != "html" else (False,))
    ]


def _run_views() -> tuple[SimpleNamespace, SimpleNamespace]:
    shown = []
    for seed, number in ((8, 3), (3, 5)):  # a killed run, an array
        made = _run(seed, number)
        hostile = SimpleNamespace(
            run=planted(made.run),
            records=planted(made.records),
            samples=made.samples,
            findings=planted(list(made.findings)),
            device_bw=made.device_bw,
        )
        shown.append((hostile, _view(hostile, tags=[f"nightly{HOSTILE}"], notes=[f"a note{HOSTILE}"])))
    runs = SimpleNamespace(
        views=[v for _, v in shown],
        exported=[ExportedRun(m.run, m.records, [f"t{HOSTILE}"], [f"n{HOSTILE}"]) for m, _ in shown],
        across=SimpleNamespace(histories=[], comparisons=[]),
    )
    metrics = [planted(SeriesMetrics("db1", "/mnt/fuse", "randread", "id", 1e9, 2e5, 1e-4, 2e-4, 0.02, True))]
    return runs, SimpleNamespace(exported=runs.exported, metrics=metrics)


def _snapshot() -> Snapshot:
    nvme = BlockDevice("nvme0n1", model="Samsung 990", size_bytes=2_500_000_000, rotational=False, scheduler="none")
    fs = FileSystem("/data", "fuse", "/dev/fuse", "0:50", ["rw"], size_bytes=1000, used_bytes=994)
    return Snapshot(hostname="db1", os_name="Debian 12", kernel="6.1.0", cmdline="quiet", cpu_model="EPYC",
                    cpus_online=16, numa_nodes={"0": "0-15"}, governors={"cpu0": "performance"},
                    mem_total_bytes=64 << 30, devices=[nvme], filesystems=[fs],
                    targets=[TargetInfo("/data/f", "nvme0n1", "/data", "fuse")])  # fmt: skip


def _every_view(home) -> list[tuple[View[Any], Any]]:  # type: ignore[no-untyped-def]
    runs, export = _run_views()
    comparison = planted(_comparison(_run(3, 0), _run(8, 0)))
    store = open_store(home)
    history = [planted(_history(store, _series(random.Random(41), 20, 12, DAY / 4, "stepped")))]
    listed = [
        ListedRun(planted(Run(i, 1.7e9, "complete", "plan", "db1", "iolab run", "fio-3.33", "0.4")), [f"x{HOSTILE}"],
                  [f"note{HOSTILE}"], planted({"tools": ["fio"], "versions": ["3.28"], "files": ["/data/o.json"]}))
        for i in (1, 2)
    ]  # fmt: skip
    return [
        (RUNS, runs),
        (EXPORT, export),
        (COMPARISON, comparison),
        (HISTORY, history),
        (DOCTOR, planted(FINDINGS)),
        (RUN_LIST, RunList(listed, 3, 2, f"tag{HOSTILE}", None)),
        (SNAPSHOT, planted(_snapshot())),
        (LINT, planted(LintView(FINDINGS[:3], ["/data/f (write)"], ["[r] exec_prerun=echo"]))),
        (HOST_DIFF, planted(HostDiff(3, 7, [Change("host", "kernel", "6.1.0", "6.5.0")]))),
    ]


def test_no_page_in_any_format_sends_a_planted_control_character_raw(tmp_path, monkeypatch):
    for chart in RUN_CHARTS:  # 4 s of figures a run's page draws; what a chart says is escaped with its page
        monkeypatch.setattr(charts, chart, lambda *args, **kwargs: None)
    monkeypatch.setattr(charts, "render_svg", lambda figure, chart_id: "<svg></svg>")
    every = _every_view(tmp_path)
    assert {view.name for view, _ in every} == {"runs", "export", "comparison", "history", "doctor", "run_list",
                                                 "snapshot", "lint", "host_diff"}  # fmt: skip
    failed = []
    for view, shown in every:
        for fmt, terminal, page in _pages(view, shown):
            if fmt not in ("json", "prometheus"):  # JSON escapes them its own way (\u001b); each page says PWNED
                assert "PWNED" in page, (view.name, fmt)
            left = _raw_left(page, terminal)
            if left:
                failed.append(f"{view.name} {fmt} terminal={terminal}: {sorted(set(left))}")
    assert not failed, "\n".join(failed)


def test_a_terminal_page_keeps_iolab_s_own_colours(tmp_path):
    runs, _ = _run_views()
    page = renderer("text", RUNS)(runs, terminal=True)
    assert OWN_COLOURS.search(page) and "\\x1b]0;PWNED" in page


def test_an_error_quoting_a_user_s_path_prints_it_escaped(tmp_path):
    """The top-level handler quotes what the user gave (`iolab plan check PATH`); a path with ESC in it (a name
    another user chose for a file root points iolab at) is printed escaped on standard error."""
    path = tmp_path / "\x1b]0;PWNED\x07\x1b[2Jplan.toml"
    code = "import sys; from iolab.cli import main; sys.argv = ['iolab', 'plan', 'check', sys.argv[1]]; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], check=False, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stderr
    assert "\\x1b]0;PWNED\\x07\\x1b[2Jplan.toml" in done.stderr, done.stderr
    assert not RAW.findall(done.stderr + done.stdout), done.stderr


def test_every_other_line_on_standard_output_and_error_is_escaped_but_a_console_s_colours(monkeypatch):
    """`iolab` starts with `guard_streams`: print and typer.echo (plan check's lines, `tag`, `schedule`...) are
    escaped, and a console's colours still reach the terminal."""
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    guard_streams()
    print(f"plan {HOSTILE}")
    typer.echo(f"targets: {HOSTILE}")
    typer.echo(f"iolab: cannot read {HOSTILE}", err=True)
    escaping_console(force_terminal=True, color_system="standard", highlight=False).print(f"[red]no:[/red] {HOSTILE}")
    assert not RAW.findall(err.getvalue()) and "\\x1b]0;PWNED" in err.getvalue()
    assert out.getvalue().count("\\x1b]0;PWNED") == 3 and "\x1b[31mno:" in out.getvalue()
    assert not _raw_left(out.getvalue(), terminal=True), out.getvalue()


def _table_widths(page: str) -> list[set[int]]:
    """The widths (terminal columns) of the lines of each boxed table of `page`, from its top (┏) to its bottom
    (└): one set per table, which holds one width when the table's columns line up."""
    from rich.cells import cell_len

    tables: list[set[int]] = []
    for line in OWN_COLOURS.sub("", page).splitlines():
        if line.startswith("┏"):
            tables.append(set())
        if tables and line[:1] in "┏┃┡│└" and line:
            tables[-1].add(cell_len(line))
    return tables


def test_a_table_holding_a_hostile_device_model_keeps_its_columns_aligned():
    """Rich counts ESC as no column and `\\x1b` takes four: the console escapes a string before Rich measures it,
    so the row holding the model is as wide as the others (it was 30 columns wider before: the escapes of 7 controls), and escaped once."""
    snapshot = _snapshot()
    model = f"Sam\x1bsung{HOSTILE}"
    snapshot.devices[0] = dataclasses.replace(snapshot.devices[0], model=model)
    pages = {terminal: renderer("text", SNAPSHOT)(snapshot, terminal=terminal) for terminal in (False, True)}
    for terminal, page in pages.items():  # the terminal's is narrower: the model is cut short (…), still aligned
        widths = _table_widths(page)
        assert len(widths) == 2 and all(len(w) == 1 for w in widths), (terminal, widths, page)
    assert "Sam\\x1bsung\\x1b]0;PWNED" in pages[False] and "\\\\x1b" not in pages[False]


def test_any_hostile_cell_keeps_a_table_aligned_and_is_escaped_once():
    """Generated: cells and a title of control characters, quotes, backslashes and text, on a terminal and a
    pipe; every line of the table has one width, each control shows as its escape once, colours stay iolab's."""
    from rich.table import Table

    from iolab.printable import printable

    alphabet = ["\x1b", "\x9b", "\u202e", "\x00", "\x7f", "\\", '"', "[", "x", "1", "é", " ", "界"]
    pick = random.Random(47)
    for case in range(60):
        cells = ["".join(pick.choices(alphabet, k=pick.randint(0, 9))) + "z" for _ in range(3)]
        table = Table("name", "model", "note")
        table.add_row(*cells, style="red")
        table.add_row("a", "b", "c")
        out = io.StringIO()
        terminal = case % 2 == 0
        console = escaping_console(out, force_terminal=terminal, color_system="standard" if terminal else None,
                                   width=200, highlight=False, markup=False)  # fmt: skip
        console.print(table)
        page = out.getvalue()
        assert not _raw_left(page, terminal), repr(page)
        widths = _table_widths(page)
        assert len(widths) == 1 and len(widths[0]) == 1, (cells, page)
        for cell in cells:
            assert printable(cell) in OWN_COLOURS.sub("", page), (cell, page)


def test_escaped_text_keeps_each_style_on_its_characters_and_is_escaped_once():
    from rich.text import Text

    from iolab.printable import printable_text

    text = Text.assemble(("ok ", "green"), ("a\x1bb\u202e", "red"), " end")
    escaped = printable_text(text)
    assert escaped.plain == "ok a\\x1bb\\u202e end"
    assert [(escaped.plain[s.start : s.end], str(s.style)) for s in escaped.spans] == [
        ("ok ", "green"),
        ("a\\x1bb\\u202e", "red"),
    ]
    assert printable_text(escaped) is escaped
