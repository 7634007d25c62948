"""fio job options: where their names and values are checked and classified (`JobOptions` reads them).

Every option iolab hands to fio (from a TOML plan, a user's job file, a
preset, a command-line override, a precondition, a host's job file) passes
through here, because the write guard is only as good as its reading of the
options: `readwrite=write` is `rw=write` to fio, a newline inside a value is
a second option to fio, and `opendir=`, `exec_prerun=` or an I/O engine
loaded from a shared library act outside the target iolab checked.

Three questions are answered for a job's options:
- does it write (or trim, or delete) data on its target (`JobOptions.write_reasons`);
- does it name a path of its own (refused: paths are targets, checked as such);
- does it run a program or load code (`commands`: needs `--allow-commands`).

Each answer reads the option table (`iolab.models.option_spec`: one row per option with its class, type,
range and check); this module holds the checks themselves and nothing of its own about an option.

Facts used (fio's HOWTO, `fio --cmdhelp`, fio 3.x): option names are
case-sensitive and have aliases (`readwrite`, `blocksize`, `timeout`, `ss`...);
`rw=` takes an optional `:<n>` suffix after the mode; `filename=` and
`directory=` split several paths on `:` unless it is escaped as `\\:`; a
value ends at the first `;` or `#` on its line (fio's comments); fio
expands `${VAR}` and `$(expr)` in job files; an `ioengine=` name fio does not
have built in is loaded as a shared library; `include <file>` pulls in
another job file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from iolab import guards
from iolab.errors import UserError
from iolab.fio.catalog import alias_target, job_option_names
from iolab.models import option_spec
from iolab.models.host_settings import names as host_setting_names
from iolab.models.job_options import RW_MODES, JobOptions
from iolab.models.option_spec import (
    BLOCK_SIZE,
    COMMAND,
    DURATION,
    ENGINE,
    FLOAT_LIST,
    HOST,
    INTEGER,
    MEM_MODE,
    RW,
    SIZE,
    TARGET,
    WHOLE,
    OptionSpec,
    canonical,
)
from iolab.models.option_values import METADATA_ENGINES, parse_seconds, parse_share, parse_size
from iolab.models.point import IOLAB_FORMAT
from iolab.numbers import INT64_MAX, REAL_MAX, real, whole

# Engines whose reads read and whose writes write the target iolab names (the `rw` mode decides).
DATA_ENGINES = frozenset(
    {
        "sync",
        "psync",
        "vsync",
        "pvsync",
        "pvsync2",
        "libaio",
        "io_uring",
        "io_uring_cmd",
        "posixaio",
        "mmap",
        "null",
        "sg",
        "splice",
        "xnvme",
        "dev-dax",
        "libpmem",
        "cpuio",
    }
)
# Derived from the option table (`iolab.models.option_spec`), for the plan's and lint's questions:
# the options iolab sets from the target (a plan names targets instead), and those it refuses with what to do.
TARGET_OPTIONS = frozenset(option_spec.names_of(TARGET))
PATH_OPTIONS = {row.name: row.why for row in option_spec.ROWS if row.refused}
# Memory-buffer modes that may name a file (`mem=mmap:/path`), which fio creates.
_MEM_PATH = re.compile(r"^[a-z]+:")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
# Any C0 control character, DEL, and the Unicode line breaks: fio reads a job file line by line.
_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")
MAX_VALUE = 4096
# Characters of a job name: a plan's workload names its fio job, and fio JSON names each job it ran.
MAX_NAME = 200
MAX_BLOCK_SIZE = 1 << 30
COMMENT_CHARACTERS = (";", "#")


def control_character(text: str) -> str | None:
    """The first control character in `text`, spelled so a person can read it (`\\n`), or None."""
    match = _CONTROL.search(text)
    return None if match is None else repr(match.group())[1:-1]


def check_text(text: str, what: str) -> None:
    """Refuse a name, value or path that fio would not read back as written.

    A control character would make a line of its own; fio ends every value
    at the first `;` or `#` (its comment characters, anywhere in a line), so
    `/mnt/a;b/f` would be `/mnt/a` to fio.
    """
    bad = control_character(text)
    if bad is not None:
        raise UserError(
            f"{what}: contains the control character {bad}, which fio would read as a new line or option; remove it"
        )
    for char in COMMENT_CHARACTERS:
        if char in text:
            raise UserError(
                f"{what}: contains {char!r}, where fio would cut it short (fio reads ';' and '#' as the "
                "start of a comment); remove it, or rename the path"
            )


def check_path(path: str, what: str) -> None:
    """Refuse a path fio would not open as written: `check_text`, and no `$` (fio expands `${VAR}` in a
    path, so `l/d${Z}` checked by iolab could be another device to fio)."""
    check_text(path, what)
    if "$" in path and guards.active("dollar-refusal"):
        raise UserError(
            f"{what}: {path!r} contains '$', which fio would expand (${{VAR}}, $(expr)) into another path; "
            "rename it or give the path by a link without '$'"
        )


def checked_option(name: str, value: str, where: str, written: object = None) -> tuple[str, str]:
    """One option as fio will read it: (fio_name name, value), or UserError naming `where`.

    Checks what every option must satisfy whatever it is: a name fio could
    have, no control character, no `$` expansion, no path-naming option, and
    the type of the options iolab reasons about. `written` is the value as the
    user wrote it (a TOML number), for the message.
    """
    _check_shape(name, value, where)
    fio_name = canonical(name)  # the one alias resolver
    if fio_name == "filename_format" and not IOLAB_FORMAT.match(value) and guards.active("named-by-iolab"):
        raise UserError(
            f"{where}: {value!r}: iolab names the files fio makes itself (iolab-job.N.M in a directory of its "
            'own); drop filename_format, and use files = "per-job" in a plan for a file per job'
        )
    if "$" in value and fio_name != "filename_format" and guards.active("dollar-refusal"):
        raise UserError(
            f"{where}: {value!r}: fio would expand '$' (environment variables, expressions, $ncpus...); "
            "write the value itself"
        )
    path = _path_option(name, fio_name, value)
    if path:
        raise UserError(f"{where}: {path}")
    _check_classified(name, fio_name, where)
    problem = value_problem(fio_name, value)
    if problem:
        raise UserError(f"{where}: expected {problem}, got {value if written is None else written!r}")
    return fio_name, value


def _check_shape(name: str, value: str, where: str) -> None:
    """UserError unless the name and value are text fio reads back as written: a name fio could have, no
    control character or comment, a value of at most `MAX_VALUE` characters."""
    check_text(name, where)
    check_text(value, f"{where} = {value!r}")
    if not _NAME.match(name):
        raise UserError(f"{where}: {name!r} is not a fio option name (letters, digits, '_' and '-')")
    if len(value) > MAX_VALUE:
        raise UserError(f"{where}: the value is {len(value)} characters long; fio options take at most {MAX_VALUE}")


# Set for one run by `--allow-unknown-options` (`unknown_options_allowed`): options missing from the table pass.
_UNKNOWN_ALLOWED: ContextVar[bool] = ContextVar("unknown_options_allowed", default=False)
guards.register(
    "option-allowlist",
    "an option iolab never classified (what it reads, writes or runs)",
    f"{__name__}._check_classified",
)
guards.register(
    "dollar-refusal",
    "a '$' fio would expand (${VAR}, $(expr), $ncpus) in a value or path",
    f"{__name__}.checked_option",
)
guards.register(
    "named-by-iolab", "a file name fio would derive (filename_format, a job's name)", "iolab.fio.jobfile.named_by_iolab"
)


@contextmanager
def unknown_options_allowed(allowed: bool) -> Iterator[None]:
    """For the block, options missing from iolab's option table pass through (`--allow-unknown-options`)."""
    token = _UNKNOWN_ALLOWED.set(allowed)
    try:
        yield
    finally:
        _UNKNOWN_ALLOWED.reset(token)


