"""Eligible 2 s and 3 s dips on the independent audit's generator, at seeds of one's own: found or, if missed, where.

Issue 40 asks >= 95% of eligible dips (depth >= 30% and >= 3x the run's robust per-second sd) found at every length;
the audit's generator reads 2 s and 3 s lowest. This bench draws runs with `independent_audit.draw_dip` (its noise,
shapes and eligibility) at a seed given here, never the audit's own (440101..440301), judges each through the rules
as the audit does (`dip_findings`, `overlap`) and follows every miss through the stages the rules take
(doctor/rules/telemetry: `detect_dips` on the active seconds, `_confirmed`, `_beyond_tails`): not detected (and then
which part of `analysis.dips` let it go, `why_undetected`), declined by the noise test, or by the run's own tail.
Clean runs come from the audit's `clean_case` with its clean seed set to `--seed + 1`.

Run: `python bench/audit_short_dips.py [--seed 8100001] [--runs 12000] [--clean 2000] [--tail-off] [--out PATH]`
(writes bench/results/audit_short_dips.json). It judges only the dips of 2 and 3 s (the others are cheap to draw and
costly to judge in hour-long runs). `--tail-off` reads what the run's own tail test costs: the rules with
`_beyond_own_tail` passing every dip (a what-if; the product is unchanged).
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter, defaultdict
from pathlib import Path

import independent_audit as audit
import numpy as np
from results_file import RESULTS, add_smoke_flag, write_result

from iolab.analysis import dips
from iolab.doctor.derived import PointSeries, active_seconds
from iolab.doctor.rules import telemetry

SEED = 8_100_001  # round 57's tuning seeds: not the audit's (440101..440301), nor an earlier round's
LENGTHS = (2, 3)


def why_undetected(x: np.ndarray, start: int, length: int) -> str:
    """Which part of `detect_dips` let a planted dip go: its seconds (none 25% below the run's level: the noise
    lifted them), a low segment over it that made no event, or neither the segmentation (its penalty) nor the
    short stretches' noise test (`_short_events`) cutting it out."""
    p = dips.DipParams()
    sigma = max(dips.noise_sigma(x), 1e-3 * float(np.median(x)))
    ends = dips.segment(x, p.penalty * sigma * sigma * np.log(max(len(x), 2)), 2)
    bounds = list(zip([0, *ends[:-1]], ends, strict=True))
    level, low = dips._level(x, bounds, p.shoulder)
    if not (x[start : start + length] < (1 - p.drop) * level).any():
        return "no second 25% below the level"
    if any(is_low and a < start + length and b > start for (a, b), is_low in zip(bounds, low, strict=True)):
        return "a low segment, no event"
    return "below the penalty and the short test"


def _over(event: dips.Dip, start: int, length: int) -> bool:
    lo, hi = event.low()
    return lo < start + length and max(hi, lo + 1.0) > start


def stage(x: np.ndarray, start: int, length: int) -> dict:
    """Where the rules lose a planted dip they do not report, read through their own functions in their order."""
    times, values = active_seconds(PointSeries("p", "all jobs", [float(i + 1) for i in range(len(x))], list(x)))
    report = dips.detect_dips(times, values, telemetry.PARAMS)
    event = next((e for e in report.dips if _over(e, start, length)), None)
    if event is None:
        return {"stage": "not detected", "why": why_undetected(x, start, length)}
    lo, hi = event.low()
    out = {"event_s": hi - lo, "merged": hi - lo > length + 1}
    places = len(x)
    confirmed = telemetry._confirmed(report.dips, times, values, places)
    if event not in confirmed:
        inside = [lo < t <= hi for t in times]
        rest = telemetry._logs([v for v, i in zip(values, inside, strict=True) if not i])
        during = telemetry._logs([v for v, i in zip(values, inside, strict=True) if i])
        sd, rho = telemetry.noise_outside(times, values, report.dips, confirmed)
        se = sd * math.hypot(telemetry._mean_factor(len(during), rho), telemetry._mean_factor(len(rest), rho))
        z = (sum(rest) / len(rest) - sum(during) / len(during)) / se if se > 0 and rest and during else math.nan
        cut = telemetry._cut(places, len(rest) - 1)
        return out | {"stage": "noise test", "z_over_cut": round(z / cut, 3), "rho_read": round(rho, 3)}
    if event.kind == "step":
        return out | {"stage": "a step"}
    kept = telemetry._beyond_tails([e for e in confirmed if e.kind != "step"], times, values, places, ())
    return out | {"stage": "own tail" if event not in kept else "kept, then lost (peers or busy)"}


def beyond_twin(d: dict) -> bool:
    """Whether the dip's mean log over its seconds lies below every window of its length in its clean twin (the same
    run without the dip): a dip no deeper than some window of its twin is called only by a window test that calls
    that window in the clean run too (dips.md, "Issue 40's seventh look")."""
    x, m, start, length = d["x"], d["m"], d["start"], d["length"]
    twin = x.copy()
    inside = twin[start : start + length]
    inside[:] = np.where(m > 0, inside / np.maximum(m, 1e-12), float(np.median(x)))
    logs = np.log(np.maximum(x, 1e-9))
    windows = np.convolve(np.log(twin), np.ones(length) / length, mode="valid")
    return float(logs[start : start + length].mean()) < float(windows.min())


