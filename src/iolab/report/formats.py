"""The one map from a format's name to the module that renders it, and what each can render.

Every module of a format (`terminal`, `markdown`, `json_output`, `csv_output`, `html`, `prometheus`)
holds a `RENDERS` table: what it renders (`runs`, `comparison`, `history`, `doctor`, `export`) to the
function that turns that view into text (`Render`). A command names what it prints; `--format` picks the
module, imported only then, so `iolab --help` loads none of them. A new format is a module with its
`RENDERS` and a line in `FORMATS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Protocol

from iolab.errors import UserError

FORMATS: dict[str, str] = {
    "table": "iolab.report.terminal",
    "md": "iolab.report.markdown",
    "json": "iolab.report.json_output",
    "csv": "iolab.report.csv_output",
    "html": "iolab.report.html",
    "prometheus": "iolab.report.prometheus",
}
ALIASES = {"text": "table", "markdown": "md"}  # what `compare --format` took before


class Render(Protocol):
    """One view as one format's text; `terminal`: for a terminal (its width, colour), else plain lines."""

    def __call__(self, view: Any, terminal: bool = False, verbose: bool = False) -> str: ...


def renders(fmt: str) -> Mapping[str, Render]:
    """The `RENDERS` table of a format's module."""
    return importlib.import_module(FORMATS[fmt]).RENDERS


def renderer(fmt: str, what: str) -> Render:
    """The function that writes `what` in `fmt`; a format that cannot is a usage error naming those that can."""
    name = ALIASES.get(fmt, fmt)
    if name not in FORMATS:
        raise UserError(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}")
    found = renders(name).get(what)
    if found is None:
        able = [f for f in FORMATS if what in renders(f)]
        raise UserError(f"--format {name} does not apply here: choose one of {', '.join(able)}")
    return found
