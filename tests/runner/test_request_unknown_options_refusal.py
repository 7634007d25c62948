"""--allow-unknown-options passes fio options iolab never classified, which may write or run commands: it is
refused unless writes and commands are allowed with it (runner.request.build_plan), before any plan is built.
The fast tier only met this refusal end to end (a `not` dropped there survived)."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.runner.request import RunRequest, build_plan


@pytest.mark.parametrize(("write", "commands"), [(False, False), (True, False), (False, True)])
def test_unknown_options_without_both_writes_and_commands_are_refused_naming_what_to_add(write, commands):
    request = RunRequest(plan="quick", allow_unknown_options=True, allow_write=write, allow_commands=commands)
    with pytest.raises(UserError, match="give --allow-write and --allow-commands with it"):
        build_plan(request)


def test_unknown_options_with_writes_and_commands_build_the_plan():
    request = RunRequest(plan="quick", allow_unknown_options=True, allow_write=True, allow_commands=True)
    assert build_plan(request).name == "quick"
    assert build_plan(RunRequest(plan="quick")).name == "quick"  # and without asking, nothing to refuse
