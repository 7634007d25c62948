"""The output options every command that prints results takes: `--format`, `--output FILE`, `--json`.

One place parses them and writes the result (`emit`), so `show`, `run`, `report`, `compare`, `doctor`,
`history` and `export` write each format the same way; the text comes from the renderer registry
(`report.formats`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format",
        "-f",
        help="table (terminal), md (Markdown), json, csv, html or prometheus: those this command writes.",
    ),
]
OutputOpt = Annotated[Path | None, typer.Option("--output", "-o", help="Write to FILE instead of standard output.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="The same as --format json.")]


def chosen(fmt: str | None, as_json: bool, default: str = "table") -> str:
    """The format asked for: --json is --format json; both at once must agree."""
    from iolab.errors import UserError

    if as_json and fmt not in (None, "json"):
        raise UserError(f"--json and --format {fmt} ask for two formats: give one")
    return "json" if as_json else fmt or default


def emit(what: str, view: Any, fmt: str, output: Path | None, verbose: bool = False) -> None:
    """Render `view` as `what` in `fmt`, onto standard output or into `output` (written whole, private)."""
    from iolab.report.formats import renderer

    render = renderer(fmt, what)
    terminal = output is None and sys.stdout.isatty()
    text = render(view, terminal=terminal, verbose=verbose)
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_file(output, text)


def write_file(path: Path, text: str, option: str = "--output") -> None:
    """Write the finished text at once, so a failure never leaves half a file; private (0600), as it
    names hosts, targets and command lines."""
    from iolab.errors import UserError
    from iolab.private import write_private

    try:
        write_private(path, text)
    except OSError as exc:
        raise UserError(f"cannot write the report to {path}: {exc.strerror or exc}; choose another {option}") from None
    typer.echo(f"wrote {path}", err=True)
