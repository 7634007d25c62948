"""One fio job's options, read as fio reads them: the one typed view of option strings.

Options travel as strings: that is how a Point stores and hashes them and how
the job file is written, so the strings stay the canonical form and
`JobOptions` is a read-only `Mapping[str, str]` of exactly the strings it was
given. What a reader wants back (how deep the queue is, whether the I/O is
direct, how long the job runs) it asks here, and gets it with fio's aliases
(a job file may say `readwrite=` or `blocksize=`), fio's suffixes
(`option_values`), fio's defaults and what writes applied in one place, the
last three from the option table (`iolab.models.option_spec`), so the doctor,
the tables, the estimates and the write guard cannot read one job two ways.
"""

from __future__ import annotations

from collections.abc import Iterator, KeysView, Mapping

from iolab.models.option_spec import ALIASES, SPECS, WRITES, canonical, default
from iolab.models.option_values import (
    METADATA_ENGINES,
    METADATA_OPERATIONS,
    NOMINAL_BYTES_ENGINES,
    flag_on,
    option_number,
    parse_seconds,
    parse_share,
    parse_size,
)

# fio's rw modes ("readwrite" is fio's other name of "rw"): those that only read, and those that write or
# trim. `writes` counts any mode that is not read-only, so a mode fio has not got errs towards writing.
READ_ONLY_MODES = frozenset({"read", "randread"})
WRITE_MODES = frozenset({"write", "trim", "randwrite", "randtrim", "rw", "randrw", "trimwrite", "randtrimwrite"})
RW_MODES = READ_ONLY_MODES | WRITE_MODES | {"readwrite"}
_READING_MODES = READ_ONLY_MODES | {"rw", "randrw"}