@guards.guard(
    "path-options", "an option naming a path of its own (a log, a replayed trace, an included file, mem=mmap:FILE)"
)
def _path_option(name: str, fio_name: str, value: str) -> str | None:
    """Why fio must not get this option because it names a path of its own (a path is a target, checked as
    one), or None: every PATH row of the option table, refused with its `why` (what to do instead), and
    `mem=` when its mode names a file."""
    row = option_spec.SPECS.get(fio_name)
    if row is not None and row.refused:
        return f"iolab does not pass {name}= to fio: it {row.why}"
    if row is not None and row.check == MEM_MODE and _MEM_PATH.match(value):
        return f"{value!r} names a file fio would create; use a mode without a path (e.g. mem=mmap)"
    return None


def _check_classified(name: str, fio_name: str, where: str) -> None:
    """UserError unless the option has a row in the option table (`iolab.models.option_spec`): one iolab
    never classified is refused by name (the refused PATH rows are refused before, by `_path_option`)."""
    if fio_name in option_spec.SPECS or _UNKNOWN_ALLOWED.get() or not guards.active("option-allowlist"):
        return
    if fio_name in host_setting_names():
        raise UserError(f"{where}: {name!r} is a host setting, not a fio option: give it in [host]")
    known = job_option_names()
    if known is not None and fio_name not in known and alias_target(name) is None:
        raise UserError(f"{where}: {name!r} is not a fio option (fio --cmdhelp lists them)")
    raise UserError(
        f"{where}: iolab has not classified fio's option {name!r} (what it reads, writes or runs); "
        "--allow-unknown-options passes it, together with --allow-write and --allow-commands"
    )


