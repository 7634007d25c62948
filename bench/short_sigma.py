"""Dips in short runs, with and without short65 (issue 40): a short series' noise read from the lower quartile of
its differences too (`DipParams.short_sigma_samples`), and a dip judged with 4 seconds outside it (`MIN_REST`).

Three sets, each judged with the shipped rules ("with") and with the element switched off ("without":
`short_sigma_samples` None and `MIN_REST` 5, the rules before):

- "short": `dips_envelope.py`'s scenario of runs of 8-30 s with one dip starting and ending at any tenth of a
  second (tuning seeds 3,800,000 on; held out 2,200,000 on, left unread by rounds 57 and 58, and 2,300,000 on for
  the element's second version), its eligible dips
  found (depth >= 30% and >= 3x the run's robust sd, holding 2 s) by length, and its clean twins with a finding;
- wandering clean runs: AR(1) at phi 0.7, COV 10-12%, 8-30 s (round 57's control; seeds [s, 57] tuning, [s, 65]
  and [s, 66] held out), those with a dip: a wander's trough is what a dip read with too little noise looks like;
- a grid of quiet runs (`grid`): 8-3,600 s, COV 0, 1 and 3% Gaussian, a rectangle, ramp or V (the independent
  audit's shapes) 30, 60 or 90% deep of 2 s to half the run, in the middle, from the first whole second, or
  ending 2 or 3 s before the run (one or two whole seconds back at the level): found by length of run. A quiet
  run shows what a method that reads its noise right must find; the dips no method could tell from noise are
  elsewhere (the envelope bench's oracle).

    python bench/short_sigma.py [--set tuning|held-out|held-out-2] [--runs 1200] [--wander 3000]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import dips_envelope as de  # noqa: E402
import short_phi as sp  # noqa: E402
from independent_audit import dip_findings, overlap, shape  # noqa: E402
from results_file import add_smoke_flag, write_result  # noqa: E402

from iolab.doctor.rules import telemetry  # noqa: E402

SETS = {"tuning": (3_800_000, 57), "held-out": (2_200_000, 65), "held-out-2": (2_300_000, 66)}
GRID_RUNS = (8, 10, 12, 15, 20, 30, 45, 60, 120, 600, 3600)
GRID_LENGTHS = (2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60, 100, 200, 300, 600, 1200, 1800)
SHIPPED_SAMPLES, SHIPPED_REST = telemetry.PARAMS.short_sigma_samples, telemetry.MIN_REST


def switched(on: bool) -> None:
    """The element on (as shipped) or off (the rules before short65)."""
    telemetry.PARAMS = replace(telemetry.PARAMS, short_sigma_samples=SHIPPED_SAMPLES if on else None)
    telemetry.MIN_REST = SHIPPED_REST if on else 5


def grid_cases() -> Iterator[tuple[int, float, int, str, str, float, np.ndarray, int]]:
    rng = np.random.default_rng(65)
    for n in GRID_RUNS:
        for cov in (0.0, 0.01, 0.03):
            for length in sorted({*GRID_LENGTHS, n // 2}):
                if length < 2 or length > n // 2:
                    continue
                for where, start in (("mid", (n - length) // 2), ("start", 1), ("back 2", n - length - 3),
                                     ("back 1", n - length - 2)):  # fmt: skip
                    if start < 1:
                        continue
                    for kind in ("rect", "ramp", "V"):
                        for depth in (0.3, 0.6, 0.9):
                            x = 1e9 * (1 + cov * rng.standard_normal(n))
                            x[start : start + length] *= shape(kind, length, depth, rng, cov)
                            yield n, cov, length, where, kind, depth, x, start


def grid() -> dict:
    """Found (any dip or step finding over the planted seconds) of the quiet grid, by run length and where."""
    found: Counter = Counter()
    total: Counter = Counter()
    missed = []
    for n, cov, length, where, kind, depth, x, start in grid_cases():
        hit = overlap(dip_findings(x), start, length, None) is not None
        for key in (f"run {n} s", where, f"{kind} {depth:.0%}"):
            total[key] += 1
            found[key] += hit
        if not hit and len(missed) < 40:
            missed.append({"run_s": n, "cov": cov, "length_s": length, "where": where, "kind": kind, "depth": depth})
    return {
        "found": sum(found[f"run {n} s"] for n in GRID_RUNS),
        "dips": sum(total[f"run {n} s"] for n in GRID_RUNS),
        "by": {k: [found[k], total[k]] for k in total},
        "first_missed": missed,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), default="tuning")
    parser.add_argument("--runs", type=int, default=1200, help="'short' cases")
    parser.add_argument("--wander", type=int, default=3000, help="wandering clean runs")
    parser.add_argument("--out", type=Path, default=None)
    add_smoke_flag(parser)
    args = parser.parse_args()
    runs, wander = (20, 20) if args.smoke else (args.runs, args.wander)
    first, sp.WANDER_SEED = SETS[args.set]
    rules = [r for r in de.all_rules() if r.id in de.RULES]
    started, cpu = time.time(), time.process_time()
    out: dict = {"set": args.set, "first_seed": first, "wander_seed": sp.WANDER_SEED}
    for name, on in (("without", False), ("with", True)):
        switched(on)
        out[name] = sp.judge("shipped", range(first, first + runs), wander, rules)
        out[name]["grid"] = grid() if not args.smoke else None
        print(name, {k: v for k, v in out[name].items() if k != "grid"}, flush=True)
        if out[name]["grid"]:
            print("  grid", out[name]["grid"]["found"], "of", out[name]["grid"]["dips"], flush=True)
    switched(True)
    out["seconds"], out["cpu_s"] = round(time.time() - started, 1), round(time.process_time() - cpu, 1)
    default = HERE / "results" / f"short_sigma_{args.set}.json"
    write_result(args.out or default, "short_sigma", out, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
