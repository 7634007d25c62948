"""fio option values: turning plan scalars into fio strings and one fio value back into a number or a flag.

Plans hold TOML scalars (1, "4k", true); fio job files hold strings. Exclude
rules, duration estimates, the doctor and the tables need numbers again, with
fio's own suffixes: sizes use base 1024 (fio's default kb_base), times default
to seconds. A whole job's options are read through `JobOptions`
(`iolab.models.job_options`), which applies fio's aliases and defaults from
the option table (`iolab.models.option_spec`); the functions below read one value.

Pure vocabulary, so it lives with the models: the plan, the doctor and the
report read option values the same way without importing fio.
"""

from __future__ import annotations

import re

from iolab.models.option_spec import canonical as canonical  # the one alias resolver, read with the values
from iolab.models.option_spec import in_seconds

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b)?\s*$", re.IGNORECASE | re.ASCII)
_SHARE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$", re.ASCII)
_TIME = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(us|usec|ms|msec|s|sec|m|min|h|d)?\s*$", re.IGNORECASE | re.ASCII)
_SIZE_FACTOR = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5}
_TIME_FACTOR = {
    "us": 1e-6,
    "usec": 1e-6,
    "ms": 1e-3,
    "msec": 1e-3,
    "s": 1.0,
    "sec": 1.0,
    "m": 60.0,
    "min": 60.0,
    "h": 3600.0,
    "d": 86400.0,
}

# fio's file-operation engines: their "I/O" is one create/stat/unlink per
# file, reported as `iops`; they need `directory=` (not `filename=`).
METADATA_ENGINES = frozenset({"filecreate", "filestat", "filedelete", "dircreate", "dirstat", "dirdelete"})
# Engines whose byte counts are nominal, not data moved to or from storage: the file operations (fio counts
# each one as an I/O of bs bytes), `null` (completes every I/O without doing it) and `cpuio` (burns CPU).
NOMINAL_BYTES_ENGINES = METADATA_ENGINES | {"null", "cpuio"}
# What each of them does to one file or directory, as mdtest names its phases.
METADATA_OPERATIONS = {
    "filecreate": "create",
    "filestat": "stat",
    "filedelete": "remove",
    "dircreate": "directory create",
    "dirstat": "directory stat",
    "dirdelete": "directory remove",
}


def to_fio_string(value: bool | int | float | str) -> str:
    """The job-file spelling of a TOML scalar: booleans become fio's 1/0."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def parse_size(text: str) -> float | None:
    """Bytes in a fio size ("4k", "1MiB", "512"), or None if it is not one."""
    match = _SIZE.match(text)
    if not match:
        return None
    return _bounded(float(match.group(1)) * _SIZE_FACTOR[match.group(2).lower()])


def parse_share(text: str) -> float | None:
    """The share of a device or file in a fio percentage ("50%" is 0.5), or None if it is not one."""
    match = _SHARE.match(text)
    return None if match is None else float(match.group(1)) / 100


def parse_seconds(text: str) -> float | None:
    """Seconds in a fio time value ("30", "30s", "2m", "500ms"), or None."""
    match = _TIME.match(text)
    if not match:
        return None
    return _bounded(float(match.group(1)) * _TIME_FACTOR[(match.group(2) or "s").lower()])


def _bounded(value: float) -> float | None:
    """A size or time fio could hold (its unsigned long long), else None: "1" and 400 zeros read as a float
    is infinity, and int() of it was an OverflowError (the bounded parser of `iolab.numbers`, which
    models may not import, says the same of every other number)."""
    return value if value <= 2**63 - 1 else None


def option_number(name: str, text: str) -> float | None:
    """The numeric value of option `name`: seconds for a time option ("2m" is 120), else a size ("2m" is 2 MiB)."""
    return parse_seconds(text) if in_seconds(name) else parse_size(text)


def flag_on(text: str) -> bool:
    """Whether a flag's value turns it on: a bare flag, or anything that is not clearly zero, false or off.

    fio reads a flag's value as a number ("0", "00", "0.0" and "0%" are off; "1", "2" and "1.0" are on)
    and refuses words; a word that says off counts as off, anything else unclear counts as on, so the
    write guard errs towards "it writes".
    """
    value = text.strip().lower().rstrip("%")
    try:
        return float(value) != 0
    except ValueError:
        return value not in ("false", "off", "no")