def checked_options(options: Mapping[str, str], where: str, allow_target: bool = False) -> dict[str, str]:
    """A job's options with fio_name names, each checked (`checked_option`); `where` names the source.

    `allow_target`: a user's job file may name `filename`/`directory` (they become its target); a plan may not.
    """
    checked: dict[str, str] = {}
    for name, value in options.items():
        fio_name, text = checked_option(name, value, f"{where}.{name}" if where else name)
        if fio_name in TARGET_OPTIONS and not allow_target:
            raise UserError(f"{where}.{name}: iolab sets this from the target; list paths in 'targets' instead")
        if fio_name in checked and fio_name != name:
            raise UserError(f"{where}: {name} and {fio_name} are the same fio option; give it once")
        checked[fio_name] = text
    return checked


def _whole_within(value: str, low: int, high: int) -> bool:
    """Whether `value` is a whole number in ASCII digits from `low` to `high`, as fio reads a count
    (the bounded parser `iolab.numbers.whole`; no sign and no float spelling, which fio would misread)."""
    if not value.isdigit():
        return False
    try:
        whole(value, "count", low, high)
    except UserError:
        return False
    return True


def _rw_problem(row: OptionSpec, value: str) -> str | None:
    job = JobOptions({row.name: value})
    if job.rw not in RW_MODES:
        return f"one of {', '.join(sorted(RW_MODES))}"
    suffix = job.rw_suffix  # `randread:8` (I/Os per new offset), `write:4k` (a gap): a size, never negative
    if suffix and parse_size(suffix) is None:  # None beyond int64 too
        return "a mode with an optional size after ':' (randread:8, write:4k), not negative"
    return None


def _whole_problem(row: OptionSpec, value: str) -> str | None:
    low, high = row.bounds or (0, INT64_MAX)
    return None if _whole_within(value, low, high) else f"a whole number from {low} to {high}"


def _whole_bytes(text: str) -> bool:
    """Whether `text` is a size of whole bytes ("1.5k" is 1536; "1.5" is not a size)."""
    size = parse_size(text)
    return size is not None and size.is_integer()


def _size_problem(row: OptionSpec, value: str) -> str | None:
    """A size of whole bytes or a percentage of the target for each direction a comma separates (`bs=r,w,t`)."""
    parts = value.split(",")  # at most one per direction: read, write, trim
    ok = bool(value.strip()) and len(parts) <= 3 and all(_whole_bytes(p) or parse_share(p) is not None for p in parts)
    return None if ok else "a size of whole bytes such as 4096, '4k' or '1MiB'"


