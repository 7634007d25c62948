"""Every number on iolab's command line through the bounded parser (`iolab.numbers`), by construction.

click reads `--interval nan` as a float and its range check lets it through:
NaN is neither below a minimum nor above a maximum, and `inf` passes any
range without a maximum; its integers take any length. So `click_command`
hands the whole command tree to `bounded`, which gives every integer and
float parameter of every command (those of today and any added later) a
type that parses with `numbers.whole` / `numbers.real` first, within int64 or
a finite double, and only then applies the parameter's own range. A bad
number is click's usage error: one line, exit 2.
"""

from __future__ import annotations

from typing import Any

from typer._click import types as click_types

from iolab.errors import UserError
from iolab.numbers import real, whole


class BoundedFloat(click_types.FloatRange):
    """A float parameter read by `numbers.real`: finite, then within the parameter's range."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str):
            try:
                value = real(value, "value")  # finite; the range is click's, with its own words
            except UserError as exc:
                self.fail(str(exc).removeprefix("value: "), param, ctx)
        return super().convert(value, param, ctx)


class BoundedInt(click_types.IntRange):
    """An integer parameter read by `numbers.whole`: ASCII digits within int64, then the parameter's range."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str):
            try:
                value = whole(value, "value")  # within int64; the range is click's, with its own words
            except UserError as exc:
                self.fail(str(exc).removeprefix("value: "), param, ctx)
        return super().convert(value, param, ctx)


def bounded(command: Any) -> Any:
    """`command` and every subcommand with each int and float parameter's type replaced by a bounded one."""
    for param in command.params:
        kind = param.type
        if isinstance(kind, BoundedFloat | BoundedInt):
            continue
        low, high = getattr(kind, "min", None), getattr(kind, "max", None)
        low_open, high_open = getattr(kind, "min_open", False), getattr(kind, "max_open", False)
        clamp = getattr(kind, "clamp", False)
        if isinstance(kind, click_types.FloatParamType):
            param.type = BoundedFloat(low, high, low_open, high_open, clamp)
        elif isinstance(kind, click_types.IntParamType):
            param.type = BoundedInt(low, high, low_open, high_open, clamp)
    for sub in getattr(command, "commands", {}).values():
        bounded(sub)
    return command
