"""`make bench`: every benchmark of iolab itself, one after another (not part of CI).

Each script prints its figures and writes bench/results/NAME.json; `--smoke` runs each at its tiny
size instead (figures to $IOLAB_BENCH_RESULTS, never bench/results), as tests/bench/test_smoke.py does.
The scripts are found, not listed: every module here with a `__main__` guard but this one and the
pages' figure writer (run it afterwards: `bench/readme_figures.py`, for README.md and docs/).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
NOT_BENCHES = {"run_all.py", "readme_figures.py"}


def scripts() -> list[str]:
    return sorted(
        path.name
        for path in HERE.glob("*.py")
        if path.name not in NOT_BENCHES and 'if __name__ == "__main__":' in path.read_text(encoding="utf-8")
    )


def main() -> int:
    extra = ["--smoke"] if "--smoke" in sys.argv[1:] else []
    failed = []
    for name in scripts():
        print(f"== {name}", flush=True)
        if subprocess.run([sys.executable, str(HERE / name), *extra], check=False).returncode != 0:
            failed.append(name)
    if failed:
        print("failed: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