# One part of fio's integer value: a hex number, or a decimal number with a size or time suffix.
_INTEGER_PART = re.compile(
    r"^\s*(?:0x[0-9a-f]{1,16}|(?P<sign>-?)(?P<number>[0-9]{1,20}(?:\.[0-9]{1,20})?)\s*(?P<unit>[a-z]{0,4}))\s*$",
    re.IGNORECASE | re.ASCII,
)
_SIZE_UNITS = {f"{p}{i}{b}": 1024 ** (n + 1) for n, p in enumerate("kmgtp") for i in ("", "i") for b in ("", "b")}
_TIME_UNITS = frozenset({"ns", "us", "usec", "ms", "msec", "s", "sec", "m", "min", "h", "d"})


def _integer_problem(row: OptionSpec, value: str) -> str | None:
    """fio's integer value (type INTEGER): for each direction a comma separates, a whole number within fio's
    range, a size (4k) or a time (10ms); never NaN, an exponent (1e400: fio reads the 1 and stops) or a sign
    fio's range does not take."""
    low, high = row.low or 0, row.high
    expected = f"a whole number from {low}{f' to {high}' if high is not None else ''}, or a size such as 4k"
    parts = value.split(",")
    if not value.strip():
        return None  # a bare option is fio's to judge
    if len(parts) > 3 or not all(_integer_part_fits(part, low, high, len(parts) > 1) for part in parts):
        return expected
    return None


def _integer_part_fits(part: str, low: int, high: int | None, several: bool) -> bool:
    """Whether one direction's part of an integer value is a number fio reads whole within `low`-`high`:
    hex (at most 16 digits: within 64 bits), a time (10ms), or a whole number of bytes or units."""
    if not part.strip():
        return several  # `rate=,10m`: the write direction alone
    match = _INTEGER_PART.match(part)
    if match is None or match.group("number") is None:
        return match is not None
    unit = match.group("unit").lower()
    if unit in _TIME_UNITS:
        return True
    number = _scaled(match.group("number"), unit, match.group("sign"))
    return number is not None and number.is_integer() and low <= number <= (INT64_MAX if high is None or unit else high)


def _scaled(number: str, unit: str, sign: str) -> float | None:
    """A decimal part's value: times its size suffix (4k is 4096), negative after a '-'; None for a unit
    fio has not got."""
    scale = _SIZE_UNITS.get(unit, 0 if unit else 1)
    return float(number) * scale * (-1 if sign else 1) if scale else None


def _float_list_problem(row: OptionSpec, value: str) -> str | None:
    """fio's list of floating point values separated by ':' (percentile_list=50:99:99.9): each finite, not
    negative, and at most the row's `high` (100 for a percentile)."""
    high = REAL_MAX if row.high is None else float(row.high)
    try:
        numbers = [real(part, row.name, 0.0, high) for part in value.split(":")] if value.strip() else []
    except UserError:
        numbers = None
    if numbers is not None and len(numbers) <= 64:
        return None
    return f"numbers from 0{f' to {row.high}' if row.high is not None else ''} separated by ':' (50:99:99.9)"


def _block_size_problem(row: OptionSpec, value: str) -> str | None:
    """Every direction's block size above 0 and one fio can allocate buffers of."""
    problem = _size_problem(row, value)
    if problem is not None:
        return problem
    sizes = [parse_size(part) for part in value.split(",")]
    if all(size is not None and 0 < size <= MAX_BLOCK_SIZE for size in sizes):
        return None
    return "a block size from 1 byte to 1 GiB, such as '4k' or '1m'"


def _duration_problem(row: OptionSpec, value: str) -> str | None:
    return None if parse_seconds(value) is not None else "a duration such as 30 or '30s' or '2m'"


def _engine_problem(row: OptionSpec, value: str) -> str | None:
    return None if value.strip() else "a non-empty string"


# Each value check of the option table (`OptionSpec.value_check`) and what does it; a row whose check is not
# here (a memory mode, a file-name pattern: judged with the paths) or has none is fio's to read.
_CHECKS: dict[str, Callable[[OptionSpec, str], str | None]] = {
    RW: _rw_problem,
    WHOLE: _whole_problem,
    BLOCK_SIZE: _block_size_problem,
    DURATION: _duration_problem,
    ENGINE: _engine_problem,
    INTEGER: _integer_problem,
    SIZE: _size_problem,
    FLOAT_LIST: _float_list_problem,
}
# Options whose values are numbers or modes iolab checks: a TOML true/false is never one of them.
TYPED_OPTIONS = frozenset(row.name for row in option_spec.ROWS if row.value_check in _CHECKS)


