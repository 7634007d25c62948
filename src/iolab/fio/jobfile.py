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

from iolab.errors import UserError
from iolab.fio.options import check_text, control_character
from iolab.textfile import read_input

_SECTION_NAME = re.compile(r"^[^\[\]]{1,200}$")


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
            name = line[1:-1].strip()
            if not line.endswith("]") or not _SECTION_NAME.match(name):
                raise UserError(
                    f"{source}:{lineno}: malformed section header {line!r} (a name of 1-200 characters in [brackets])"
                )
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
        if key.startswith("include ") or key == "include":
            raise UserError(f"{source}:{lineno}: iolab reads one job file; paste the included file's jobs into it")
        current[key] = value.strip() if sep else ""
    if not jobs:
        raise UserError(f"{source}: no job section found (a fio job file needs at least one [name] section)")
    return jobs


def read_jobfile(path: str | Path) -> list[JobSection]:
    """Parse a job file from disk; a missing or unreadable file is a UserError."""
    text = read_input(path, "job file")
    return parse_jobfile(text, source=str(path))


def render_jobfile(sections: list[JobSection]) -> str:
    """A job file fio reads back into exactly these sections and options.

    Refuses (UserError) a name or value fio would read differently: with a
    control character, or a section name with brackets.
    """
    lines: list[str] = []
    for section in sections:
        if not _SECTION_NAME.match(section.name) or section.name.strip() != section.name:
            raise UserError(f"job name {section.name!r}: use 1-200 characters, no brackets or leading blanks")
        check_text(section.name, f"job name {section.name!r}")
        lines.append(f"[{section.name}]")
        for key, value in section.options.items():
            check_text(key, f"[{section.name}] option {key!r}")
            check_text(value, f"[{section.name}] {key}")
            lines.append(f"{key}={value}" if value != "" else key)
        lines.append("")
    return "\n".join(lines)