class JobOptions(Mapping[str, str]):
    """A job's option strings as given (a copy), and their values as fio reads them.

    Reading an option by any of its names gives the value of the one given
    last (fio applies a job's options in order), else fio's default, else
    None. A value that is not a number of the kind asked for reads as None.
    """

    __slots__ = ("_options", "_by_name")

    def __init__(self, options: Mapping[str, str] | None = None) -> None:
        self._options: dict[str, str] = dict(options or {})
        self._by_name = {ALIASES.get(name, name): value for name, value in self._options.items()}  # `canonical`

    def __getitem__(self, name: str) -> str:
        return self._options[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._options)

    def __len__(self) -> int:
        return len(self._options)

    def __repr__(self) -> str:
        return f"JobOptions({self._options!r})"

    @property
    def names(self) -> KeysView[str]:
        """fio's own names of the options given (`canonical`: an alias as the option it names), read from the
        job as it was made: the doctor asked them of every point twice, 50,000 lookups for 1,000 points."""
        return self._by_name.keys()

    def text(self, name: str) -> str | None:
        """The value of option `name` under any of its names, else fio's default, else None."""
        name = canonical(name)
        return self._by_name.get(name, default(name))

    def given(self, name: str) -> str | None:
        """The value of option `name` as the job gave it under any of its names; None when it gave none
        (what a finding quotes, and what tells "left to fio's default" from "set")."""
        return self._by_name.get(canonical(name))

    def _value(self, name: str) -> str:
        """The value of an option fio has a default for (a row of the option table with a `default`)."""
        given = self._by_name.get(name)
        return given if given is not None else default(name) or ""

    def seconds(self, name: str) -> float | None:
        """A time option in seconds ("30", "2m", "500ms")."""
        text = self.text(name)
        return None if text is None else parse_seconds(text)

    def size(self, name: str) -> int | None:
        """A size in bytes or a count ("4k", "1MiB", "32": fio reads both with the same suffixes); None for a
        percentage of the device."""
        text = self.text(name)
        value = None if text is None else parse_size(text)
        return None if value is None else int(value)

    def share(self, name: str) -> float | None:
        """A size given as a percentage of the device or file ("50%" is 0.5); None for anything else."""
        text = self.text(name)
        return None if text is None else parse_share(text)

    def number(self, name: str) -> float | None:
        """The option's number: seconds for a time option ("2m" is 120), else a size ("2m" is 2 MiB)."""
        text = self.text(name)
        return None if text is None else option_number(name, text)

    def flag(self, name: str) -> bool:
        """Whether a flag is on: given bare or with a value that is not clearly zero or off (`flag_on`)."""
        text = self.text(name)
        return text is not None and flag_on(text)

    @property
    def engine(self) -> str:
        return self._value("ioengine").strip()

    @property
    def is_metadata(self) -> bool:
        """A file-operation engine (create/stat/delete): it works on a directory, not a file, and its I/O
        is one operation per file."""
        return self.engine in METADATA_ENGINES

    @property
    def moves_data(self) -> bool:
        """Whether the bytes fio counts for this job are data moved to or from storage: not a file-operation
        engine's, `null`'s or `cpuio`'s nominal bytes, nor an mdtest import's."""
        return self.engine not in NOMINAL_BYTES_ENGINES and self.tool != "mdtest"

    @property
    def operation(self) -> str | None:
        """What a file-operation job does to each file ("create", "stat", "remove", mdtest's names); None
        for a job that reads or writes data."""
        return METADATA_OPERATIONS.get(self.engine)

    @property
    def tool(self) -> str | None:
        """The other benchmark an imported point came from (mdtest, IOR, IOzone), None for fio's: what such a
        tool did not measure (CPU; bandwidth for mdtest) is not shown as a zero."""
        tool = self._options.get("tool")
        return tool if tool and tool != "fio" else None

    @property
    def rw(self) -> str:
        """The I/O pattern: rw= without fio's `:<n>` suffix, `readwrite` spelt `rw` (one mode, two names)."""
        mode = self._value("rw").split(":", 1)[0].strip()
        return "rw" if mode == "readwrite" else mode

    @property
    def rw_suffix(self) -> str:
        """What follows rw='s `:` ("8" in `randread:8`: a new random offset every 8 I/Os; for a sequential
        mode, a gap after each I/O), or ""."""
        return self._value("rw").partition(":")[2].strip()

    @property
    def reads(self) -> bool:
        return self.rw in _READING_MODES

    @property
    def write_reasons(self) -> list[str]:
        """Why the job changes data on its target ("rw=randwrite", "unlink=1 deletes the files it used"); empty:
        it reads only. The one answer to "does this job write" (`writes`), which the write guard
        (`iolab.runner.safety.write_refusal`) asks: a flag counts as set unless its value is clearly zero or off
        (`flag_on`), and a mode fio has not got counts as writing, so it errs towards "it writes"."""
        reasons = [f"rw={self.rw}"] if self.rw not in READ_ONLY_MODES else []
        for name in self._by_name:  # the options it gives whose row says they change data (class WRITES)
            row = SPECS.get(name)
            if row is not None and row.safety == WRITES and self.flag(name):
                reasons.append(f"{name}={self.text(name)} {row.why}")
        return reasons

    @property
    def writes(self) -> bool:
        """Whether the job writes, trims or deletes data on its target (`write_reasons`)."""
        return bool(self.write_reasons)

    @property
    def sequential(self) -> bool:
        return not self.rw.startswith("rand")

    @property
    def iodepth(self) -> int:
        return self.size("iodepth") or 1

    @property
    def numjobs(self) -> int:
        return self.size("numjobs") or 1

    @property
    def bs(self) -> int:
        """Bytes per I/O. fio's `bs=r,w,t` sizes each direction (a missing one inherits the one before, an
        empty one is fio's default): this is the reads' size for a job that reads, else the writes' (the
        trims' for a trim job)."""
        parts = self._value("bs").split(",")
        direction = 0 if self.reads else 2 if self.rw in ("trim", "randtrim") else 1
        fios = default("bs") or ""
        part = parts[min(direction, len(parts) - 1)].strip() or fios
        return int(parse_size(part) or parse_size(fios) or 0)

    @property
    def direct(self) -> bool:
        """O_DIRECT: direct=1 or buffered=0. fio keeps one setting for both (buffered is direct's inverse),
        so the one given later decides; neither given is fio's default, buffered."""
        for name, value in reversed(self._options.items()):
            if canonical(name) == "direct":
                return flag_on(value)
            if canonical(name) == "buffered":
                return not flag_on(value)
        return False

    @property
    def time_based(self) -> bool:
        return self.flag("time_based")

    @property
    def runtime_seconds(self) -> float | None:
        """runtime= in seconds; None when the job sets none (it ends when its size is done)."""
        return self.seconds("runtime")

    @property
    def ramp_seconds(self) -> float:
        return self.seconds("ramp_time") or 0.0

    @property
    def size_bytes(self) -> int | None:
        """The bytes a job's I/O spans: size=, else filesize=; None when neither is a plain size."""
        return self.size("size") or self.size("filesize")

    @property
    def expected_seconds(self) -> float:
        """Seconds fio should spend on the job: ramp_time + runtime.

        Time-based jobs take exactly that. Otherwise runtime, when set, is
        only a cap, used as an upper bound; a job bounded by size alone
        counts 0 (its time depends on the device).
        """
        if not self.time_based and self.text("runtime") is None:
            return 0.0
        return self.ramp_seconds + (self.runtime_seconds or 0.0)
