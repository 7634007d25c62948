"""Numbers read from a user's input, through one bounded parser: finite, within int64 or a double, or an error.

Python reads numbers without bounds: `json.loads` makes a 400-digit integer
(and refuses one of 4,300 digits with a ValueError), `float("1e999")` is
infinity, `int(float("1e999"))` an OverflowError, and tomllib keeps any
integer. Each of those reached a traceback somewhere downstream (fio JSON
with 10^400, an IOR summary with Test# = 1e999). Every number iolab reads
from a file or a command line goes through `whole` or `real` here, or
through the JSON hooks, so nothing beyond what an int64 or a finite double
holds gets past the parser; each caller says what range it means.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from iolab.errors import UserError

if TYPE_CHECKING:
    import json

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
REAL_MAX = 1.7976931348623157e308  # the largest finite double
# Digits and signs of the longest int64 (19 digits) with room for leading zeros; longer text is refused
# before int() sees it (Python refuses 4,300 digits with an unrelated message, and parses long ones slowly).
_MAX_CHARACTERS = 40
_WHOLE = re.compile(r"^[+-]?[0-9]+$")  # ASCII digits: int("١٢") is 12, and str.isdigit says yes


class NumberError(ValueError):
    """A number no int64 or finite double holds (raised by the JSON hooks, which know no field names)."""


def whole(text: str, what: str, low: int = INT64_MIN, high: int = INT64_MAX) -> int:
    """`text` as a whole number from `low` to `high`; UserError naming `what` otherwise.

    A float spelling of a whole number ("4.0", "1e3") counts, as tools print counts so."""
    value = text.strip()
    if len(value) <= _MAX_CHARACTERS and _WHOLE.match(value):
        number = int(value)
    else:
        real_value = _float(value)
        if real_value is None or not real_value.is_integer():
            raise UserError(f"{what}: {_shown(text)} is not a whole number")
        if not INT64_MIN <= real_value <= INT64_MAX:
            raise UserError(f"{what}: {_shown(text)} is beyond what a 64-bit integer holds")
        number = int(real_value)
    if not low <= number <= high:
        raise UserError(f"{what}: {_shown(text)} is outside {low}..{high}")
    return number


def real(text: str, what: str, low: float = -REAL_MAX, high: float = REAL_MAX) -> float:
    """`text` as a finite number from `low` to `high`; UserError naming `what` otherwise (NaN, infinity,
    1e999 and words included)."""
    value = _float(text.strip())
    if value is None:
        raise UserError(f"{what}: {_shown(text)} is not a number")
    if not math.isfinite(value):
        raise UserError(f"{what}: {_shown(text)} is not a finite number")
    if not low <= value <= high:
        raise UserError(f"{what}: {_shown(text)} is outside {low:g}..{high:g}")
    return value


def fraction(text: str, what: str) -> float:
    """A share written "2%" or 0.02, above 0 and below 1; UserError naming `what` otherwise."""
    value = text.strip()
    number = real(value.removesuffix("%"), what) / 100 if value.endswith("%") else real(value, what)
    if not 0 < number < 1:
        raise UserError(f"{what}: {_shown(text)} must be above 0% and below 100%")
    return number


def _float(text: str) -> float | None:
    if len(text) > 4 * _MAX_CHARACTERS or not text.isascii():  # float() reads Arabic-Indic digits too
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _shown(text: str) -> str:
    return repr(text[:24] + "..." if len(text) > 24 else text)


def _json_int(text: str) -> int:
    if len(text) > _MAX_CHARACTERS or not INT64_MIN <= (number := int(text)) <= INT64_MAX:
        raise NumberError(f"the integer {_shown(text)} is beyond what a 64-bit integer holds")
    return number


def _json_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise NumberError(f"the number {_shown(text)} is beyond what a double holds")
    return number


# json's hooks for numbers it reads: integers beyond int64 and floats beyond a double are refused while
# parsing (NaN and Infinity, which JSON does not have, are left to each reader's field checks).
JSON_NUMBERS: dict[str, Any] = {"parse_int": _json_int, "parse_float": _json_float}


def bounded_decoder() -> json.JSONDecoder:
    """A JSON decoder whose numbers are bounded (`JSON_NUMBERS`): it raises NumberError beyond them."""
    import json  # here: the command line imports this module at start, and most commands read no JSON

    return json.JSONDecoder(**JSON_NUMBERS)


def toml_float(text: str) -> float:
    """tomllib's `parse_float`: a float beyond a double (1e400 reads as infinity) is refused; TOML's own
    inf and nan pass to the plan's checks, which name the field."""
    number = float(text)
    if not math.isfinite(number) and text.lstrip("+-") not in ("inf", "nan"):
        raise NumberError(f"the number {_shown(text)} is beyond what a double holds")
    return number


def unbounded_integer(tree: object, path: str = "") -> str | None:
    """The path (`workloads[0].options.iodepth`) of the first integer beyond int64 in a parsed document
    (TOML has no hook for integers: tomllib keeps any), or None."""
    if isinstance(tree, bool):
        return None
    if isinstance(tree, int):
        return None if INT64_MIN <= tree <= INT64_MAX else path or "the document"
    items = tree.items() if isinstance(tree, dict) else enumerate(tree) if isinstance(tree, list) else ()
    for key, value in items:
        found = unbounded_integer(value, f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else key)
        if found:
            return found
    return None
