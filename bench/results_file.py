"""Where every benchmark keeps its figures: bench/results/NAME.json, named and dated the same way."""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def host() -> dict:
    """The machine a figure was measured on, as much as a figure needs: kernel, CPUs, Python."""
    return {"kernel": platform.release(), "cpus": os.cpu_count(), "python": platform.python_version()}


def write_result(path: Path, name: str, figures: dict) -> None:
    """The figures as JSON at `path`, headed by the benchmark's name and when it ran."""
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"benchmark": name, "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **figures}
    path.write_text(json.dumps(record, indent=2) + "\n")