def value_problem(name: str, value: str) -> str | None:
    """What the value of a canonical option should have been, or None: its row's check (every option fio
    declares numeric, and those iolab reasons about); strings and flags are fio's to read."""
    row = option_spec.SPECS.get(name)
    check = None if row is None or row.value_check is None else _CHECKS.get(row.value_check)
    return None if check is None or row is None else check(row, value)


def engine_problem(engine: str) -> str | None:
    """Why iolab cannot vouch for an I/O engine (it may load code or act beyond `rw`), or None."""
    if engine in DATA_ENGINES or engine in METADATA_ENGINES:
        return None
    if engine.startswith("external") or "/" in engine:
        return f"ioengine={engine} loads a shared library into fio"
    return (
        f"ioengine={engine} is not an engine iolab can check (fio loads engines it lacks from shared "
        "libraries, and others reach the network or change files beyond rw=)"
    )


@dataclass
class Effects:
    """What a job would do beyond reading its target: each entry says which option and why."""

    writes: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)


def effects(options: Mapping[str, str]) -> Effects:
    """The writes and commands in a job's (canonical) options."""
    job = JobOptions(options)
    commands = []
    for name in sorted({canonical(given) for given in job}):
        row, text = option_spec.SPECS.get(name), job.given(name) or ""
        if row is None or row.check == ENGINE:  # the engine is judged by name below (`engine_problem`)
            continue
        if row.safety == COMMAND and text.strip():
            commands.append(f"{name}={text}")
        elif row.safety == HOST:
            commands.append(f"{name}={text} {row.why}")
    problem = engine_problem(job.engine)
    if problem:
        commands.append(problem)
    return Effects(writes=job.write_reasons, commands=commands)


@guards.guard("extent-check", "a job reaching past the end of a file iolab did not make (fio extends it by writing)")
def extent_problem(options: Mapping[str, str], length: int) -> str | None:
    """Why a job would reach past the end of a file of `length` bytes (fio extends it by writing), or None.

    Only what can be shown in range is allowed: plain sizes and percentages, offset + size <= length.
    """
    job = JobOptions(options)

    def bytes_of(name: str, default: float) -> float | None:
        if not (job.given(name) or "").strip():
            return default
        share = job.share(name)
        return share * length if share is not None else job.size(name)

    if (job.given("nrfiles") or "1").strip() not in ("", "1"):
        return "nrfiles= makes fio create more files"
    offset, size = bytes_of("offset", 0.0), bytes_of("size", float(length))
    filesize = bytes_of("filesize", 0.0)
    if (job.given("offset_increment") or "").strip() and job.numjobs > 1:
        return "offset_increment= with numjobs moves each job further into the file"
    if offset is None or size is None or filesize is None:
        return "its size or offset is not a plain size or percentage"
    if offset + max(size, filesize) > length:
        return f"offset + size reaches {offset + max(size, filesize):.0f} bytes, past the file's {length} bytes"
    return None


def escape_path(path: str) -> str:
    """A path as fio's `filename=`/`directory=` read it: a `:` would otherwise split it into two paths."""
    if "\\" in path:
        raise UserError(f"{path}: iolab cannot pass a path with a backslash to fio exactly; use another path")
    check_path(path, "path")
    return path.replace(":", "\\:")


def split_paths(value: str) -> list[str]:
    """The paths of a job file's `filename=`/`directory=`: split on unescaped `:`, `\\:` kept as `:`."""
    return [part.replace("\\:", ":") for part in re.split(r"(?<!\\):", value)]


def seconds_value(seconds: float) -> str:
    """A duration as fio reads it exactly: `1209600s`, `1500ms`; never Python's `1.2096e+06s`, which fio cuts to 1 s."""
    millis = round(seconds * 1000)
    return f"{millis // 1000}s" if millis % 1000 == 0 else f"{millis}ms"
