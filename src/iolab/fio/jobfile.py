"""fio job files: writing one per point, and reading users' own.

fio's job-file syntax is INI-like: `[section]` headers, `key=value` or a
bare `key` (a flag), `;` and `#` comments, and a `[global]` section whose
options every later job inherits. We read it ourselves rather than with
configparser, because fio allows repeated keys and bare flags.

fio reads a job file line by line and ends each line at its first `;` or
`#`, wherever it is (`bs=4k;8k` is `bs=4k` to fio): reading does the same,
and writing refuses a name or value that fio would cut short or split into
lines (`iolab.fio.options.check_text`). Option names and
values themselves are checked by `iolab.fio.options`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from iolab import guards
from iolab.errors import UserError
from iolab.fio.options import check_text, control_character
from iolab.models.point import IOLAB_FORMAT
from iolab.textfile import read_input

_SECTION_NAME = re.compile(r"^[^\[\]]{1,200}$")
# Every job section iolab writes is named this (an array's: "iolab@<device>"): fio makes file names and
# verify state files from a job's name, so a user's job name (kept as the point's label) never reaches fio.
JOB_SECTION = "iolab"
DEVICE_SEPARATOR = "@"
_IOLAB_SECTION = re.compile(r"^iolab(@[A-Za-z0-9][A-Za-z0-9._-]{0,63})?$")


@dataclass
class JobSection:
    """One job of a job file, with the [global] options before it merged in."""

    name: str
    options: dict[str, str] = field(default_factory=dict)


def parse_jobfile(text: str, source: str = "<job file>") -> list[JobSection]:
    """The jobs of a fio job file, each with its effective options.

    A later `[global]` section only affects jobs after it, as in fio.
    Raises UserError naming the file and line on a syntax error.
    """
    global_opts: dict[str, str] = {}
    jobs: list[JobSection] = []
    current: dict[str, str] | None = None
    for lineno, raw in enumerate(text.split("\n"), start=1):  # fio's lines: only "\n" ends one
        line = re.split(r"[;#]", raw, maxsplit=1)[0].strip(" \t\r")  # fio ends a line at ';' or '#'
        bad = control_character(line.replace("\t", " "))
        if bad is not None:
            raise UserError(f"{source}:{lineno}: contains the control character {bad}; remove it")
        if not line:
            continue
        if line.startswith("["):
            name = _section_name(line, f"{source}:{lineno}")
            if name == "global":
                current = global_opts
            else:
                job = JobSection(name=name, options=dict(global_opts))
                jobs.append(job)
                current = job.options
            continue
        if current is None:
            raise UserError(f"{source}:{lineno}: option {line!r} comes before any [section]")
        key, sep, value = line.partition("=")
        key = key.strip()
        if (key.startswith("include ") or key == "include") and guards.active("include-refusal"):
            raise UserError(f"{source}:{lineno}: iolab reads one job file; paste the included file's jobs into it")
        current[key] = value.strip() if sep else ""
    if not jobs:
        raise UserError(f"{source}: no job section found (a fio job file needs at least one [name] section)")
    return jobs


def _section_name(line: str, where: str) -> str:
    """The name in a `[section]` header line, or UserError naming `where`."""
    name = line[1:-1].strip()
    if not line.endswith("]") or not _SECTION_NAME.match(name):
        raise UserError(f"{where}: malformed section header {line!r} (a name of 1-200 characters in [brackets])")
    return name


guards.register(
    "include-refusal",
    "`include FILE` in a job file (fio would read jobs iolab never checked)",
    f"{__name__}.parse_jobfile",
)


def read_jobfile(path: str | Path) -> list[JobSection]:
    """Parse a job file from disk; a missing or unreadable file is a UserError."""
    text = read_input(path, "job file")
    return parse_jobfile(text, source=str(path))


def render_jobfile(sections: list[JobSection]) -> str:
    """The job file iolab hands fio: exactly these sections and options, every path in it named by iolab.

    Every job file fio runs for iolab is made here, so this is where the class "fio derives a path iolab
    never saw" is shut (`named_by_iolab`). Refuses (UserError) a name or value fio would read
    differently: with a control character, `;` or `#`.
    """
    lines: list[str] = []
    for section in sections:
        if not _IOLAB_SECTION.match(section.name) and guards.active("named-by-iolab"):
            raise UserError(f"job name {section.name!r}: iolab names the jobs it hands fio ({JOB_SECTION})")
        named_by_iolab(section.options)
        lines.append(f"[{section.name}]")
        for key, value in section.options.items():
            check_text(key, f"[{section.name}] option {key!r}")
            check_text(value, f"[{section.name}] {key}")
            lines.append(f"{key}={value}" if value != "" else key)
        lines.append("")
    return "\n".join(lines)


def named_by_iolab(options: dict[str, str]) -> None:
    """UserError unless fio can derive no path from anything but iolab's own names.

    fio makes file names of its own from a job's name and `filename_format` (`$jobname.$jobnum.$filenum`
    under `directory=`), expands `${VAR}`, `$(expr)` and keywords such as `$ncpus` in any value, and names
    verify state files after the job. So the section is always iolab's own name, the job names its files
    (`filename=`) or iolab's directory (`directory=`), and the only `$` that reaches fio is in one of
    iolab's own file-name patterns (`IOLAB_FORMAT`: `iolab-<word>.$jobnum.$filenum`) under that directory.
    Anything else is a defect upstream of here, so it is refused, never passed on.
    """
    _no_expansion(options)
    if not guards.active("named-by-iolab"):
        return
    if "filename" not in options and "directory" not in options:
        raise UserError("a job without filename= or directory=: iolab names the target of every job")
    if "directory" in options and "filename_format" not in options and "filename" not in options:
        raise UserError("a job with directory= and no file-name pattern: fio would name files after the job")


def _no_expansion(options: dict[str, str]) -> None:
    """UserError for a `$` fio would expand: in any value but a file-name pattern of iolab's own
    (`IOLAB_FORMAT`) under iolab's directory."""
    for name, value in options.items():
        if name == "filename_format":
            if (not IOLAB_FORMAT.match(value) or "directory" not in options) and guards.active("named-by-iolab"):
                raise UserError(f"filename_format={value}: iolab names the files fio makes itself; drop it")
        elif "$" in value and guards.active("dollar-refusal"):
            raise UserError(f"{name}={value}: fio would expand '$' in it; write the value itself")
