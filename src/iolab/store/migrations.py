"""Versioned schema migrations: numbered SQL files applied in order.

The schema version lives in SQLite's `user_version`, so an old database
is brought up to date on open and a newer one is refused rather than
misread.
"""

from __future__ import annotations

import functools
import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

from iolab.errors import UserError

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


_FOLDER = Path(__file__).with_name("migrations")


@functools.cache
def _shipped() -> tuple[tuple[int, Path], ...]:
    """(version, file) of every migration shipped with iolab, in order, by their names alone: every command
    opens the store, and a store already at the latest version needs no migration's text (reading the 15
    files twice and loading importlib.resources was ~10 ms of each command)."""
    found = [(int(match[1]), _FOLDER / name) for name in os.listdir(_FOLDER) if (match := _NAME.match(name))]
    return tuple(sorted(found))


def available() -> list[tuple[int, str]]:
    """(version, SQL) of every migration shipped with iolab, in order."""
    return [(version, path.read_text()) for version, path in _shipped()]


def latest_version() -> int:
    """The schema version this iolab writes."""
    steps = _shipped()
    return steps[-1][0] if steps else 0


def migrate(conn: sqlite3.Connection, source: str) -> int:
    """Apply pending migrations, each in its own transaction; return the version."""
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    latest = latest_version()
    if current > latest:
        raise UserError(
            f"{source} has schema version {current}, newer than this iolab understands ({latest}): upgrade iolab"
        )
    for version, path in _shipped():
        if version <= current:
            continue
        sql = path.read_text()
        step = _python_steps().get(version)
        if step is None:
            conn.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;")
        else:  # the SQL, then what SQL cannot do, in one transaction: a failure leaves the old version whole
            conn.executescript(f"BEGIN;\n{sql}")
            try:
                step(conn)
                conn.execute(f"PRAGMA user_version = {version}")
                conn.commit()
            except BaseException:
                conn.rollback()
                raise
        current = version
    return current


def _python_steps() -> dict[int, Callable[[sqlite3.Connection], None]]:
    """Migrations that move rows in a way SQL cannot (numpy-encoded columns), by version."""
    from iolab.store.columns import move_sample_rows

    return {13: move_sample_rows}
