"""The registry of every guard that stands between iolab and someone's data.

A guard is one check that refuses a write, a path, an input or a peer. Each is
declared here by name, with one line saying what it refuses, so that three
things read the same list: the README's guard table (a registered guard with
no row fails the suite), the mutation bench (`bench/safety_mutation.py`
switches each guard off in turn and the generative safety test must then
fail), and `--dry-run`'s account of the checks a path passed.

A guard is either a function wrapped by `guard` (switched off, it returns its
`allow` value without running) or a condition in code that reads `active(name)`
(a flag passed to `open`, a hold kept). Switching off is in-process only: there
is no environment variable or option that turns a guard off, so nothing a user
or another user controls can.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Guard:
    """One registered guard: its stable name, what it refuses, and where it lives."""

    name: str
    refuses: str
    where: str


GUARDS: dict[str, Guard] = {}
_OFF: set[str] = set()


def register(name: str, refuses: str, where: str) -> Guard:
    """Declare a guard that lives as a condition in code (read it with `active`)."""
    known = GUARDS.get(name)
    if known is not None and known.where != where:
        raise ValueError(f"guard {name!r} is registered twice: {known.where} and {where}")
    GUARDS[name] = Guard(name, refuses, where)
    return GUARDS[name]


def active(name: str) -> bool:
    """Whether a registered guard is on (always, except inside the mutation bench's `switched_off`)."""
    if name not in GUARDS:
        raise KeyError(f"no guard named {name!r} is registered")
    return name not in _OFF


def switched_off_now() -> frozenset[str]:
    """The guards switched off at this moment: a cached answer that guards decide keys on it, so a check cached
    while they were on is not the answer once the bench switches one off (or the other way round)."""
    return frozenset(_OFF)


def guard(name: str, refuses: str, allow: object = None) -> Callable[[F], F]:
    """Register the decorated check; switched off, it returns a copy of `allow` without running.

    `allow` is what the check returns when it finds nothing to refuse: None for a check that returns a
    reason or raises, [] for one that returns a list of reasons, True for a predicate of safety.
    """

    def wrap(check: F) -> F:
        register(name, refuses, f"{check.__module__}.{check.__qualname__}")

        @functools.wraps(check)
        def checked(*args: Any, **kwargs: Any) -> Any:
            if name in _OFF:
                return copy.copy(allow)
            return check(*args, **kwargs)

        return checked  # type: ignore[return-value]

    return wrap


@contextmanager
def switched_off(*names: str) -> Iterator[None]:
    """Switch the named guards off for the block: for the mutation bench and its tests only."""
    unknown = [n for n in names if n not in GUARDS]
    if unknown:
        raise KeyError(f"no guard named {', '.join(map(repr, unknown))} is registered")
    before = set(_OFF)
    _OFF.update(names)
    try:
        yield
    finally:
        _OFF.clear()
        _OFF.update(before)
