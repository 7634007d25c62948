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
series long enough to judge); points without one are counted apart.
Findings are counted one by one (a point may have several); those on points
not judged real, per such point, are the false alarms.

Each judged point with 1 s logs also gets a twin with a dip planted in it
(issue 40): a rectangle, ramp, V or noisy bottom of 2 s to half the point,
10 to 100% deep, drawn from the point's name, multiplying every job's
values; the twin is found when a serious TEL-DIP or TEL-STEP finding overlaps
the planted seconds, and recall is reported by length bin, for all twins and
for those the issue's target speaks of (depth at least 30% and 3x the
point's robust per-second sd). The points are split in two halves by device
folder (the directory of the logs, so one drive's traces never sit on both
sides): parameters are chosen on "tuning", figures read on "reported".

The data is not shipped with iolab (see bench/fioplot_collection.py for how
to get it); pass its directory.

    python bench/fioplot_traces.py --data DIR [--limit N] [--out PATH]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import tomllib
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from dips_envelope import DEPTH_BINS, LENGTH_BINS, SHAPES, bin_of, held, profile  # noqa: E402
from results_file import RESULTS, add_smoke_flag, host, write_result  # noqa: E402

from iolab.doctor.derived import point_series  # noqa: E402
from iolab.doctor.engine import all_rules, evaluate  # noqa: E402
from iolab.doctor.rule import Context  # noqa: E402
from iolab.doctor.rules import telemetry  # noqa: E402
from iolab.fio.logs import log_files, read_logs  # noqa: E402
from iolab.models import Point, Severity, Target  # noqa: E402
from iolab.models.run import PointRecord  # noqa: E402

EVENTS = HERE / "fioplot_events.toml"
RULES = ("TEL-DIP", "TEL-STEP", "TEL-RECURRING")
EVENT_RULES = ("TEL-DIP", "TEL-STEP")  # a planted dip is found by one of these (a pattern names no one interval)
SERIOUS = (Severity.WARNING, Severity.CRITICAL)


def points(data: Path):
    """(name relative to `data`, its per-job bandwidth series) for every log prefix under `data`, in order."""
    for directory, _dirs, _files in sorted(os.walk(data)):
        for prefix, files in sorted(log_files(Path(directory)).items()):
            bw = [s for s in read_logs(Path(directory), prefix, files=files) if s.metric == "bw"]
            if bw:
                yield f"{Path(directory).relative_to(data)}/{prefix}", bw


def folders(data: Path) -> dict[str, str]:
    """Each device folder (a directory holding logs) -> "tuning" or "reported": folders sorted by their number
    of logs, largest first, dealt alternately, so the halves hold about as many points and one drive's traces
    never sit on both sides."""
    counts: dict[str, int] = {}
    for directory, _dirs, files in os.walk(data):
        logs = sum(1 for f in files if f.endswith(".log"))
        if logs:
            counts[str(Path(directory).relative_to(data))] = logs
    order = sorted(counts, key=lambda d: (-counts[d], d))
    return {d: ("tuning", "reported")[i % 2] for i, d in enumerate(order)}


def half(name: str, sides: dict[str, str]) -> str:
    return sides.get(str(Path(name).parent), "tuning")


def summed(name: str, series):
    """The point's "all jobs" series as the doctor sums it, or None when too short to judge."""
    record = PointRecord(
        1, 1, 0, Point(name=name, target=Target(path="/x", kind="directory", filename="/x/f", size_bytes=0)), "done"
    )
    found = [s for s in point_series([record], {1: series}) if s.label == "all jobs"]
    return found[0] if found else None


def judge(name: str, series, rules) -> tuple[bool, list[tuple[str, float, float]]]:
    """Whether the rules could judge the point, and their serious findings (title, onset s, duration s)."""
    one = summed(name, series)
    if one is None:
        return False, []
    found = evaluate(Context(series=[one]), rules)
    return True, [(f"{f.rule_id}: {f.title}", *_interval(f)) for f in found if f.severity in SERIOUS]


