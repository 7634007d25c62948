"""How big and how slow to open is the HTML report of a large sweep?

Runs a real 50-point sweep (1 s per point, telemetry on) on a scratch
directory, makes its HTML report, and measures the file size (goal < 5 MB),
the time to make it, and how long headless Chromium takes to load and lay
it out (`--dump-dom`), minus the same for about:blank (goal < 2 s).
Writes bench/results/html_report_size.json.

    .venv/bin/python bench/html_report_size.py [--points 50]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from results_file import add_smoke_flag, write_result  # noqa: E402

from iolab.models import Plan, Workload  # noqa: E402
from iolab.report.html import render_html  # noqa: E402
from iolab.runner.execute import execute  # noqa: E402
from iolab.runner.progress import SilentProgress  # noqa: E402
from iolab.runner.request import RunRequest  # noqa: E402
from iolab.store.db import open_store  # noqa: E402
from iolab.views.run import load_run  # noqa: E402
from tests.chromium import chromium_skip_reason, dump_dom, run_chromium  # noqa: E402

SIZE_GOAL = 5_000_000
RENDER_GOAL_S = 2.0


def _plan(points: int) -> Plan:
    """`points` workloads: read/randread over block sizes and queue depths, 1 s each, no warm-up."""
    shapes = [
        (rw, bs, qd)
        for rw in ("read", "randread")
        for bs in ("4k", "16k", "64k", "256k", "1m")
        for qd in (1, 2, 4, 8, 16)
    ]
    workloads = [
        Workload(
            name=f"{rw}-{bs}-qd{qd}",
            options={
                "rw": rw,
                "bs": bs,
                "iodepth": str(qd),
                "ioengine": "libaio",
                "runtime": "1",
                "ramp_time": "0",
                "time_based": "1",
            },
        )
        for rw, bs, qd in shapes[:points]
    ]
    return Plan(name=f"html size bench, {points} points", workloads=workloads, repeat=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=50)
    parser.add_argument("--tries", type=int, default=3, help="Chromium loads to take the median of")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.points, args.tries = 2, 1
    if reason := chromium_skip_reason():
        sys.exit(reason)
    with tempfile.TemporaryDirectory(prefix="iolab-bench-") as scratch:
        home, data = Path(scratch) / "home", Path(scratch) / "data"
        data.mkdir()
        store = open_store(home)
        plan = _plan(args.points)
        request = RunRequest(plan=plan.name, targets=[str(data)], size=64 << 20, telemetry_interval=1.0)
        run_id = execute(request, store, SilentProgress(), plan=plan).run_id
        started = time.perf_counter()
        html, _ = render_html([load_run(store, run_id)])
        make_s = time.perf_counter() - started
        page = Path(scratch) / "report.html"
        page.write_text(html, encoding="utf-8")
        size = page.stat().st_size
        blank = statistics.median(run_chromium("about:blank", "--dump-dom").seconds for _ in range(args.tries))
        loads = [dump_dom(page) for _ in range(args.tries)]
        errors = sorted({line for load in loads for line in load.console})
        render_s = statistics.median(load.seconds for load in loads) - blank
        charts = html.count('<figure class="chart"')
    result = {
        "points": args.points,
        "charts": charts,
        "size_bytes": size,
        "size_goal_bytes": SIZE_GOAL,
        "make_seconds": round(make_s, 3),
        "chromium_render_seconds": round(render_s, 3),
        "chromium_blank_seconds": round(blank, 3),
        "render_goal_seconds": RENDER_GOAL_S,
        "console_errors": errors,
        "host": platform.node(),
        "python": platform.python_version(),
    }
    write_result(ROOT / "bench" / "results" / "html_report_size.json", "html_report_size", result, smoke=args.smoke)
    print(
        f"{args.points} points, {charts} charts: {size / 1e6:.2f} MB (goal < {SIZE_GOAL / 1e6:.0f} MB), "
        f"made in {make_s:.2f} s, Chromium render {render_s:.2f} s over about:blank (goal < {RENDER_GOAL_S:.0f} s)"
        + (f", console errors: {errors}" if errors else "")
    )


if __name__ == "__main__":
    main()
