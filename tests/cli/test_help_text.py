"""Every command's help shows its text as written: nothing a user types ("[address=IP]", "[host]") is
taken for markup and dropped."""

from __future__ import annotations

import re

import typer
from typer.testing import CliRunner

from iolab.cli import app


def _commands(command, path: tuple[str, ...] = ()) -> list:
    """Every command under `command` (typer's click objects: a group has `commands`) with its words."""
    found = [(path, command)]
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            found += _commands(sub, (*path, name))
    return found


def _words(text: str) -> str:
    """The text's words, whatever the layout: wrapped, or in Rich's boxed panels."""
    return re.sub(r"\s+", " ", re.sub(r"[│╭╮╰╯─]", " ", text)).strip()


def test_every_help_string_of_every_command_is_shown_whole():
    root = typer.main.get_command(app)
    runner = CliRunner()
    checked = 0
    for path, command in _commands(root):
        if command.hidden:
            continue
        shown = _words(runner.invoke(app, [*path, "--help"], terminal_width=200).output)
        texts = [p.help for p in command.params if p.param_type_name == "option" and p.help and not p.hidden]
        texts += [command.help.split("\n\n")[0]] if command.help else []
        for text in texts:
            assert _words(text) in shown, (path, text)
            checked += 1
    assert checked > 100  # every command's options, not a few
