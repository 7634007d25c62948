"""TEL-DIP and TEL-STEP on real traces nobody tuned them to: fio-plot's published per-job logs.

fio-plot's benchmark data (real SSDs, HDDs, RAID sets, a USB stick and a
floppy) holds each point's per-job bandwidth logs. Each point's logs are read
as `iolab import` reads them (`iolab.fio.logs`), summed per interval as the
doctor sums them (`iolab.doctor.derived.point_series`), and the two rules
judge the point. Every point with a finding is listed by hand in
`bench/fioplot_events.toml`, as a true event (with how the trace dips or
steps) or a false alarm (with why it is not one); the bench fails on one
that is not listed.

Every count checks the rules were evaluated on the point (an "all jobs"
series long enough to judge); points without one are counted apart. Each
judged point's twin, the same trace with its middle 5 s cut to 10%, must
be named by TEL-DIP or TEL-STEP: the count can move.

The data is not shipped with iolab (see bench/fioplot_collection.py for how
to get it); pass its directory.

    python bench/fioplot_traces.py --data DIR [--limit N] [--out PATH]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tomllib
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from results_file import RESULTS, add_smoke_flag, host, write_result  # noqa: E402

from iolab.doctor.derived import point_series  # noqa: E402
from iolab.doctor.engine import all_rules, evaluate  # noqa: E402
from iolab.doctor.rule import Context  # noqa: E402
from iolab.fio.logs import log_files, read_logs  # noqa: E402
from iolab.models import Point, Severity, Target  # noqa: E402
from iolab.models.run import PointRecord  # noqa: E402

EVENTS = HERE / "fioplot_events.toml"
RULES = ("TEL-DIP", "TEL-STEP")
SERIOUS = (Severity.WARNING, Severity.CRITICAL)


def points(data: Path):
    """(name relative to `data`, its per-job bandwidth series) for every log prefix under `data`, in order."""
    for directory, _dirs, _files in sorted(os.walk(data)):
        for prefix, files in sorted(log_files(Path(directory)).items()):
            bw = [s for s in read_logs(Path(directory), prefix, files=files) if s.metric == "bw"]
            if bw:
                yield f"{Path(directory).relative_to(data)}/{prefix}", bw


def judge(name: str, series, rules) -> tuple[bool, list[str]]:
    """Whether the rules could judge the point, and their serious findings' titles."""
    record = PointRecord(
        1, 1, 0, Point(name=name, target=Target(path="/x", kind="directory", filename="/x/f", size_bytes=0)), "done"
    )
    summed = [s for s in point_series([record], {1: series}) if s.label == "all jobs"]
    if not summed:
        return False, []
    found = evaluate(Context(series=summed), rules)
    return True, [f"{f.rule_id}: {f.title}" for f in found if f.severity in SERIOUS]


def planted(series):
    """The same per-job series with 5 s in the middle of the point at 10% of what they were."""
    out = []
    start = min(float(s.t_ms.min()) for s in series)
    end = max(float(s.t_ms.max()) for s in series)
    lo, hi = (start + end) / 2 - 2_500, (start + end) / 2 + 2_500
    for s in series:
        inside = (s.t_ms >= lo) & (s.t_ms <= hi)
        out.append(replace(s, values=np.where(inside, s.values * 0.1, s.values.astype(float))))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=os.environ.get("IOLAB_FIOPLOT_DATA"), help="fio-plot's benchmark_data"
    )
    parser.add_argument("--limit", type=int, default=0, help="judge only the first N points (the smoke size)")
    parser.add_argument("--out", type=Path, default=RESULTS / "fioplot_traces.json")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:  # the suite's own real fio outputs with logs stand in for the collection
        args.data, args.limit = args.data or HERE.parent / "tests" / "data" / "fio", args.limit or 20
    if args.data is None or not Path(args.data).is_dir():
        print("fio-plot's data is not here: see bench/fioplot_collection.py for how to get it, then give --data DIR")
        return 2
    known = tomllib.loads(EVENTS.read_text())["events"]
    rules = [r for r in all_rules() if r.id in RULES]
    started = time.perf_counter()
    judged = unjudged = clean = twins_named = 0
    flagged: dict[str, list[str]] = {}
    for i, (name, series) in enumerate(points(Path(args.data))):
        if args.limit and i >= args.limit:
            break
        evaluated, found = judge(name, series, rules)
        if not evaluated:
            unjudged += 1
            continue
        judged += 1
        if found:
            flagged[name] = found
        else:
            clean += 1
        twins_named += bool(judge(name, planted(series), rules)[1])
    unexplained = sorted(set(flagged) - set(known))
    stale = sorted(set(known) - set(flagged)) if not args.limit else []
    figures = {
        "host": host(),
        "points_judged": judged,
        "points_too_short_to_judge": unjudged,
        "points_without_a_dip_or_step": clean,
        "share_without": round(clean / judged, 4) if judged else None,
        "points_with_a_finding": len(flagged),
        "listed_by_hand": {name: known[name] for name in sorted(flagged) if name in known},
        "listed_events": sum(1 for name in flagged if known.get(name, {}).get("verdict") == "event"),
        "listed_false_alarms": sum(1 for name in flagged if known.get(name, {}).get("verdict") == "false alarm"),
        "not_listed": {name: flagged[name] for name in unexplained},
        "listed_but_not_found": stale,
        "planted_twins_named": twins_named,
        "seconds": round(time.perf_counter() - started, 1),
    }
    write_result(args.out, "fioplot_traces", figures, smoke=args.smoke)
    print(
        f"{judged} points judged ({unjudged} too short): {clean} without a dip or step "
        f"({figures['share_without']:.2%}), {len(flagged)} with one, {len(unexplained)} of them not listed by hand; "
        f"planted 5 s at 10% named in {twins_named} of {judged} twins; {figures['seconds']} s"
    )
    for name in unexplained:
        print(f"  not listed: {name}: {'; '.join(flagged[name])}")
    return 1 if (unexplained or stale) and not args.smoke else 0  # a smoke run judges the suite's own logs


if __name__ == "__main__":
    sys.exit(main())
