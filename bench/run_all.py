"""`make bench`: every benchmark of iolab itself, one after another (not part of CI).

Each script prints its figures and writes bench/results/NAME.json.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
SCRIPTS = [
    "startup.py",
    "overhead.py",
    "telemetry_overhead.py",
    "perf_overhead.py",
    "time_to_answer.py",
    "import_speed.py",
    "fioplot_collection.py",
    "history_speed.py",
    "history_cli_speed.py",
    "loop_vs_fio.py",
    "loop_memory_control.py",
    "dryrun_accuracy.py",
    "html_report_size.py",
    "calibration.py",
    "stopping_coverage.py",
    "stopping_fall.py",
    "stopping_quick.py",
    "stopping_sweeps.py",
]


def main() -> int:
    failed = []
    for name in SCRIPTS:
        print(f"== {name}", flush=True)
        if subprocess.run([sys.executable, str(HERE / name)], check=False).returncode != 0:
            failed.append(name)
    if failed:
        print("failed: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
