"""Is this fio's JSON? Every field iolab reads, checked for fio's type and a possible value.

fio writes its numbers as JSON numbers and its options as strings; a file
edited by hand, produced by another tool or damaged on the way may hold
NaN, a negative count, a string for a number or 1e300 IOPS. Stored, such a
value would break every later `history`, `export` and report that reads
the run, so a document is checked whole before anything is taken from it,
and the first bad field is named by its path (`jobs[0].read.iops`).
The fields iolab reads are checked for their type and range one by one;
then every other value of a job (fsync's `sync` latencies, `drop_ios`,
`bw_min`, `iodepth_level`, ...) must be what fio writes everywhere there: a
number, finite, not negative (`_every_number`). NaN, null, a string or -1
in any of them is damage, whether or not iolab reads that field today: a
field read tomorrow must not inherit a document that held it.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from itertools import compress

from iolab.errors import UserError
from iolab.fio.options import MAX_NAME

# Upper bounds no real device or run reaches: far beyond them is damage.
MAX_COUNT = 2**63 - 1
MAX_RATE = 1e15  # IOPS, or bytes/s (a petabyte per second)
MAX_RUNTIME_MS = 10 * 365 * 86400 * 1000
MAX_CPU_PERCENT = 1e6
MAX_LATENCY_NS = 1e18  # about 30 years
# fio writes all three from 3.x on (trim is absent before 2.1); read and write always.
REQUIRED_DIRECTIONS = ("read", "write")
DIRECTIONS = ("read", "write", "trim")
LATENCY_KEYS = ("slat_ns", "clat_ns", "lat_ns", "slat", "clat", "lat")


class BadField(Exception):
    """A field that is not what fio writes; `path` names it, `problem` says what it should be."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


def check_document(doc: Mapping, source: str) -> None:
    """UserError naming the first field of `doc` that fio would not have written, or nothing. A document as fio
    writes it is passed by `_usual` at once; anything that is not is walked field by field (`_document`), which
    names the first bad one."""
    if _usual(doc):
        return
    try:
        _document(doc)
    except BadField as exc:
        raise UserError(f"{source}: not fio output as fio writes it: {exc}") from None


