"""fio job files: writing one per point, and reading users' own.

fio's job-file syntax is INI-like: `[section]` headers, `key=value` or a
bare `key` (a flag), `;` and `#` comments, and a `[global]` section whose
options every later job inherits. We read it ourselves rather than with
configparser, because fio allows repeated keys and bare flags.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from iolab.errors import UserError


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
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                raise UserError(f"{source}:{lineno}: malformed section header {line!r}")
            name = line[1:-1].strip()
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
        current[key.strip()] = value.strip() if sep else ""
    if not jobs:
        raise UserError(f"{source}: no job section found (a fio job file needs at least one [name] section)")
    return jobs


def read_jobfile(path: str | Path) -> list[JobSection]:
    """Parse a job file from disk; a missing or unreadable file is a UserError."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise UserError(f"cannot read job file {path}: {exc.strerror}") from None
    return parse_jobfile(text, source=str(path))


def render_jobfile(sections: list[JobSection]) -> str:
    """A job file fio reads back into exactly these sections and options."""
    lines: list[str] = []
    for section in sections:
        lines.append(f"[{section.name}]")
        for key, value in section.options.items():
            lines.append(f"{key}={value}" if value != "" else key)
        lines.append("")
    return "\n".join(lines)
