"""Versioned schema migrations: numbered SQL files applied in order.

The schema version lives in SQLite's `user_version`, so an old database
is brought up to date on open and a newer one is refused rather than
misread.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from importlib import resources

from iolab.errors import UserError

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def available() -> list[tuple[int, str]]:
    """(version, SQL) of every migration shipped with iolab, in order."""
    found = []
    for entry in resources.files("iolab.store").joinpath("migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append((int(match[1]), entry.read_text()))
    return sorted(found)


def latest_version() -> int:
    """The schema version this iolab writes."""
    steps = available()
    return steps[-1][0] if steps else 0


def migrate(conn: sqlite3.Connection, source: str) -> int:
    """Apply pending migrations, each in its own transaction; return the version."""
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    steps = available()
    latest = latest_version()
    if current > latest:
        raise UserError(
            f"{source} has schema version {current}, newer than this iolab understands ({latest}): upgrade iolab"
        )
    for version, sql in steps:
        if version <= current:
            continue
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
