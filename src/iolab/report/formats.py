"""The one map from a format's name to the module that renders it, the views there are, and what renders what.

Every module of a format (`terminal`, `markdown`, `json_output`, `csv_output`, `html_format`, `prometheus`)
holds a `RENDERS` table: a view's name to the function that turns that view into text (`Render`). A view
is one `View` below, typed by what it carries (`View[RunSet]`), so a command hands `emit` a view of the
kind it names and mypy holds the two together; `tests/report/test_formats.py` holds each renderer's
parameter to its view's type. A command names what it prints; `--format` picks the module, imported only
then, so `iolab --help` loads none of them. A new format is a module with its `RENDERS` and a line in
`FORMATS`; a new view is a `View` here and a renderer in each format that can write it (a format that
cannot is refused with those that can).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from iolab.errors import UserError
from iolab.printable import shown

if TYPE_CHECKING:
    from iolab.models import Finding, Snapshot
    from iolab.views.comparison import Comparison
    from iolab.views.export_set import ExportSet
    from iolab.views.history import SeriesHistory
    from iolab.views.host_diff import HostDiff
    from iolab.views.lint import LintView
    from iolab.views.run import RunSet
    from iolab.views.run_list import RunList

# The output vocabulary of every command: `--format NAME` and `-o/--output FILE`.
FORMATS: dict[str, str] = {
    "text": "iolab.report.terminal",
    "markdown": "iolab.report.markdown",
    "json": "iolab.report.json_output",
    "csv": "iolab.report.csv_output",
    "html": "iolab.report.html_format",
    "prometheus": "iolab.report.prometheus",
}
ALIASES = {"table": "text", "md": "markdown"}  # the names `--format` took before; kept, users' scripts give them

V = TypeVar("V")
V_in = TypeVar("V_in", contravariant=True)


class Render(Protocol[V_in]):
    """One view as one format's text; `terminal`: for a terminal (its width, colour), else plain lines."""

    def __call__(self, view: V_in, terminal: bool = False, verbose: bool = False) -> str: ...


@dataclass(frozen=True)
class View(Generic[V]):
    """A kind of view: its name in the `RENDERS` tables, what a person calls it (for a refusal), and the
    type its renderers take, as they annotate it (`carries`)."""

    name: str
    what: str
    carries: str


RUNS: View[RunSet] = View("runs", "runs' tables", "RunSet")
COMPARISON: View[Comparison] = View("comparison", "a comparison", "Comparison")
HISTORY: View[list[SeriesHistory]] = View("history", "a history", "list[SeriesHistory]")
DOCTOR: View[list[Finding]] = View("doctor", "the doctor's findings", "list[Finding]")
EXPORT: View[ExportSet] = View("export", "an export", "ExportSet")
RUN_LIST: View[RunList] = View("run_list", "the list of runs", "RunList")
SNAPSHOT: View[Snapshot] = View("snapshot", "a host snapshot", "Snapshot")
LINT: View[LintView] = View("lint", "a job file's lint", "LintView")
HOST_DIFF: View[HostDiff] = View("host_diff", "the hosts' differences", "HostDiff")
VIEWS: tuple[View[Any], ...] = (RUNS, COMPARISON, HISTORY, DOCTOR, EXPORT, RUN_LIST, SNAPSHOT, LINT, HOST_DIFF)


def renders(fmt: str) -> Mapping[str, Render[Any]]:
    """The `RENDERS` table of a format's module."""
    table: Mapping[str, Render[Any]] = importlib.import_module(FORMATS[fmt]).RENDERS
    return table


def able(view: View[Any]) -> list[str]:
    """The formats that render `view`, in `FORMATS` order."""
    return [fmt for fmt in FORMATS if view.name in renders(fmt)]


def canonical(fmt: str) -> str:
    """A format's name, an old name taken as the new; an unknown one is a usage error naming them all."""
    name = ALIASES.get(fmt, fmt)
    if name not in FORMATS:
        raise UserError(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}")
    return name


def renderer(fmt: str, view: View[V]) -> Render[V]:
    """The function that writes `view` in `fmt`; a format that cannot is a usage error naming those that can."""
    name = canonical(fmt)
    found = renders(name).get(view.name)
    if found is None:
        raise UserError(f"--format {name} cannot write {view.what}: choose one of {', '.join(able(view))}")
    return _escaped(found)


def _escaped(render: Render[V]) -> Render[V]:
    """`render` whose page shows every control character escaped (`iolab.printable.shown`): a page names what
    other users named (mounts, processes, files, jobs), and goes to a terminal, a pipe or a file `cat` shows."""

    def page(view: V, terminal: bool = False, verbose: bool = False) -> str:
        return shown(render(view, terminal=terminal, verbose=verbose))

    return page
