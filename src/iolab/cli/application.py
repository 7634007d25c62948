"""The Typer application every command module registers its commands on.

A module of its own so that the command modules import it without importing
the `iolab.cli` package that imports them (no cycle through a half-loaded
package).
"""

from __future__ import annotations

import typer

app = typer.Typer(
    name="iolab",
    help="A storage-performance lab: plans and runs fio, keeps every result, explains the numbers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,  # help is plain text: "[address=IP]" or "[host]" is what the user types, not markup
)
