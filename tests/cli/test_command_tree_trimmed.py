"""A command line that names a command builds the tree of that command alone (`cli.click_command(name)`): the
whole tree cost ~20 ms of CPU at the start of every command. The trimmed tree must be the whole tree's branch:
for every command and group of `app`, the same parameters (names, types with their bounds, defaults, help), the
same subcommands, the same help text and the same usage errors, and the command line's first word is taken as
the name only when it is one (`_named`)."""

from __future__ import annotations

from typing import Any

import pytest
import typer

from iolab.cli import _command_names, _named, app, click_command


def _shape(command: Any) -> Any:
    """What a click command is to a user: its name, help, each parameter as parsed and shown, its subcommands."""
    params = [
        (
            p.name,
            tuple(p.opts),
            type(p.type).__name__,
            repr(vars(p.type)),
            repr(p.default),
            getattr(p, "help", None),
            p.required,
            p.nargs,
        )
        for p in command.params
    ]
    subcommands = {name: _shape(sub) for name, sub in sorted(getattr(command, "commands", {}).items())}
    return command.name, command.help, command.short_help, params, subcommands


def _outcome(tree: Any, args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, str, str]:
    """(what was raised, stdout, stderr) of the tree run on `args` without side effects beyond help and errors."""
    try:
        tree(args, prog_name="iolab", standalone_mode=False)
        raised = "nothing"
    except typer.Exit as exc:  # help
        raised = f"exit {exc.exit_code}"
    except typer.TyperException as exc:
        raised = f"{type(exc).__name__}: {exc.format_message() if hasattr(exc, 'format_message') else exc}"
    out = capsys.readouterr()
    return raised, out.out, out.err


NAMES = sorted(_command_names(app))


def test_every_command_of_the_whole_tree_can_be_named() -> None:
    whole = click_command()
    assert set(NAMES) == set(whole.commands) and len(NAMES) >= 15


@pytest.mark.parametrize("name", NAMES)
def test_the_trimmed_tree_is_the_whole_trees_branch(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    whole, trimmed = click_command(), click_command(name)
    assert list(trimmed.commands) == [name]
    assert _shape(trimmed.commands[name]) == _shape(whole.commands[name])
    lines = [[name, "--help"], [name, "--no-such-option"]]
    lines += [[name, sub, "--help"] for sub in getattr(whole.commands[name], "commands", {})]
    for args in lines:
        outcome = _outcome(trimmed, args, capsys)
        assert outcome == _outcome(whole, args, capsys), args
        assert outcome[1] if args[-1] == "--help" else outcome[0].startswith("NoSuchOption"), outcome


def test_only_a_command_or_group_is_taken_as_the_name() -> None:
    assert _named(["import", "x.json"]) == "import" and _named(["plan", "check", "x"]) == "plan"
    for args in ([], ["--help"], ["-h"], ["imprt"], ["x.json", "import"], ["--no-logs", "import"]):
        assert _named(args) is None, args
