"""Commands that produce results: `run` and `import`."""
from __future__ import annotations

from iolab.cli import app


@app.command()
def run() -> None:
    """Run the quick preset (work in progress)."""
