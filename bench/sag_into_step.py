"""A fall in stages over the space a drive presents: is a sag that runs into a lasting fall told as a dip that
recovered? (issue 40, stage64: `analysis.dips._first_stage`)

The class: the seconds before a step were taken to have ended, so a first stage still low where the step begins
was told as a dip that recovered. tests/analysis/test_dips_unended.py draws it in 1 s windows, Gaussian noise at
COV 1-8%, two flat stages; this bench declares the wider space and reports it by bin, weak bins included:

- windows of 0.5, 1 or 2 s; runs of 40-600 s;
- noise AR(1), phi 0-0.7, Gaussian or Student t3 shocks, COV 1-15% (log-uniform);
- two stages (a sag of 13-30% for 3-30 s, then a fall of 35-70% to the end) or three (the sag, a deeper sag of
  half-way to the fall, then the fall); each stage flat, or reached by a ramp over a third of its length;
- a control, "back 2 s": the sag back at the level for exactly 2 s before the fall (a dip that ended; the step test
  swallows it into a step dated from the dip: the open weak bin of docs/dips.md stage64b).

For each case, read by the detector (`detect_dips`) as shipped and with `DipParams.unended` off (the rule before
stage64): "recovered" is a dip that ended whose low seconds reach the fall (the defect); "dated" is a step or a fall
still low at the end dated within 2 s of the sag's first second (where the sag is an event at all). For "back 2 s"
the right reading is the reverse: a dip at the sag, and a step or fall dated at the fall (within 2 s), "dip kept".
No parameter is chosen here; every seed is a reported one.

    python bench/sag_into_step.py [--cases 2400] [--out PATH]
    python bench/sag_into_step.py --smoke
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from dips_edges import ar1  # noqa: E402
from results_file import RESULTS, add_smoke_flag, host, write_result  # noqa: E402

from iolab.analysis.dips import DipParams, detect_dips  # noqa: E402

SEED = 6_400_000
SHAPES = ("two flat", "two ramped", "three flat", "back 2 s")
COV_BINS = ((0.01, 0.05), (0.05, 0.1), (0.1, 0.15))


def _stage(length: int, depth: float, before: float, ramped: bool) -> np.ndarray:
    """The multiplier over one stage of `length` windows at 1 - `depth`, from 1 - `before`, ramped over a third."""
    out = np.full(length, 1.0 - depth)
    if ramped:
        a = max(1, length // 3)
        out[:a] = 1.0 - (before + (depth - before) * np.arange(1, a + 1) / a)
    return out


def draw(i: int) -> dict:
    """Case `i`: the windows, the interval, where the sag and the fall start (window indices) and its draws."""
    rng = np.random.default_rng([SEED, i])
    interval = float(rng.choice([0.5, 1.0, 2.0]))
    n = int(round(math.exp(rng.uniform(math.log(40), math.log(600))) / interval))
    cov, phi = float(math.exp(rng.uniform(math.log(0.01), math.log(0.15)))), float(rng.uniform(0.0, 0.7))
    tails, shape = ("gauss", "t3")[i % 2], SHAPES[(i // 2) % len(SHAPES)]
    x = 1e8 * np.maximum(1.0 + ar1(rng, n, phi, cov, tails), 0.02)
    sag, fall = float(rng.uniform(0.13, 0.3)), float(rng.uniform(0.35, 0.7))
    sag_len = max(2, int(round(rng.uniform(3, 30) / interval)))
    start = int(rng.integers(n // 4, n // 2))
    sag_len = max(2, min(sag_len, (n - start - int(round(14 / interval))) // 2))  # both sags, 2 s back, 10 s of fall
    m = np.ones(n)
    at = start
    if shape == "three flat":
        m[at : at + sag_len] = 1.0 - sag
        at += sag_len
        m[at : at + sag_len] = 1.0 - (sag + fall) / 2
        at += sag_len
    else:
        m[at : at + sag_len] = _stage(sag_len, sag, 0.0, shape == "two ramped")
        at += sag_len
    if shape == "back 2 s":
        at += int(round(2.0 / interval))
    at = min(at, n - int(round(10 / interval)))
    m[at:] = _stage(n - at, fall, 0.0 if shape == "back 2 s" else sag, shape == "two ramped")
    return {"x": x * m, "interval": interval, "start": start, "fall": at, "cov": cov, "phi": phi, "tails": tails,
            "shape": shape}  # fmt: skip


def judged(case: dict, params: DipParams) -> dict:
    """What the detector reads of one case under `params`."""
    x, iv = case["x"], case["interval"]
    events = detect_dips(np.arange(1, len(x) + 1) * iv, x, params).dips
    sag_s, fall_s = case["start"] * iv, case["fall"] * iv
    recovered = any(e.kind == "transient" and e.low()[0] < fall_s <= e.low()[1] + iv for e in events)
    falls = [e for e in events if e.kind != "transient"]
    dated = any(abs(e.onset_s - sag_s) <= 2.0 for e in falls)
    kept = any(e.kind == "transient" and abs(e.onset_s - sag_s) <= 2.0 for e in events) and any(
        abs(e.onset_s - fall_s) <= 2.0 for e in falls
    )
    return {"recovered": recovered, "dated": dated, "kept": kept}


def share(rows: list[dict], key: str) -> dict:
    hits = sum(r[key] for r in rows)
    return {"n": len(rows), "hits": hits, "rate": round(hits / len(rows), 4) if rows else None}


def _cov_bin(cov: float) -> str:
    return next(f"COV {a:.0%}-{b:.0%}" for a, b in COV_BINS if cov < b or b == COV_BINS[-1][1])


def summarise(rows: list[dict]) -> dict:
    """By shape, and within the fall-in-stages shapes by window, tails and COV: shipped beside the rule before."""
    out: dict = {}
    for shape in SHAPES:
        group = [r for r in rows if r["shape"] == shape]
        keys = ("kept",) if shape == "back 2 s" else ("recovered", "dated")
        axes = {
            "all": lambda r: "all",
            "window": lambda r: f"{r['interval']:g} s",
            "tails": lambda r: r["tails"],
            "COV": lambda r: _cov_bin(r["cov"]),
        }
        out[shape] = {
            axis: {
                label: {f"{k} {v}": share([r[v] for r in group if f(r) == label], k) for k in keys for v in ("shipped", "before")}
                for label in sorted({f(r) for r in group})
            }
            for axis, f in axes.items()
        }  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2400)
    parser.add_argument("--out", type=Path, default=RESULTS / "sag_into_step.json")
    add_smoke_flag(parser)
    args = parser.parse_args(argv)
    cases = 16 if args.smoke else args.cases
    started = time.perf_counter()
    rows = []
    for i in range(cases):
        case = draw(i)
        rows.append(
            {k: case[k] for k in ("interval", "cov", "tails", "shape")}
            | {"shipped": judged(case, DipParams()), "before": judged(case, replace(DipParams(), unended=False))}
        )
    figures = {"host": host(), "seeds": [SEED, cases], "by_shape": summarise(rows)}
    for shape, axes in figures["by_shape"].items():
        print(shape, {k: v["rate"] for k, v in axes["all"]["all"].items()})
    figures["seconds"] = round(time.perf_counter() - started, 1)
    write_result(args.out, "sag_into_step", figures, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
