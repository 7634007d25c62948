"""The output options of every command that prints results: `--format NAME`, `-o/--output FILE`, `--json`.

One place parses them and writes the result (`emit`), so every command writes each format the same way;
the text comes from the renderer registry (`report.formats`: text, markdown, json, csv, html and, for
`export`, prometheus). `--json` is `--format json` on every command; a command's `--html FILE` (and
`export`'s `--csv FILE`, `--prometheus FILE`) is that format into that file, beside what `--format`
prints (`also`). docs/output-formats.md lists which view renders in which format.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NamedTuple, TypeVar

import typer

if TYPE_CHECKING:
    from iolab.report.formats import View

V = TypeVar("V")

FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        help="text (the default), markdown, json, csv, html (or prometheus for export): a format this command "
        "cannot write is refused, naming those it can. table and md are the old names of text and markdown.",
    ),
]
OutputOpt = Annotated[
    Path | None, typer.Option("--output", "-o", metavar="FILE", help="Write to FILE instead of standard output.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="The same as --format json.")]
HtmlOpt = Annotated[
    Path | None,
    typer.Option(
        "--html",
        metavar="FILE",
        help="Also write the HTML page into FILE (self-contained, with charts): --format html -o FILE, beside what "
        "--format prints.",
    ),
]


def chosen(fmt: str | None, as_json: bool, default: str = "text") -> str:
    """The format asked for: --json is --format json; both at once must agree."""
    from iolab.errors import UserError

    if as_json and fmt not in (None, "json"):
        raise UserError(f"--json and --format {fmt} ask for two formats: give one")
    return "json" if as_json else fmt or default


class Out(NamedTuple):
    """One thing to write: a format, into a file (None: standard output), and the option that named the file."""

    fmt: str
    path: Path | None
    option: str = "--output"
    default: bool = False  # the format no option asked for (text): a view without it says so, not "--format text"


def outputs(
    fmt: str | None, output: Path | None, as_json: bool, files: dict[str, Path | None], elsewhere: bool = False
) -> list[Out]:
    """What to write: each `files` format given (`--html FILE`) into its file, and the chosen format onto
    standard output or `output`, unless only files were asked for (`report 3 --html page.html` prints nothing;
    `elsewhere`: the command writes something else asked for, such as --png's charts)."""
    wanted = [Out(name, path, f"--{name}") for name, path in files.items() if path is not None]
    if not (wanted or elsewhere) or fmt is not None or output is not None or as_json:
        wanted.append(Out(chosen(fmt, as_json), output, default=fmt is None and not as_json))
    return wanted


def check(view: View[V], wanted: list[Out]) -> None:
    """Refuse a format the view has no renderer for, before anything is loaded or run; where no option asked
    for it (the default), say so and name the formats to ask for, not an option the user never typed."""
    from iolab.errors import UserError
    from iolab.report.formats import able, renderer

    for out in wanted:
        try:
            renderer(out.fmt, view)
        except UserError:
            if not out.default:
                raise
            raise UserError(f"{view.what} has no {out.fmt} form: give --format {' or '.join(able(view))}") from None


def emit(
    view: View[V], shown: V, fmt: str, output: Path | None, verbose: bool = False, option: str = "--output"
) -> None:
    """Render `shown` as `view` in `fmt`, onto standard output or into `output` (written whole, private)."""
    from iolab.report.formats import renderer

    render = renderer(fmt, view)
    terminal = output is None and sys.stdout.isatty()
    text = render(shown, terminal=terminal, verbose=verbose)
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_file(output, text, option)


def emit_all(view: View[V], shown: V, wanted: list[Out], verbose: bool = False) -> None:
    """`emit` for each format and file of `outputs`."""
    for out in wanted:
        emit(view, shown, out.fmt, out.path, verbose, out.option)


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
