"""The headlines after an 18-point qd-sweep with three interleaved repeats, counted as the terminal prints them.

Issue 33: such a sweep (QD 1 to 256, 4 KiB random and 128 KiB sequential
read, 1 s points) gave 52 warnings and 26 info, the two that mattered
buried. The doctor now groups findings by rule and cause and the terminal
lists at most `iolab.report.findings.HEADLINES` of them after a run, with
counts for the rest; this bench runs the real sweep on a loop device over
tmpfs (`iolab.runner.execute`, as `iolab run --preset qd-sweep --repeat 3
--runtime 1 --ramp 0` does), renders its findings as the terminal does
after a run, and counts the headlines: at most HEADLINES shown, and every
other warning or critical group counted in the "N more headline(s)" line.

    python bench/headline_sweep.py [--runtime 1]
    python bench/headline_sweep.py --smoke   # QD 1, one repeat: the bench still runs (seconds)
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loopdev import ram_loop_device  # noqa: E402
from results_file import RESULTS, add_smoke_flag, host, write_result  # noqa: E402


def sweep(device: str, runtime: int, repeats: int, max_qd: int) -> dict:
    """Run the sweep into a store of its own; its findings as the terminal shows them after a run."""
    from rich.console import Console

    from iolab.models import Severity
    from iolab.report.findings import HEADLINES, headlines, render_findings
    from iolab.runner.execute import execute
    from iolab.runner.progress import SilentProgress
    from iolab.runner.request import RunRequest
    from iolab.store.db import open_store

    request = RunRequest(
        plan="qd-sweep",
        settings={"runtime": runtime, "ramp": 0, "max_qd": max_qd},
        repeat=repeats,
        targets=[device],
    )
    started = time.perf_counter()
    outcome = execute(request, open_store(), SilentProgress())
    if outcome.status != "complete":
        raise SystemExit(f"the sweep did not complete: {outcome.status} {outcome.failed}")
    out = io.StringIO()
    render_findings(outcome.findings, Console(file=out, width=200, color_system=None), verbose=False)
    text = out.getvalue()
    serious = [f for f in outcome.findings if f.severity in (Severity.CRITICAL, Severity.WARNING)]
    groups = headlines(serious)
    shown = [line for line in text.splitlines() if line.startswith(("CRITICAL", "WARNING"))]
    return {
        "seconds": round(time.perf_counter() - started, 1),
        "findings": dict(Counter(f.severity.value for f in outcome.findings)),
        "headline_groups": len(groups),
        "headlines_shown": len(shown),
        "headline_limit": HEADLINES,
        "more_headlines_line": next((line for line in text.splitlines() if "more headline" in line), None),
        "shown": shown,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", type=int, default=1, help="seconds a point (the issue's sweep: 1)")
    add_smoke_flag(parser)
    args = parser.parse_args()
    repeats, max_qd = (1, 1) if args.smoke else (3, 256)
    with (
        tempfile.TemporaryDirectory(prefix="iolab-headlines-") as home,
        ram_loop_device("iolab-headlines-", 64) as (
            _,
            device,
        ),
    ):
        os.environ["IOLAB_HOME"] = home
        figures = {"host": host(), "runtime_s": args.runtime, "repeats": repeats, "max_qd": max_qd}
        figures |= sweep(device, args.runtime, repeats, max_qd)
    write_result(RESULTS / "headline_sweep.json", "headline_sweep", figures, smoke=args.smoke)
    print(
        f"{figures['findings']}; {figures['headline_groups']} warning/critical headline(s), "
        f"{figures['headlines_shown']} shown (at most {figures['headline_limit']}); took {figures['seconds']} s"
    )
    for line in figures["shown"]:
        print(f"  {line}")
    if figures["more_headlines_line"]:
        print(f"  {figures['more_headlines_line']}")
    hidden = figures["headline_groups"] - figures["headlines_shown"]
    counted = (figures["more_headlines_line"] or "").startswith(f"{hidden} more headline") if hidden else True
    fits = figures["headlines_shown"] <= figures["headline_limit"] and counted
    return 0 if fits or args.smoke else 1


if __name__ == "__main__":
    sys.exit(main())