def _interval(f) -> tuple[float, float]:
    """(onset s, duration s) of a finding: a recurring pattern's from its first drop's onset to its last's."""
    if f.rule_id == "TEL-RECURRING":
        first = _seconds(f.evidence["first onset"])
        return first, _seconds(f.evidence["last onset"]) - first + _seconds(f.evidence["typical length"])
    return _seconds(f.evidence["onset"]), _seconds(f.evidence["duration"])


def _seconds(text: object) -> float:
    return float(str(text).removesuffix(" s"))


def plant(name: str, series):
    """(the per-job series with a dip planted, its onset s, length s, depth, shape, and the onset s and length s
    it holds at least the rules' shoulder below the level: `dips_envelope.held`) or None: drawn from the
    point's name over its active seconds, on points logged at least once a second."""
    one = summed(name, series)
    times = np.asarray(one.times_s[1:-1]) if one is not None else np.empty(0)
    if len(times) < 12 or not float(np.median(np.diff(times))) <= 1.1:
        return None
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    start, seconds = math.ceil(times[0]), int(times[-1] - math.ceil(times[0]))
    if seconds < 12:
        return None
    length = int(math.floor(math.exp(rng.uniform(math.log(2), math.log(seconds // 2 + 1)))))
    length = max(2, min(length, seconds // 2))
    onset = float(start + int(rng.integers(3, max(4, seconds - length - 3 + 1))))
    shape = SHAPES[int(rng.integers(len(SHAPES)))]
    depth = float(rng.uniform(0.1, 1.0))
    loss = profile(shape, length, depth, rng)
    out = []
    for s in series:
        k = np.ceil(s.t_ms / 1000.0 - onset - 0.005).astype(int)  # the planted second a window ends in (ms jitter)
        inside = (k >= 1) & (k <= length)
        factor = np.ones(len(k))
        factor[inside] = 1.0 - loss[k[inside] - 1]
        out.append(replace(s, values=s.values.astype(float) * factor))
    start_held, length_held = held(loss, 1.0, telemetry.PARAMS.shoulder) or (0.0, float(length))
    # depth as the issue defines it: 1 - lowest / level
    return out, onset, length, float(loss.max()), shape, onset + start_held, length_held


def robust_sd(name: str, series) -> float:
    """1.4826 MAD over the median of the point's active seconds (windows averaged per second): its robust
    per-second sd, relative."""
    one = summed(name, series)
    if one is None:
        return math.inf
    times, values = np.asarray(one.times_s[1:-1]), np.asarray(one.values[1:-1], dtype=float)
    second = np.ceil(times - 0.005).astype(int)
    per_second = np.array([values[second == k].mean() for k in np.unique(second)])
    median = float(np.median(per_second)) if len(per_second) else 0.0
    return float(1.4826 * np.median(np.abs(per_second - median)) / median) if median > 0 else math.inf


def recall_by_bin(rows: list[dict], length: str = "length", bins=LENGTH_BINS) -> dict:
    """Recall and onset within 1 s by length bin (or by `bins` of another key, as `length` names). The onset is
    judged as `bench/dips_envelope.py` judges it: against the planted shape's first second (the rules date a
    gradual descent from where it starts: `shape_onset_within_1s`), and beside it against the first second the
    dip holds 12.5% below the level (`onset_within_1s`)."""
    out = {}
    for lo, hi in bins:
        group = [r for r in rows if bin_of(r[length], ((lo, hi),))]
        out[f"{lo:g}-{hi:g}"] = {"twins": len(group)} | _found_and_dated(group)
    return out


def _found_and_dated(rows: list[dict]) -> dict:
    """The share of `rows` found, and of those found the shares dated within 1 s of the shape's start and of
    its first second 12.5% down (None where there are none)."""
    found = [r for r in rows if r["found"]]

    def within(key: str) -> float | None:
        return round(sum(abs(r[key]) <= 1 for r in found) / len(found), 4) if found else None

    return {
        "recall": round(len(found) / len(rows), 4) if rows else None,
        "shape_onset_within_1s": within("shape_onset_error"),
        "onset_within_1s": within("onset_error"),
    }


def _median_onset_error(rows: list[dict]) -> float | None:
    """The median absolute onset error of the found rows from the shape's start, in seconds (None when none
    was found)."""
    errors = [abs(r["shape_onset_error"]) for r in rows if r["found"]]
    return round(float(np.median(errors)), 2) if errors else None


def holding(rows: list[dict]) -> list[dict]:
    """The target's dips: those holding the low time a dip must (dips_envelope.summarise)."""
    return [r for r in rows if r["held"] >= telemetry.PARAMS.min_duration_s]


def planted_figures(rows: list[dict]) -> dict:
    out = {}
    for side in ("tuning", "reported"):
        mine = [r for r in rows if r["half"] == side]
        deep = [r for r in mine if r["depth"] >= 0.3 and r["depth"] >= 3 * r["sd"]]
        eligible = holding(deep)
        dated = _found_and_dated(eligible)
        out[side] = {
            "twins": len(mine),
            "recall": round(sum(r["found"] for r in mine) / len(mine), 4) if mine else None,
            "eligible_twins": len(eligible),
            "eligible": dated,
            "eligible_recall": dated["recall"],
            "eligible_by_length_s": recall_by_bin(eligible),
            "eligible_by_depth": recall_by_bin(eligible, "depth", bins=DEPTH_BINS[1:]),
            "eligible_median_abs_onset_error_s": _median_onset_error(eligible),
            "all_by_depth": recall_by_bin(mine, "depth", bins=DEPTH_BINS),
            "deep_by_planted_length_s": recall_by_bin(deep, "planted_length"),
            "all_by_length_s": recall_by_bin(mine),
        }
    return out


def twin(name: str, series, rules, side: str) -> dict | None:
    planted_twin = plant(name, series)
    if planted_twin is None:
        return None
    changed, onset, length, depth, shape, onset_held, length_held = planted_twin
    hits = [
        h
        for h in judge(name, changed, rules)[1]
        if h[0].split(":")[0] in EVENT_RULES and h[1] < onset + length and h[1] + h[2] > onset
    ]
    best = min(hits, key=lambda h: abs(h[1] - onset_held)) if hits else None
    return {
        "name": name,
        "half": side,
        "length": length_held,
        "held": length_held,
        "planted_length": length,
        "depth": depth,
        "shape": shape,
        "sd": robust_sd(name, series),
        "found": best is not None,
        "onset_error": None if best is None else best[1] - onset_held,
        "shape_onset_error": None if best is None else best[1] - onset,
    }


def false_alarms(flagged: dict[str, list], known: dict, judged_by_half: dict[str, int], sides: dict[str, str]) -> dict:
    """Serious findings on points not judged real, per point not judged real, by half and over all."""
    out = {}
    for side in ("tuning", "reported", "all"):
        names = [n for n in flagged if side == "all" or half(n, sides) == side]
        real = [n for n in names if known.get(n, {}).get("verdict") == "event"]
        findings = sum(len(flagged[n]) for n in names if n not in real)
        points = (sum(judged_by_half.values()) if side == "all" else judged_by_half.get(side, 0)) - len(real)
        out[side] = {
            "points_not_judged_real": points,
            "findings_on_them": findings,
            "per_point": round(findings / points, 4) if points else None,
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=os.environ.get("IOLAB_FIOPLOT_DATA"), help="fio-plot's benchmark_data"
    )
    parser.add_argument("--limit", type=int, default=0, help="judge only the first N points (the smoke size)")
    parser.add_argument("--half", choices=("tuning", "reported"), help="judge only one half's device folders")
    parser.add_argument("--penalty", type=float, help="the segmentation penalty to judge with (tuning)")
    parser.add_argument("--out", type=Path, default=RESULTS / "fioplot_traces.json")
    parser.add_argument("--relist", type=Path, help="judge this finished run's findings against the list again")
    parser.add_argument("--shard", help="I/N: judge only the points whose index is I modulo N (merge with --merge)")
    parser.add_argument("--merge", type=Path, nargs="+", help="the --shard runs' files to merge into --out")
    parser.add_argument("--rejudge", type=Path, help="judge again only the points this earlier run flagged")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if (done := _other_mode(args)) is not None:
        return done
    if args.smoke:  # the suite's own real fio outputs with logs stand in for the collection
        args.data, args.limit = args.data or HERE.parent / "tests" / "data" / "fio", args.limit or 20
    if args.data is None or not Path(args.data).is_dir():
        print("fio-plot's data is not here: see bench/fioplot_collection.py for how to get it, then give --data DIR")
        return 2
    sides = folders(Path(args.data))
    if args.penalty is not None:
        telemetry.PARAMS = replace(telemetry.PARAMS, penalty=args.penalty)
    started = time.perf_counter()
    raw = judge_points(args, sides)
    raw["seconds"] = round(time.perf_counter() - started, 1)
    if args.shard:
        write_result(args.out, "fioplot_traces_shard", {"sides": sides, **raw})
        return 0
    figures = figures_of(raw, sides, complete=not args.limit and not args.half)
    write_result(args.out, "fioplot_traces", figures, smoke=args.smoke)
    return report(figures, smoke=args.smoke)


def _other_mode(args) -> int | None:
    """--relist, --merge or --rejudge, when one is asked for: their exit code."""
    if args.relist is not None:
        return relist(args.relist, args.out)
    if args.merge:
        return merge(args.merge, args.out)
    if args.rejudge is not None:
        return rejudge(args.rejudge, Path(args.data), args.out)
    return None


def judge_points(args, sides: dict[str, str]) -> dict:
    """The rules on every point of `args.data` (the first --limit, one --half's, every N-th of --shard I/N): the
    points judged per half, those too short, those without a finding, the findings by point, the planted twins."""
    rules = [r for r in all_rules() if r.id in RULES]
    raw: dict = {"judged_by_half": {"tuning": 0, "reported": 0}, "unjudged": 0, "clean": 0, "flagged": {}, "twins": []}
    shard, shards = (int(v) for v in args.shard.split("/")) if args.shard else (0, 1)
    for i, (name, series) in enumerate(points(Path(args.data))):
        if args.limit and i >= args.limit:
            break
        side = half(name, sides)
        if i % shards == shard and args.half in (None, side):
            _judge_one(raw, name, series, rules, side)
    return raw


def _judge_one(raw: dict, name: str, series, rules, side: str) -> None:
    """One point judged and its twin planted, counted into `raw`."""
    evaluated, found = judge(name, series, rules)
    if not evaluated:
        raw["unjudged"] += 1
        return
    raw["judged_by_half"][side] += 1
    if found:
        raw["flagged"][name] = [f"{title} (onset {onset:g} s, {duration:g} s)" for title, onset, duration in found]
    else:
        raw["clean"] += 1
    if (row := twin(name, series, rules, side)) is not None:
        raw["twins"].append(row)


def figures_of(raw: dict, sides: dict[str, str], complete: bool) -> dict:
    """The bench's figures from `judge_points`' counts (one run's, or the --shard runs' merged)."""
    known = tomllib.loads(EVENTS.read_text())["events"]
    flagged, twins, judged_by_half = raw["flagged"], raw["twins"], raw["judged_by_half"]
    judged = sum(judged_by_half.values())
    return {
        "host": host(),
        "points_judged": judged,
        "points_judged_by_half": judged_by_half,
        "points_too_short_to_judge": raw["unjudged"],
        "points_without_a_dip_or_step": raw["clean"],
        "share_without": round(raw["clean"] / judged, 4) if judged else None,
        "points_with_a_finding": len(flagged),
        "findings": sum(len(v) for v in flagged.values()),
        "findings_by_rule": _by_rule(flagged),
        "params": telemetry.PARAMS.__dict__,
        "halves": _halves(sides),
        "planted": planted_figures(twins),
        "findings_by_point": {name: flagged[name] for name in sorted(flagged)},
        **listing(flagged, known, judged_by_half, sides, complete=complete),
        "planted_twins": len(twins),
        "planted_twins_named": sum(r["found"] for r in twins),
        "seconds": raw["seconds"],
    }


def listing(flagged: dict[str, list[str]], known: dict, judged_by_half: dict[str, int], sides, complete: bool) -> dict:
    """What the verdicts by hand in `fioplot_events.toml` say of the points with findings."""
    return {
        "false_alarms": false_alarms(flagged, known, judged_by_half, sides),
        "listed_by_hand": {name: known[name] for name in sorted(flagged) if name in known},
        "listed_events": sum(1 for name in flagged if known.get(name, {}).get("verdict") == "event"),
        "listed_false_alarms": sum(1 for name in flagged if known.get(name, {}).get("verdict") == "false alarm"),
        "not_listed": {name: flagged[name] for name in sorted(set(flagged) - set(known))},
        "listed_but_not_found": sorted(set(known) - set(flagged)) if complete else [],
    }


def _by_rule(flagged: dict[str, list[str]]) -> dict[str, int]:
    return {r: sum(f.startswith(r + ":") for v in flagged.values() for f in v) for r in RULES}


def _halves(sides: dict[str, str]) -> dict[str, list[str]]:
    return {side: sorted(d for d, s in sides.items() if s == side) for side in ("tuning", "reported")}


def merge(paths: list[Path], out: Path) -> int:
    """The figures of the whole collection from --shard runs (each judged every N-th point), by the functions a
    single run uses: several processes finish on a shared machine where one would not."""
    import json

    shards = [json.loads(p.read_text()) for p in paths]
    raw: dict = {"judged_by_half": {"tuning": 0, "reported": 0}, "flagged": {}, "twins": [], "unjudged": 0, "clean": 0}
    for one in shards:
        raw["judged_by_half"] = {side: n + one["judged_by_half"][side] for side, n in raw["judged_by_half"].items()}
        raw["flagged"] |= one["flagged"]
        raw["twins"] += one["twins"]
        raw["unjudged"] += one["unjudged"]
        raw["clean"] += one["clean"]
    raw["seconds"] = max(one["seconds"] for one in shards)
    figures = figures_of(raw, shards[0]["sides"], complete=True)
    figures["measured_as"] = (
        f"{len(shards)} processes (--shard I/{len(shards)}), merged by --merge; seconds: the longest"
    )
    write_result(out, "fioplot_traces", figures)
    return report(figures, smoke=False)


def rejudge(path: Path, data: Path, out: Path) -> int:
    """An earlier run's flagged points judged again with the rules as they are now, its other counts and planted
    twins kept (said so in the results): exact for the unplanted points only while a change can take findings
    away or add them only where the earlier rules found an event (TEL-DIP's tail, TEL-RECURRING's patterns of
    TEL-DIP's events), and cheap where the whole collection with its twins is not."""
    import json

    before = json.loads(path.read_text())
    flagged = _judged_again(before["findings_by_point"], data)
    sides = {folder: side for side, folder_list in before["halves"].items() for folder in folder_list}
    kept = {k: before[k] for k in ("points_judged", "points_judged_by_half", "points_too_short_to_judge", "planted")}
    clean = before["points_without_a_dip_or_step"] + sum(1 for v in flagged.values() if not v)
    flagged = {name: found for name, found in flagged.items() if found}
    known = tomllib.loads(EVENTS.read_text())["events"]
    figures = kept | {
        "host": host(),
        "measured_as": f"the points flagged by the run of {before['when']} judged again (--rejudge); the other "
        "counts and the planted twins are that run's",
        "points_without_a_dip_or_step": clean,
        "share_without": round(clean / before["points_judged"], 4),
        "points_with_a_finding": len(flagged),
        "findings": sum(len(v) for v in flagged.values()),
        "findings_by_rule": _by_rule(flagged),
        "params": telemetry.PARAMS.__dict__,
        "halves": before["halves"],
        "findings_by_point": dict(sorted(flagged.items())),
        **listing(flagged, known, before["points_judged_by_half"], sides, complete=True),
        "planted_twins": before["planted_twins"],
        "planted_twins_named": before["planted_twins_named"],
        "seconds": before["seconds"],
    }
    write_result(out, "fioplot_traces", figures)
    return report(figures, smoke=False)


def _judged_again(names, data: Path) -> dict[str, list[str]]:
    """The findings on each of `names` by the rules as they are now (an empty list where none is left)."""
    rules = [r for r in all_rules() if r.id in RULES]
    flagged: dict[str, list[str]] = {}
    for name, series in points(data):
        if name in names:
            found = judge(name, series, rules)[1]
            flagged[name] = [f"{title} (onset {onset:g} s, {duration:g} s)" for title, onset, duration in found]
    return flagged


def relist(path: Path, out: Path) -> int:
    """Judge a finished run's findings again against the verdicts by hand (after new ones were written in
    `fioplot_events.toml`): the traces are not read again, the findings are the run's own."""
    import json

    figures = json.loads(path.read_text())
    sides = {folder: side for side, folder_list in figures["halves"].items() for folder in folder_list}
    known = tomllib.loads(EVENTS.read_text())["events"]
    figures |= listing(figures["findings_by_point"], known, figures["points_judged_by_half"], sides, complete=True)
    figures.pop("benchmark", None)
    figures["relisted"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")  # "when" stays the run's
    write_result(out, "fioplot_traces", figures)
    return report(figures, smoke=False)


def report(figures: dict, smoke: bool) -> int:
    """Print a run's figures; 1 when a finding is not listed by hand or a listed one was not found."""
    judged, unjudged, clean = (
        figures["points_judged"],
        figures["points_too_short_to_judge"],
        figures["points_without_a_dip_or_step"],
    )
    flagged, unexplained = figures["findings_by_point"], figures["not_listed"]
    fa = figures["false_alarms"]
    print(
        f"{judged} points judged ({unjudged} too short): {clean} without a dip or step "
        f"({figures['share_without']:.2%}), {len(flagged)} with one ({figures['findings']} findings), "
        f"{len(unexplained)} of them not listed by hand; false findings per point not judged real: "
        + ", ".join(f"{side} {v['per_point']}" for side, v in fa.items())
        + f"; {figures['seconds']} s"
    )
    for side, p in figures["planted"].items():
        print(
            f"planted twins, {side}: {p['twins']} (eligible {p['eligible_twins']}): recall {p['recall']}, eligible {p['eligible_recall']}"
        )
        for label, b in p["eligible_by_length_s"].items():
            print(
                f"  eligible {label:>7} s: {b['twins']:4d} twins  recall {b['recall']}  onset +-1 s of the shape's "
                f"start {b['shape_onset_within_1s']} (of 12.5% down {b['onset_within_1s']})"
            )
        for label, b in p["eligible_by_depth"].items():
            print(f"  eligible depth {label}: {b['twins']:4d} twins  recall {b['recall']}")
        print(
            f"  eligible: onset +-1 s of the shape's start {p['eligible']['shape_onset_within_1s']} (of 12.5% down "
            f"{p['eligible']['onset_within_1s']}), median |onset error| {p['eligible_median_abs_onset_error_s']} s"
        )
    for name in unexplained:
        print(f"  not listed: {name}: {'; '.join(flagged[name])}")
    stale = figures["listed_but_not_found"]
    return 1 if (unexplained or stale) and not smoke else 0  # a smoke run judges the suite's own logs


if __name__ == "__main__":
    sys.exit(main())
