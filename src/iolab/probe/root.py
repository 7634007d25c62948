"""One place every host read goes through, so a captured tree can stand in for `/`.

Tests and `--root DIR` / support bundles point a `Root` at a copy of /sys,
/proc and /etc; the live machine is `Root("/")`.
"""

from __future__ import annotations

import os
from pathlib import Path


class Root:
    """Reads files and lists directories below a root directory."""

    def __init__(self, base: str | os.PathLike[str] = "/") -> None:
        self.base = Path(base)

    def path(self, absolute: str) -> Path:
        """Map an absolute host path (e.g. "/proc/mounts") into this root."""
        return self.base / absolute.lstrip("/")

    def read_text(self, absolute: str) -> str | None:
        """The file's text, or None when it is missing or unreadable."""
        try:
            return self.path(absolute).read_text(errors="replace")
        except OSError:
            return None

    def listdir(self, absolute: str) -> list[str]:
        """Sorted entries of a directory; empty when it is missing or unreadable."""
        try:
            return sorted(os.listdir(self.path(absolute)))
        except OSError:
            return []

    def exists(self, absolute: str) -> bool:
        return self.path(absolute).exists()

    @property
    def is_live(self) -> bool:
        """True when this root is the running machine itself."""
        return self.base.resolve() == Path("/")
