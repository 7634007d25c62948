"""Generated attacks on iolab's guards, at a size the suite's sample does not reach (issue 39 item 8).

The cases of `tests/safety_attacks.py` (each an attacker's action as well as an input, aimed at one
registered guard, with the real fio and the real run loop) with every guard on: no victim may change,
fio may touch nothing outside the manifest, no attacker's action may succeed, every refusal names its
cause, nothing raises, no run ends ok after fio wrote elsewhere. Needs root (loop devices, another uid
through setpriv), fio, strace and mkfs.ext4. Writes bench/results/safety_generative.json.

    nice -n 10 .venv/bin/python bench/safety_generative.py [--cases 200] [--seed 39] [--smoke]
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: tests.safety_attacks

from results_file import RESULTS, add_smoke_flag, host, write_result

from tests.safety_attacks import run_cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=39)
    add_smoke_flag(parser)  # 10 cases
    args = parser.parse_args()
    cases = 10 if args.smoke else args.cases
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped bench still detaches its loop devices
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="iolab-safety-") as tmp:
        outcome = run_cases(cases, args.seed, Path(tmp))
    figures = {
        "cases": outcome.cases,
        "seed": args.seed,
        "kinds": dict(sorted(outcome.kinds.items())),
        "refused": outcome.refused,
        "reached_fio": outcome.reached_fio,
        "paths_fio_touched": outcome.fio_paths,
        "failed": len(outcome.failures),
        "failed_by": dict(sorted(outcome.signals().items())),
        "seconds": round(time.monotonic() - started, 1),
        "host": host(),
    }
    print(" ".join(f"{k}={v}" for k, v in figures.items() if k not in ("host", "kinds")))
    for line in outcome.failures[:5]:
        print(line)
    write_result(RESULTS / "safety_generative.json", "safety_generative", figures, smoke=args.smoke)
    return 0 if not outcome.failures else 1


if __name__ == "__main__":
    raise SystemExit(main())