def _document(doc: Mapping) -> None:
    for key in ("fio version", "fioversion"):  # fio 2.1.3 wrote "fioversion"
        if key in doc and not isinstance(doc[key], str):
            raise BadField(key, "expected a string such as fio-3.33")
    if "timestamp_ms" in doc:
        _number(doc["timestamp_ms"], "timestamp_ms", MAX_COUNT, whole=True)
    elif "timestamp" in doc:
        _number(doc["timestamp"], "timestamp", MAX_COUNT // 1000, whole=True)
    key = "client_stats" if "client_stats" in doc else "jobs"
    jobs = doc.get(key)
    if not isinstance(jobs, list) or not jobs:
        raise BadField(key, "expected a list of at least one job")
    for index, job in enumerate(jobs):
        _job(job, f"{key}[{index}]")


def _job(entry: object, path: str) -> None:
    if not isinstance(entry, dict):
        raise BadField(path, "expected a job object")
    _job_strings(entry, path)
    _job_numbers(entry, path)
    for key, value in entry.items():
        if key not in JOB_STRINGS:
            _every_number(value, f"{path}.{key}", negative=key == "steadystate")
    if entry.get("jobname") == "All clients":
        return  # fio's client summary: read only for its options
    for ddir in DIRECTIONS:
        if ddir in entry or ddir in REQUIRED_DIRECTIONS:
            _direction(entry.get(ddir), f"{path}.{ddir}")


def _job_strings(entry: dict, path: str) -> None:
    """The job's name, host and options: strings, as fio writes them."""
    name = entry.get("jobname")
    if not isinstance(name, str) or not name or len(name) > MAX_NAME or not name.isprintable():
        raise BadField(f"{path}.jobname", f"expected a name of 1-{MAX_NAME} printable characters")
    if "hostname" in entry and not isinstance(entry["hostname"], str):
        raise BadField(f"{path}.hostname", "expected a string")
    options = entry.get("job options", {})
    if not isinstance(options, dict) or not all(isinstance(v, str) for v in options.values()):
        raise BadField(f"{path}.job options", "expected an object of option strings")


def _job_numbers(entry: dict, path: str) -> None:
    """The job's error number, CPU, runtime and steady-state figures iolab reads by name, of fio's type and in
    range."""
    if "error" in entry:
        _number(entry["error"], f"{path}.error", MAX_COUNT, whole=True)
    for cpu in ("usr_cpu", "sys_cpu"):
        if cpu in entry:
            _number(entry[cpu], f"{path}.{cpu}", MAX_CPU_PERCENT)
    if "job_runtime" in entry:
        _number(entry["job_runtime"], f"{path}.job_runtime", MAX_RUNTIME_MS, whole=True)
    if "steadystate" in entry:
        _steadystate(entry["steadystate"], f"{path}.steadystate")


# The values of a job fio writes as strings (or, for steadystate, as strings among its numbers).
JOB_STRINGS = frozenset({"jobname", "hostname", "desc", "verror", "job options"})
STEADYSTATE_STRINGS = frozenset({"ss", "criterion"})


def _every_number(tree: object, path: str, negative: bool = False) -> None:
    """Every value under `tree` a finite number (not negative unless `negative`: a steady-state slope may
    be), in objects and lists; an object of numbers only (latency bins, percentiles, iodepth levels) is
    checked at C speed, as `_plain_table` does."""
    if isinstance(tree, dict):
        _every_number_of(tree, path, negative)
        return
    if isinstance(tree, list):
        for index, value in enumerate(tree):
            _every_number(value, f"{path}[{index}]", negative)
        return
    if isinstance(tree, bool) or not isinstance(tree, int | float):
        raise BadField(path, f"expected a number, got {str(tree)[:40] if tree is not None else 'null'}")
    if isinstance(tree, float) and not math.isfinite(tree):
        raise BadField(path, f"{tree!r} is not possible (expected a finite number)")
    if tree < 0 and not negative:
        raise BadField(path, f"{tree!r} is not possible (fio counts and times are never negative)")


def _every_number_of(tree: dict, path: str, negative: bool) -> None:
    """`_every_number` of an object. Its plain numbers are checked together (a job's and a direction's ~20
    counters each; an object of numbers only, such as latency bins, whole): when they all pass, only the rest
    (objects, lists, anything else) is walked; else everything is, in order, and the first value that fails is
    named as the walk one by one names it."""
    numbers = _plain_numbers(tree)
    fine = _numbers_pass(numbers, negative)
    if fine and len(numbers) == len(tree):
        return
    for key, value in tree.items():
        if (fine and type(value) in PLAIN_NUMBERS) or (negative and _steadystate_string(key, value)):
            continue
        _every_number(value, f"{path}.{key}", negative)


PLAIN_NUMBERS = frozenset({int, float})  # JSON's numbers, as parsed (not bool: True is no number of fio's)


def _plain_numbers(tree: dict) -> list:
    """The object's values that are plain numbers: all of them, copied at C speed, when nothing else is there
    (latency bins, percentiles, iodepth levels: filtering their ~300 values one by one was a fifth of the
    validation's time)."""
    values = tree.values()
    if PLAIN_NUMBERS.issuperset(map(type, values)):
        return list(values)
    return [value for value in values if type(value) in PLAIN_NUMBERS]


def _numbers_pass(numbers: Collection, negative: bool) -> bool:
    """Whether all of `numbers` (ints and floats) are finite and, unless `negative`, not negative, at C speed:
    a NaN or infinity makes the sum so."""
    return not numbers or ((negative or min(numbers) >= 0) and math.isfinite(sum(numbers)))


def _steadystate_string(key: str, value: object) -> bool:
    """fio's steady-state object holds two strings among its numbers (what was asked)."""
    return key in STEADYSTATE_STRINGS and isinstance(value, str)


def _steadystate(ss: object, path: str) -> None:
    """fio's steady-state object: what was asked and found as strings, whether it held, its window."""
    if not isinstance(ss, dict):
        raise BadField(path, "expected fio's steady-state object")
    for key in ("ss", "criterion"):
        if key in ss and (not isinstance(ss[key], str) or len(ss[key]) > MAX_NAME or not ss[key].isprintable()):
            raise BadField(f"{path}.{key}", "expected a short string such as 'iops:20.000000%'")
    if "attained" in ss:
        _number(ss["attained"], f"{path}.attained", 1, whole=True)
    if "duration" in ss:
        _number(ss["duration"], f"{path}.duration", MAX_RUNTIME_MS / 1000, whole=True)


def _direction(part: object, path: str) -> None:
    if not isinstance(part, dict):
        raise BadField(path, "expected the direction's statistics (an object)")
    if "io_bytes" not in part and "io_kbytes" not in part:
        raise BadField(f"{path}.io_bytes", "missing")
    _direction_figures(part, path)
    for key in LATENCY_KEYS:
        if key in part:
            _latency(part[key], f"{path}.{key}")


def _direction_figures(part: dict, path: str) -> None:
    """A direction's figures iolab reads (`DIRECTION_FIELDS`), each in range."""
    for key, limit, whole in DIRECTION_FIELDS:
        if key in part:
            _number(part[key], path, limit, whole, key)


# A direction's numbers: name, upper bound, whether fio counts it whole.
DIRECTION_FIELDS = (
    ("io_bytes", MAX_COUNT, True),
    ("io_kbytes", MAX_COUNT, True),
    ("total_ios", MAX_COUNT, True),
    ("runtime", MAX_RUNTIME_MS, True),
    ("iops", MAX_RATE, False),
    ("bw_bytes", MAX_RATE, False),
    ("bw", MAX_RATE / 1024, False),
)


def _latency(stats: object, path: str) -> None:
    if not isinstance(stats, dict):
        raise BadField(path, "expected latency statistics (an object)")
    _latency_figures(stats, path)
    percentiles = stats.get("percentile", {})
    if not isinstance(percentiles, dict):
        raise BadField(f"{path}.percentile", "expected an object of percentile: latency")
    if not _plain_table(percentiles, 100.0, MAX_LATENCY_NS, counts=False):
        for key, value in percentiles.items():
            _key_number(key, f"{path}.percentile", 100.0)
            _number(value, f"{path}.percentile[{key}]", MAX_LATENCY_NS)
    bins = stats.get("bins", {})
    if not isinstance(bins, dict):
        raise BadField(f"{path}.bins", "expected an object of latency: count")
    if not _plain_table(bins, MAX_LATENCY_NS, MAX_COUNT, counts=True):
        for key, value in bins.items():
            _key_number(key, f"{path}.bins", MAX_LATENCY_NS)
            _number(value, f"{path}.bins[{key}]", MAX_COUNT, whole=True)


def _latency_figures(stats: dict, path: str) -> None:
    """Latency statistics' min, max, mean and stddev, and their count N, in range."""
    for key in ("min", "max", "mean", "stddev"):
        if key in stats:
            _number(stats[key], path, MAX_LATENCY_NS, False, key)
    if "N" in stats:
        _number(stats["N"], path, MAX_COUNT, True, "N")


def _plain_table(table: dict, key_limit: float, value_limit: float, counts: bool) -> bool:
    """Whether every key is a number from 0 to `key_limit` and every value one from 0 to `value_limit` (a whole
    count when `counts`), as fio writes its percentiles and json+ bins, checked at C speed: json+ holds up to
    ~1,800 bins per direction, and the check one by one took longer than reading the JSON. A NaN passes min
    and max but makes the sum NaN; whatever fails here is named by the check one by one."""
    if not table:
        return True
    values = table.values()
    kinds = set(map(type, values))
    if not (kinds == {int} if counts else kinds <= {int, float}):
        return False
    if not (min(values) >= 0 and max(values) <= value_limit):  # before sum(): a sum of huge ints is no float
        return False
    # ints are never NaN: json+'s bins (counts) skip the sum
    return (counts or not math.isnan(sum(values))) and _keys_within(table, key_limit)


def _keys_within(table: dict, limit: float) -> bool:
    """Whether every key of `table` is a number from 0 to `limit`."""
    if _whole_keys(table, limit):
        return True
    try:
        keys = list(map(float, table))
    except ValueError:
        return False
    return min(keys) >= 0 and max(keys) <= limit and not math.isnan(sum(keys))


def _whole_keys(table: dict, limit: float) -> bool:
    """Whether every key is written in ASCII digits alone, 1 to 18 of them, so a whole number from 0 to below 1e18,
    and `limit` is at least that: json+'s bins (latencies in ns, ~300 a direction) as fio writes them, checked in
    one pass over their joined text (converting each to a float took twice as long, ~24 µs a direction). Anything
    else (a percentile's "99.900000", a sign, a space, an empty key) is left to the float conversion."""
    if limit < WHOLE_KEY_BOUND:
        return False
    joined = "".join(table)
    return joined.isascii() and joined.isdigit() and "" not in table and max(map(len, table)) <= WHOLE_KEY_DIGITS


WHOLE_KEY_DIGITS = 18
WHOLE_KEY_BOUND = 1e18  # WHOLE_KEY_DIGITS digits stay below it


def _key_number(key: str, path: str, limit: float) -> None:
    try:
        value = float(key)
    except ValueError:
        raise BadField(path, f"the key {key[:40]!r} is not a number") from None
    if not 0 <= value <= limit:
        raise BadField(path, f"the key {key[:40]} is outside 0-{limit:g}")


def _number(value: object, path: str, limit: float, whole: bool = False, name: str = "") -> None:
    """A JSON number fio could have written: finite, from 0 to `limit`, whole where fio counts; `path` (and
    `name` in it) names it in the error.

    An int or float in range returns at once (a json+ output holds ~100 of them to check), before any path
    is formatted; anything else goes to `_not_number`, which says what is wrong. NaN and infinity fail the
    range test."""
    kind = type(value)
    if kind is int:
        if 0 <= value <= limit:  # type: ignore[operator]
            return
    elif kind is float and 0 <= value <= limit and (not whole or value.is_integer()):  # type: ignore[operator,attr-defined]
        return
    _not_number(value, f"{path}.{name}" if name else path, limit, whole)


def _not_number(value: object, path: str, limit: float, whole: bool) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadField(path, f"expected a number, got {str(value)[:40]!r}")
    if (isinstance(value, float) and not math.isfinite(value)) or not 0 <= value <= limit:  # an int never
        # goes to float here: math.isfinite(10**400) raised OverflowError
        raise BadField(path, f"{value!r} is not possible (expected 0 to {limit:g})")
    if whole and not float(value).is_integer():
        raise BadField(path, f"expected a whole number, got {value!r}")


# The usual document, passed at once (`check_document`): the same checks as `_document`'s, made together where
# the walk makes them one by one. `_usual` only ever says yes when `_document` would pass the document (it
# returns False at anything unusual, to be walked and named), so it decides faster, never otherwise:
# tests/fio/test_validate_usual.py holds it to `_document` on every fio output under tests/data and thousands
# of documents damaged from them. On 1,000 json+ outputs the walk took ~115 µs a document, `_usual` ~70.

PLAIN_OR_DICT = frozenset({int, float, dict})
USUAL_LATENCY = ("slat_ns", "clat_ns", "lat_ns")  # fio 3's
OLD_LATENCY = ("slat", "clat", "lat")  # fio 2's, walked
_plain = PLAIN_NUMBERS.__contains__


def _usual(doc: Mapping) -> bool:
    """Whether `doc` passes every check of `_document` (see above); False also when it cannot tell at once."""
    try:
        jobs = doc["jobs"]
        if "client_stats" in doc or type(jobs) is not list or not jobs or not _usual_head(doc):
            return False
        return all(_usual_job(job) for job in jobs)
    except (BadField, KeyError, TypeError, ValueError, OverflowError):
        return False


def _usual_head(doc: Mapping) -> bool:
    """The version a string, the time stamps whole numbers in range, as `_document` has them."""
    for key in ("fio version", "fioversion"):
        if key in doc and type(doc[key]) is not str:
            return False
    if "timestamp_ms" in doc:
        stamp, limit = doc["timestamp_ms"], MAX_COUNT
    else:
        stamp, limit = doc.get("timestamp", 0), MAX_COUNT // 1000
    return type(stamp) is int and 0 <= stamp <= limit


def _usual_job(entry: object) -> bool:
    """A job entry `_job` passes: its strings and named numbers (`_job_strings`, `_job_numbers`: they raise
    BadField, and `_usual` says no), every other value a number or an object of numbers, its directions'
    figures in range (`_usual_direction`)."""
    if type(entry) is not dict or entry.get("jobname") == "All clients" or "steadystate" in entry:
        return False  # fio's client summary and a steady-state object (strings, signed slopes): walked
    _job_strings(entry, "")
    _job_numbers(entry, "")
    return REQUIRED_KEYS <= entry.keys() and _usual_values(entry)


REQUIRED_KEYS = frozenset(REQUIRED_DIRECTIONS)


def _usual_values(entry: dict) -> bool:
    """Every value of the job but its strings: a number, an object of numbers, a direction (`_usual_direction`)."""
    numbers = []
    for key, value in entry.items():
        kind = type(value)
        if key in DIRECTIONS:
            if kind is not dict or not _usual_direction(value):
                return False
        elif kind is int or kind is float:
            numbers.append(value)
        elif key not in JOB_STRINGS and (kind is not dict or not _numbers_only(value)):
            return False
    return _numbers_pass(numbers, False)


def _numbers_only(tree: dict) -> bool:
    """Whether every value under `tree` is a finite number, not negative, in objects only (`_every_number`)."""
    values = tree.values()
    kinds = set(map(type, values))
    if kinds <= PLAIN_NUMBERS:
        return _numbers_pass(values, False)
    if not kinds <= PLAIN_OR_DICT or not _numbers_pass(_numbers_of(values), False):
        return False
    return all(_numbers_only(value) for value in values if type(value) is dict)


def _numbers_of(values: Collection) -> list:
    """The plain numbers among `values`, at C speed."""
    return list(compress(values, map(_plain, map(type, values))))


def _usual_direction(part: dict) -> bool:
    """A direction `_direction` passes and `_every_number` too: its numbers in range, its objects fio 3's
    latency statistics, each `_usual_latency`."""
    values = part.values()
    kinds = list(map(type, values))
    if not PLAIN_OR_DICT.issuperset(kinds) or "io_bytes" not in part or not part.keys().isdisjoint(OLD_LATENCY):
        return False  # another object or a list, no io_bytes or fio 2's latencies (in µs): walked
    if not _numbers_pass(_numbers_of(values), False):
        return False
    _direction_figures(part, "")
    latencies = [part[key] for key in USUAL_LATENCY if key in part]
    # no object but the latencies', each fio 3's statistics
    return kinds.count(dict) == len(latencies) and all(type(s) is dict and _usual_latency(s) for s in latencies)


def _usual_latency(stats: dict) -> bool:
    """Latency statistics `_latency` passes and `_every_number` too: min, max, mean, stddev and N in range,
    percentiles and bins plain tables (`_plain_table`, which holds their values to `_every_number`'s rule)."""
    values = stats.values()
    kinds = set(map(type, values))
    tables = ("percentile" in stats) + ("bins" in stats)
    if kinds <= PLAIN_NUMBERS and not tables:
        return _plain_latency(stats)
    if not kinds <= PLAIN_OR_DICT or not _numbers_pass(_numbers_of(values), False):
        return False
    _latency_figures(stats, "")
    percentiles, bins = stats.get("percentile", {}), stats.get("bins", {})
    return (
        type(percentiles) is dict
        and type(bins) is dict
        and list(map(type, values)).count(dict) == tables  # no object but the tables
        and _plain_table(percentiles, 100.0, MAX_LATENCY_NS, counts=False)
        and _plain_table(bins, MAX_LATENCY_NS, MAX_COUNT, counts=True)
    )


def _plain_latency(stats: dict) -> bool:
    """Latency statistics of numbers only (a direction that moved nothing, slat): each number from 0 to
    MAX_LATENCY_NS (so below MAX_COUNT too), N whole."""
    values = stats.values()
    return not stats or (
        _numbers_pass(values, False) and max(values) <= MAX_LATENCY_NS and type(stats.get("N", 0)) is int
    )
