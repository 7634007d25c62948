"""Pages that contradict themselves, over generated runs rendered in every format (issue 41, Build item 2).

Each run is made of real fio outputs (tests/page_runs.py: repeats with noise and far outliers, stopped
points, QD sweeps, killed runs, metadata runs, array runs with their members' together and alone
views and doubling or leave-one-out sets, and real outputs imported: json+ with logs, client/server, IOR,
mdtest, IOzone) and rendered as the terminal, Markdown, HTML and JSON show
it (and a run of repeats, stopped or killed points compared with another such run, as `iolab compare`); a run fails when its page finds a contradiction (a critical RES-INVARIANT of the page: a figure shown as
two values, an interval breaking its rule), when the doctor finds a broken result, when any format shows a
broken interval (below zero, "invalid: ...") or a text format misses a headline line. Counted per shape.

    python bench/page_consistency.py [--runs 500] [--seed 41]
    python bench/page_consistency.py --smoke   # 10 runs, HTML for every one
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from results_file import RESULTS, add_smoke_flag, host, write_result  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--out", type=Path, default=RESULTS / "page_consistency.json")
    add_smoke_flag(parser)
    args = parser.parse_args()
    runs = 10 if args.smoke else args.runs

    from tests.page_runs import generated_run
    from tests.views.test_page_consistency import compare_problems, page_problems

    rng = random.Random(args.seed)
    shapes: Counter[str] = Counter()
    failing: Counter[str] = Counter()
    compares: Counter[str] = Counter()
    examples: list[dict] = []
    started = time.monotonic()
    for number in range(runs):
        run = generated_run(rng, number)
        shapes[run.shape] += 1
        problems = page_problems(run, html=True)
        if run.shape in ("repeats", "killed", "stopped"):  # and compared with another such run, every format
            other = generated_run(rng, number)
            if other.shape in ("repeats", "killed", "stopped"):
                compares[run.shape] += 1
                problems += compare_problems(run, other, html=True)
        if problems:
            failing[run.shape] += 1
            if len(examples) < 10:
                examples.append({"run": number, "shape": run.shape, "problems": problems[:5]})
    figures = {
        "runs": runs,
        "formats": ["terminal", "markdown", "html", "json"],
        "seed": args.seed,
        "by_shape": {shape: {"runs": n, "with_problems": failing[shape]} for shape, n in sorted(shapes.items())},
        "compared_with_another_run": dict(sorted(compares.items())),
        "runs_with_contradictions_or_broken_intervals": sum(failing.values()),
        "examples": examples,
        "seconds": round(time.monotonic() - started, 1),
        "host": host(),
    }
    write_result(args.out, "page_consistency", figures, smoke=args.smoke)
    print(f"{runs} runs x 4 formats: {sum(failing.values())} with a contradiction or a broken interval")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
