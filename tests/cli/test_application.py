"""The command tree's own settings (`iolab.cli.application`), read through the entry point in process: a
command group given alone prints its help (typer's `no_args_is_help`), never click's 'Missing command'."""

from __future__ import annotations

import pytest

from tests.in_process import iolab


@pytest.mark.parametrize(("group", "command"), [((), "run"), (("schedule",), "install"), (("plan",), "check")])
def test_a_command_group_alone_prints_its_help_listing_its_commands(group, command):
    shown = iolab(*group)
    text = shown.stdout + shown.stderr
    assert "Missing command" not in text and "Error" not in text
    assert f"Usage: {' '.join(('iolab', *group))} " in text and f"  {command} " in text
