"""Where every benchmark keeps its figures: bench/results/NAME.json, named and dated the same way.

Every script also has a smoke mode (`--smoke`, see `add_smoke_flag`): a tiny size that shows it still
runs, which `make test` runs (tests/bench/test_smoke.py). A smoke run's figures mean nothing, so they
never reach bench/results: they go to the directory in $IOLAB_BENCH_RESULTS, or to a temporary one.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
SMOKE_RESULTS_ENV = "IOLAB_BENCH_RESULTS"


def host() -> dict:
    """The machine a figure was measured on, as much as a figure needs: kernel, CPUs, Python, load."""
    return {
        "kernel": platform.release(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }


def add_smoke_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--smoke",
        action="store_true",
        help=f"a tiny size that only checks the script runs; figures go to ${SMOKE_RESULTS_ENV}, not bench/results",
    )


def write_result(path: Path, name: str, figures: dict, smoke: bool = False) -> Path:
    """The figures as JSON at `path` (a smoke run's in the smoke directory instead); the path written."""
    if smoke:
        path = Path(os.environ.get(SMOKE_RESULTS_ENV) or tempfile.mkdtemp(prefix="iolab-bench-smoke-")) / path.name
        figures = {"smoke": True, **figures}
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"benchmark": name, "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **figures}
    path.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {path}")
    return path
