"""Never destroy data, generated: 2,000 seeded job files from the whole option table (issue 30).

Each case is prepared by iolab as `iolab run --dry-run` prepares it; each point that passes is run by the
real fio under strace, and every path fio touched must be in the run's manifest (`tests/safety_corpus.py`
says how cases are made and checked). Victims (a device full of data, a user's files, links to them) are
checksummed before and after. Needs root (loop devices), fio and strace.
Writes bench/results/safety_generative.json.

    .venv/bin/python bench/safety_generative.py [--cases 2000] [--seed 30] [--smoke]
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: tests.safety_corpus

from results_file import RESULTS, add_smoke_flag, host, write_result

from tests.safety_corpus import run_cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=30)
    add_smoke_flag(parser)  # 10 cases
    args = parser.parse_args()
    cases = 10 if args.smoke else args.cases
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped bench still detaches its loop devices
    os.environ.setdefault("IOLAB_HOME", tempfile.mkdtemp(prefix="iolab-bench-home-"))
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="iolab-safety-") as tmp:
        outcome, changed = run_cases(cases, args.seed, Path(tmp))
    figures = {
        "cases": cases,
        "seed": args.seed,
        "refused": outcome.refused,
        "points_run_by_fio": outcome.points_run,
        "paths_fio_touched": outcome.fio_paths,
        "outside_manifest": len(outcome.outside),
        "victims_changed": len(changed),
        "tracebacks": len(outcome.tracebacks),
        "stopped_at_limit": len(outcome.slow),
        "seconds": round(time.monotonic() - started, 1),
        "host": host(),
    }
    print(" ".join(f"{k}={v}" for k, v in figures.items() if k != "host"))
    for line in (outcome.outside + outcome.tracebacks + changed + outcome.slow)[:5]:
        print(line)
    write_result(RESULTS / "safety_generative.json", "safety_generative", figures, smoke=args.smoke)
    return 0 if not (outcome.outside or outcome.tracebacks or changed) else 1


if __name__ == "__main__":
    raise SystemExit(main())
