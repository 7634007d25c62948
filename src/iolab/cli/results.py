"""Commands that read stored results: `ls` and `show`."""
from __future__ import annotations

from iolab.cli import app


@app.command("ls")
def list_runs() -> None:
    """List runs (work in progress)."""
