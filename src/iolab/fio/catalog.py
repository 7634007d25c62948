"""What the installed fio knows: option names, aliases and engine options, to catch typos before a run.

The names come from fio itself (`fio --cmdhelp` for job options, `fio
--enghelp=<engine>` for an engine's own options, `fio --cmdhelp=<name>` to
resolve aliases such as `ss` or `readwrite`), so they match the fio that
will run the plan. Answers are cached per process and per fio binary (the one
PATH finds at the call): a cache of "no fio" made while PATH named no fio must
not answer for the fio found later, nor one fio's options for another's (in the
suite, a test that hid fio left every later test of its worker without fio's
option list). Without fio, names are not checked (the runner reports fio
missing when it matters).
"""

from __future__ import annotations

import functools
import re
import subprocess
from collections.abc import Iterable

from iolab import programs

_OPTION_LINE = re.compile(r"^\s*([A-Za-z0-9_]+)\s*:", re.MULTILINE)
_TIMEOUT_S = 10


def _fio_output(*args: str) -> str | None:
    """stdout of `fio args...` of the fio PATH finds now (`programs.find`: refused where another user could have
    put it), or None when fio is absent or fails."""
    return _fio_answer(programs.find("fio"), args)


def clear_cache() -> None:
    """Forget every fio's answers (for tests that fake fio)."""
    _fio_answer.cache_clear()


@functools.cache
def _fio_answer(fio: str | None, args: tuple[str, ...]) -> str | None:
    """stdout of `fio args...` of that binary, once per binary and arguments."""
    if fio is None:
        return None
    try:
        done = programs.run([fio, *args], capture_output=True, text=True, timeout=_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def job_option_names() -> frozenset[str] | None:
    """fio's job option names (no aliases, no engine options), or None without fio."""
    text = _fio_output("--cmdhelp")
    return frozenset(_OPTION_LINE.findall(text)) if text else None


def engine_option_names(engine: str) -> frozenset[str]:
    """Options an I/O engine adds (e.g. io_uring's `hipri`); empty if unknown."""
    text = _fio_output(f"--enghelp={engine}")
    return frozenset(_OPTION_LINE.findall(text)) if text else frozenset()


def alias_target(name: str) -> str | None:
    """The option `name` is an alias of, as the installed fio says ("alias: name" under it); None if not one.

    fio prints the option an alias stands for first (`fio --cmdhelp=readwrite` starts "rw: IO direction").
    """
    text = _fio_output(f"--cmdhelp={name}")
    if not text or re.search(rf"^\s*alias:\s*{re.escape(name)}\s*$", text, re.MULTILINE) is None:
        return None
    first = _OPTION_LINE.search(text)
    return first.group(1) if first else None


def unknown_options(names: Iterable[str], engines: Iterable[str]) -> list[str] | None:
    """The names fio would reject, given the engines the plan uses; None without fio."""
    known = job_option_names()
    if known is None:
        return None
    engine_known = frozenset().union(*(engine_option_names(e) for e in set(engines)))
    return [n for n in names if n not in known and n not in engine_known and alias_target(n) is None]
