"""Every numeric option of every command, planted bad: a one-line refusal naming it, exit 2.

`iolab run --interval nan` was accepted (issue 39): click's range check lets NaN through (it is neither
below a minimum nor above a maximum) and `inf` through any range without a maximum. The command tree is
walked for every int and float parameter (today's and any added later), each given NaN, infinities,
1e400, -1, 10^30, "", a word, Unicode digits and seeded random junk; iolab's real entry point (`main`)
parses the command line with every command's body replaced by nothing, so what is tested is the parse: a
refusal of one line naming the option, exit 2, or a clean parse (a value the option takes).
"""

from __future__ import annotations

import random

import pytest

from iolab.cli import click_command, main
from iolab.cli.numeric import BoundedFloat, BoundedInt
from iolab.numbers import REAL_MAX


def commands(command, path=()):
    """(command path, command) of every command in the tree."""
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from commands(sub, (*path, name))


def required(command) -> list[str]:
    """Words that fill a command's required arguments and options (any text parses: the body is replaced)."""
    words: list[str] = []
    for param in command.params:
        if param.required:
            words += ["x"] if param.param_type_name == "argument" else [param.opts[0], "x"]
    return words


def numeric_options() -> list[tuple[tuple[str, ...], str, object, list[str]]]:
    found = []
    for path, command in commands(click_command()):
        for param in command.params:
            if param.param_type_name == "option" and type(param.type).__name__ in (
                "BoundedFloat",
                "BoundedInt",
                "FloatRange",
                "IntRange",
                "FloatParamType",
                "IntParamType",
            ):
                found.append((path, param.opts[0], param, required(command)))
    return found


OPTIONS = numeric_options()
BAD = ["nan", "NaN", "inf", "-inf", "1e400", "-1e400", "-1", str(10**30), "", "x", "1,5", "١٢", "0x10", " ", "1e"]
JUNK = random.Random(39)


def junk(n: int) -> list[str]:
    """Seeded random spellings: signs, exponents, dots, digits and letters mixed."""
    alphabet = "0123456789+-.eEnaifINF x_"
    return ["".join(JUNK.choice(alphabet) for _ in range(JUNK.randint(1, 12))) for _ in range(n)]


def test_every_numeric_option_reads_through_the_bounded_parser():
    """By construction: no int or float parameter is left with click's own type."""
    assert OPTIONS, "the walk found no numeric option"
    plain = [
        f"{' '.join(path)} {opt}"
        for path, opt, param, _ in OPTIONS
        if not isinstance(param.type, BoundedFloat | BoundedInt)
    ]
    assert plain == []
    assert {"--interval", "--min-seconds", "--max-seconds", "--runtime", "--ramp", "--repeat", "--port"} <= {
        opt for _, opt, _, _ in OPTIONS
    }


def accepts(param, value: str) -> bool:
    """Whether `value` is a number the option takes (finite, within int64 or a double, in its range)."""
    try:
        number = float(value)
    except ValueError:
        return False
    if not value.strip().isascii() or number != number or abs(number) > REAL_MAX:
        return False
    kind = param.type
    if isinstance(kind, BoundedInt) and (not number.is_integer() or abs(number) >= 2**63):
        return False
    return (kind.min is None or number >= kind.min) and (kind.max is None or number <= kind.max)


@pytest.mark.parametrize(
    ("path", "option", "param", "filler"), OPTIONS, ids=[f"{' '.join(p)} {o}" for p, o, _, _ in OPTIONS]
)
def test_a_bad_value_is_refused_in_one_line_naming_the_option(path, option, param, filler, monkeypatch, capsys):
    for tree in (click_command(), click_command(path[0])):  # `main` builds the named command's tree alone
        for _, command in commands(tree):
            if command.callback is not None:
                monkeypatch.setattr(command, "callback", lambda *a, **k: None)
    for value in BAD + junk(25):
        monkeypatch.setattr("sys.argv", ["iolab", *path, *filler, f"{option}={value}"])
        with pytest.raises(SystemExit) as stopped:
            main()
        said = capsys.readouterr().err
        lines = [line for line in said.splitlines() if line.strip()]
        if stopped.value.code == 0 and accepts(param, value):
            continue  # a number the option takes: a clean parse
        assert stopped.value.code == 2, (value, said)
        assert len(lines) == 1 and option in said and "Traceback" not in said, (value, said)
