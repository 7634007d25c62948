"""Code run by a fresh interpreter: nothing the test process loaded is loaded there first, so what the code
loads (`sys.modules`) is its own; only IOLAB_HOME and a plain PATH in its environment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run_fresh(code: str, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`python -c code args...`, its output captured as text; the caller judges its exit status."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env={"IOLAB_HOME": str(home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