def judge(seed: int, i: int) -> dict | None:
    """Run `i`'s dip when it is eligible and 2 or 3 s long: found through the rules or, if not, where it was lost."""
    d = audit.draw_dip(seed, i)
    if not audit.eligible(d) or d["length"] not in LENGTHS:
        return None
    x, start, length = d["x"], d["start"], d["length"]
    row = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in d.items() if k not in ("x", "m")}
    row |= {"i": i, "beyond_twin": beyond_twin(d)}
    row["found"] = audit.overlap(audit.dip_findings(x), start, length) is not None
    return row if row["found"] else row | stage(x, start, length)


def _bins(r: dict) -> dict[str, str]:
    return {
        "shape": r["kind"], "length": f"{r['length']} s", "tails": r["tails"], "COV": audit.cov_bin(r["cov"]),
        "phi": "phi 0-0.35" if r["phi"] < 0.35 else "phi 0.35-0.7", "run": audit.run_bin(r["n"]),
        "depth": audit.depth_bin(r["depth"]),
    }  # fmt: skip


def summarise(rows: list[dict], clean: list[dict]) -> dict:
    missed = [r for r in rows if not r["found"]]
    where = Counter(r["stage"] for r in missed)
    by: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    for r in missed:
        for key, value in _bins(r).items():
            by[r["stage"]][key][value] += 1
    return {
        "eligible_found_by_length": audit.tally(rows, lambda r: f"{r['length']} s", lambda r: r["found"]),
        "eligible_found_by_length_tails": audit.tally(
            rows, lambda r: f"{r['length']} s {r['tails']}", lambda r: r["found"]
        ),
        "eligible_beyond_twin_by_length_tails": audit.tally(
            rows, lambda r: f"{r['length']} s {r['tails']}", lambda r: r["beyond_twin"]
        ),
        "missed": len(missed),
        "missed_beyond_twin_by_stage": audit.tally(missed, lambda r: r["stage"], lambda r: r["beyond_twin"]),
        "missed_by_stage": {k: {"dips": v, "share": round(v / len(missed), 3)} for k, v in where.most_common()},
        "not_detected_by_why": Counter(r["why"] for r in missed if r["stage"] == "not detected"),
        "merged_into_a_longer_event": sum(bool(r.get("merged")) for r in missed),
        "missed_by_stage_and_bin": {s: {k: dict(sorted(c.items())) for k, c in v.items()} for s, v in by.items()},
        "noise_test_z_over_cut_quartiles": [
            round(float(q), 3)
            for q in np.percentile([r["z_over_cut"] for r in missed if r["stage"] == "noise test"] or [0], [25, 50, 75])
        ],
        "clean_runs": len(clean),
        "clean_runs_with_a_finding_by_tails": audit.tally(clean, lambda c: c["tails"], lambda c: c["false"] > 0),
        "clean_false_per_run": round(sum(c["false"] for c in clean) / max(len(clean), 1), 4),
        "missed_cases": missed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--runs", type=int, default=12000)
    parser.add_argument("--clean", type=int, default=2000, help="clean runs (the audit's clean_case at --seed + 1)")
    parser.add_argument("--tail-off", action="store_true", help="the rules with the run's own tail test passing all")
    parser.add_argument("--out", default=str(RESULTS / "audit_short_dips.json"))
    add_smoke_flag(parser)
    a = parser.parse_args()
    if {a.seed, a.seed + 1} & set(audit.SEEDS.values()):
        raise SystemExit("the audit's own seeds are not for this bench")
    runs, n_clean = (300, 4) if a.smoke else (a.runs, a.clean)
    if a.tail_off:
        telemetry._beyond_own_tail = lambda *_args, **_kw: True  # type: ignore[assignment]  # the what-if only
    cpu = time.process_time()
    rows = [r for i in range(runs) if (r := judge(a.seed, i))]
    audit.SEEDS["clean"] = a.seed + 1
    clean = [audit.clean_case(i) for i in range(n_clean)]
    figures = {"seed": a.seed, "runs": runs, "tail_off": a.tail_off} | summarise(rows, clean)
    figures["cpu_s"] = round(time.process_time() - cpu, 1)
    write_result(Path(a.out), "audit_short_dips", figures, smoke=a.smoke)
    for key in (
        "eligible_found_by_length",
        "eligible_found_by_length_tails",
        "eligible_beyond_twin_by_length_tails",
        "missed_by_stage",
        "missed_beyond_twin_by_stage",
    ):
        print(key, figures[key])
    print(
        "not detected:", dict(figures["not_detected_by_why"]), "clean:", figures["clean_runs_with_a_finding_by_tails"]
    )


if __name__ == "__main__":
    main()
