"""The HTML format (`--format html`): each view as one self-contained page, the runs' pages followed by
their workloads' history and comparisons. Apart from `report.html`, which builds pages and knows nothing
of the cross-run sections (`report.cross_sections` builds on it), so neither imports the other back."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from iolab.report.cross_sections import comparison_page, history_page, pages_for_runs
from iolab.report.html import render_html

if TYPE_CHECKING:
    from iolab.views.comparison import Comparison
    from iolab.views.history import SeriesHistory
    from iolab.views.run import RunSet


def render_runs(runs: RunSet, terminal: bool = False, verbose: bool = False) -> str:
    """The runs' pages, then their workloads' history and comparisons: `report --html FILE` is this page."""
    return render_html(runs.views, extra=pages_for_runs(runs.across))[0]


def render_comparison(comparison: Comparison, terminal: bool = False, verbose: bool = False) -> str:
    return render_html([], extra=[partial(comparison_page, comparison)])[0]


def render_history(histories: list[SeriesHistory], terminal: bool = False, verbose: bool = False) -> str:
    return render_html([], extra=[partial(history_page, histories)])[0]


RENDERS = {"runs": render_runs, "comparison": render_comparison, "history": render_history}
