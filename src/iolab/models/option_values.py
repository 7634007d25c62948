"""fio option values: turning plan scalars into fio strings and back into numbers.

Plans hold TOML scalars (1, "4k", true); fio job files hold strings. Exclude
rules and duration estimates need numbers again, with fio's own suffixes:
sizes use base 1024 (fio's default kb_base), times default to seconds.

Pure reading of a Point's plain option strings, so it lives with the models: a Point knows how long it
runs, and the plan, the doctor and the report read option values the same way without importing fio.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b)?\s*$", re.IGNORECASE)
_TIME = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(us|usec|ms|msec|s|sec|m|min|h|d)?\s*$", re.IGNORECASE)
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


def is_metadata(options: dict[str, str]) -> bool:
    """Whether a job uses a file-operation engine, and so works on a directory, not a file."""
    return options.get("ioengine") in METADATA_ENGINES


# Options whose plain numbers are seconds (fio's time-postfix options that the
# plan side reasons about); everything else numeric is a count or a size.
TIME_OPTIONS = frozenset(
    {
        "runtime",
        "ramp_time",
        "startdelay",
        "steadystate_duration",
        "ss_dur",
        "steadystate_ramp_time",
        "ss_ramp",
        "timeout",
    }
)


# fio's own defaults (HOWTO) for the options iolab reads where a job leaves them out; the one place that
# knows them, so the doctor, the tables and the estimates read a job the same way fio runs it.
FIO_DEFAULTS: dict[str, str] = {
    "iodepth": "1",
    "numjobs": "1",
    "bs": "4k",
    "ramp_time": "0",
}


def option_seconds(options: Mapping[str, str], key: str) -> float | None:
    """A time option's seconds (fio's default where it has one); None when absent or not a time."""
    text = options.get(key, FIO_DEFAULTS.get(key))
    return parse_seconds(text) if text else None


def option_size(options: Mapping[str, str], key: str) -> int | None:
    """A size or count option in bytes or units (fio's default where it has one); None when absent, a
    percentage, or not a number."""
    text = options.get(key, FIO_DEFAULTS.get(key))
    value = parse_size(text) if text else None
    return None if value is None else int(value)


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
    return float(match.group(1)) * _SIZE_FACTOR[match.group(2).lower()]


def parse_seconds(text: str) -> float | None:
    """Seconds in a fio time value ("30", "30s", "2m", "500ms"), or None."""
    match = _TIME.match(text)
    if not match:
        return None
    return float(match.group(1)) * _TIME_FACTOR[(match.group(2) or "s").lower()]


def option_number(key: str, text: str) -> float | None:
    """The numeric value of option `key`, using time units for time options."""
    return parse_seconds(text) if key in TIME_OPTIONS else parse_size(text)


def is_flag_on(options: Mapping[str, str], key: str) -> bool:
    """Whether a boolean fio option is set: a bare flag ("") or a non-zero value."""
    if key not in options:
        return False
    value = options[key].strip()
    return value == "" or value not in ("0", "false", "off", "no")


def job_seconds(options: dict[str, str]) -> float:
    """Seconds fio should spend on a job: ramp_time + runtime.

    Time-based jobs take exactly that. Otherwise runtime, when set, is only
    a cap, used as an upper bound; a job bounded by size alone counts 0
    (its time depends on the device).
    """
    if not is_flag_on(options, "time_based") and "runtime" not in options:
        return 0.0
    return (option_seconds(options, "ramp_time") or 0.0) + (option_seconds(options, "runtime") or 0.0)
