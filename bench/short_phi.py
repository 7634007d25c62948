"""How a short run's dips depend on the correlation of seconds in a row they are judged by (round 58).

A dip in a run of 8-30 s is mostly missed because the lag-1 correlation the noise test (`telemetry.noise_outside`)
reads is read with the dip in it (docs/dips.md, round 56). This bench judges the "short" scenario of
`dips_envelope.py` on its tuning seeds (3,800,000 on; never its held-out ones) with that correlation read other
ways, every other part of the rules as shipped, beside two controls of the false rate:

- "shipped": the rules as they are;
- "mad ratio": 1 - s_d^2 / (2 s_x^2) over every second's residual (for AR(1), var of a difference is 2 (1 - phi)
  var of a level), s_d the robust spread of the differences (1.4826 x their median absolute value: a dip's edges
  are a few large differences) and s_x 1.4826 MAD of the levels;
- "qn ratio": the same with Rousseeuw and Croux's Qn for the levels (the first quartile of the pairwise distances,
  which a dip's own seconds, a cluster of their own, do not widen as much as they widen a MAD), each variance
  divided by its mean over Gaussian white noise of the run's length (`white_factors`, simulated: the small-sample
  bias);
- "qn ratio, median-unbiased": the phi whose median "qn ratio" reading over AR(1) runs of the run's length is the
  run's reading (`median_readings`, simulated on a grid of phi): the reading without its bias towards the middle;
- "blend": the mean of the shipped correlation and the "qn ratio" one;
- "true phi" (an oracle no rule has): the correlation the case's noise was drawn with;
- "siblings" (what option 2 of round 58's brief would read if its premise held): the lag-1 correlation pooled over
  `SIBLINGS` clean runs of the case's own noise model and length (each about its own mean, Kendall's correction),
  as other points of the same device in the same run would give it if they shared the noise's correlation.

With `--fioplot DIR`, real traces instead (`real`): in each device folder of fio-plot's data with 4 points or more,
a 10-30 s window of each point (its per-second means, after its first 5 s), judged unplanted and with a dip planted
(a rectangle, ramp, V or noisy bottom of 2 s to half the window, 30-90% deep, at least 2 s from either end) by the
shipped reading and by "siblings" read from the same window of up to 8 other points of its folder (the premise of
reading phi there: the sweep's points share their noise's correlation), by half (bench/fioplot_traces.py's split).

Controls: the clean twins of the same seeds (a finding on one is false), and `WANDER_RUNS` clean AR(1) runs of
8-30 s at phi 0.7 and COV 10-12% with Gaussian shocks (round 57's wandering runs, seeds [s, 57]): a wander's trough
is what a dip read without its correlation looks like.

    python bench/short_phi.py [--runs 1200] [--wander 3000] [--out PATH]
    python bench/short_phi.py --fioplot DIR   (windows of fio-plot's real points; bench/fioplot_collection.py)
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import dips_envelope as de  # noqa: E402
from results_file import RESULTS, add_smoke_flag, write_result  # noqa: E402

from iolab.doctor.derived import PointSeries  # noqa: E402
from iolab.doctor.engine import evaluate  # noqa: E402
from iolab.doctor.rule import Context  # noqa: E402
from iolab.doctor.rules import telemetry  # noqa: E402

SIBLINGS = 3  # clean runs of the same noise model the "siblings" reading pools its correlation over
WANDER_PHI = 0.7
WANDER_SEED = 57
SHIPPED = telemetry.noise_outside


class Truth:
    """What the oracle readings know of the run being judged: its noise's phi and its siblings' log values."""

    phi = 0.0
    siblings: list[np.ndarray] = []


def qn(x: np.ndarray) -> np.ndarray:
    """Rousseeuw and Croux's Qn scale of each row of `x` (its last axis; Gaussian consistency 2.2219, no
    small-sample factor: `white_factors`)."""
    n = x.shape[-1]
    upper, lower = np.triu_indices(n, 1)
    pairs = np.abs(x[..., upper] - x[..., lower])
    h = n // 2 + 1
    k = h * (h - 1) // 2
    return 2.2219 * np.partition(pairs, k - 1, axis=-1)[..., k - 1]


def _diff_var(x: np.ndarray) -> np.ndarray:
    """Half the robust variance of the differences of seconds in a row (of each row of `x`): for AR(1), a
    level's variance x (1 - phi)."""
    return (1.4826 * np.median(np.abs(np.diff(x, axis=-1)), axis=-1)) ** 2 / 2.0


@functools.lru_cache(maxsize=256)
def white_factors(n: int, draws: int = 4000) -> tuple[float, float]:
    """The mean of `_diff_var` and of Qn^2 over Gaussian white noise of n seconds (true variance 1): dividing
    by them reads each variance without its small-sample bias (Qn's is 2.5 at n = 8 and 1.4 at n = 9)."""
    xs = np.random.default_rng([58, n]).standard_normal((draws, n))
    return float(np.mean(_diff_var(xs))), float(np.mean(qn(xs) ** 2))


def ratio_phi(x: np.ndarray, levels: Callable, corrected: bool) -> float:
    """1 - (the differences' variance) / (2 x the levels' variance `levels`), each bias-corrected if asked."""
    d, q = white_factors(len(x)) if corrected else (1.0, 1.0)
    spread = float(levels(x)) ** 2 / q
    return 1.0 - float(_diff_var(x)) / d / spread if spread > 0 else 0.0


PHI_GRID = np.linspace(0.0, 0.95, 20)


@functools.lru_cache(maxsize=256)
def median_readings(n: int, draws: int = 2000) -> np.ndarray:
    """The median "qn ratio" reading (bias-corrected for white noise) of AR(1) runs of n seconds at each phi of
    PHI_GRID, made non-decreasing: the reading is compressed towards the middle (0.63 at phi 0.8, n = 10)."""
    rng = np.random.default_rng([58, n, 1])
    d, q = white_factors(n)
    medians = []
    for phi in PHI_GRID:
        shocks = rng.standard_normal((draws, n))
        e = np.empty((draws, n))
        e[:, 0] = shocks[:, 0]
        for t in range(1, n):
            e[:, t] = phi * e[:, t - 1] + shocks[:, t] * math.sqrt(1.0 - phi * phi)
        medians.append(float(np.median(1.0 - _diff_var(e) / d / (qn(e) ** 2 / q))))
    return np.maximum.accumulate(np.array(medians))


def unbiased_phi(x: np.ndarray) -> float:
    """The phi whose median "qn ratio" reading at this length is the run's own (0 below the grid's first)."""
    medians, raw = median_readings(len(x)), ratio_phi(x, qn, True)
    return 0.0 if raw < medians[0] else float(np.interp(raw, medians, PHI_GRID))


def _mad(x: np.ndarray) -> float:
    return 1.4826 * float(np.median(np.abs(x - np.median(x))))


def _kendall(rho: float, n: int) -> float:
    return min(max(rho + (1.0 + 3.0 * rho) / n, 0.0), 0.95)


def _siblings_phi() -> float:
    num = den = 0.0
    for x in Truth.siblings:
        r = x - x.mean()
        num += float(np.sum(r[1:] * r[:-1]))
        den += float(np.sum(r * r))
    return _kendall(num / den if den > 0 else 0.0, len(Truth.siblings[0]))


def _ratio(kept: np.ndarray, levels: Callable, corrected: bool) -> float:
    return min(max(ratio_phi(kept, levels, corrected), 0.0), 0.95)


READINGS: dict[str, Callable[[np.ndarray, float], float] | None] = {
    "shipped": None,
    "mad ratio": lambda kept, _rho: _ratio(kept, _mad, False),
    "qn ratio": lambda kept, _rho: _ratio(kept, qn, True),
    "qn ratio, median-unbiased": lambda kept, _rho: unbiased_phi(kept),
    "blend": lambda kept, rho: 0.5 * rho + 0.5 * _ratio(kept, qn, True),
    "true phi": lambda _kept, _rho: Truth.phi,
    "siblings": lambda _kept, _rho: _siblings_phi(),
}


def use(name: str) -> None:
    """The rules' noise test with the correlation read as READINGS[name] (the sd as shipped)."""
    reading = READINGS[name]
    if reading is None:
        telemetry.noise_outside = SHIPPED  # type: ignore[assignment]
        return

    def noise_outside(times, values, events, confirmed) -> tuple[float, float]:
        sd, rho = SHIPPED(times, values, events, confirmed)
        if sd == 0.0:
            return sd, rho
        return sd, reading(telemetry.noise_parts(times, values, events, confirmed)[1], rho)

    telemetry.noise_outside = noise_outside  # type: ignore[assignment]  # the what-if only


def _ar1(rng, n: int, phi: float, cov: float) -> np.ndarray:
    e = np.empty(n)
    e[0] = rng.standard_normal() * cov
    for t in range(1, n):
        e[t] = phi * e[t - 1] + rng.standard_normal() * cov * math.sqrt(1.0 - phi * phi)
    return e


def short_case(seed: int, rules) -> dict:
    """One "short" tuning case: whether its dip is eligible and found, and whether its clean twin raised one."""
    case = de.draw(seed, "short")
    Truth.phi = case.phi
    Truth.siblings = [
        np.log(np.clip(de.series(replace(case, seed=case.seed + 10**9 * (j + 1)), False)[0], 1.0, None))
        for j in range(SIBLINGS)
    ]
    planted, (loss,) = de.series(case, True)
    clean, _ = de.series(case, False)
    dip = case.dips[0]
    _onset, length = de.held(loss, 1.0, telemetry.PARAMS.shoulder) or (dip.onset, dip.length)
    depth = float(loss.max())
    eligible = depth >= 0.3 and depth >= 3 * de.robust_cov(clean) and length >= telemetry.PARAMS.min_duration_s - 1e-9
    hits = de.findings(planted, rules) if eligible else []
    return {
        "eligible": eligible,
        "found": any(h[0] < dip.onset + dip.length and h[0] + h[1] > dip.onset for h in hits),
        "bin": de.bin_of(math.floor(length + 1e-9), de.LENGTH_BINS),
        "false": bool(de.findings(clean, rules)),
    }


def wander_case(seed: int, rules) -> bool:
    """Whether a clean wandering run (phi 0.7, COV 10-12%, 8-30 s, Gaussian) raised a dip."""
    rng = np.random.default_rng([seed, WANDER_SEED])
    n, cov = int(rng.integers(8, 31)), float(rng.uniform(0.1, 0.12))
    values = 500e6 * (1.0 + _ar1(rng, n, WANDER_PHI, cov))
    Truth.phi = WANDER_PHI
    Truth.siblings = [
        np.log1p(_ar1(np.random.default_rng([seed, WANDER_SEED, j + 1]), n, WANDER_PHI, cov)) for j in range(SIBLINGS)
    ]
    series = PointSeries("p", "all jobs", [float(t) for t in range(1, n + 1)], list(values))
    return any(f.rule_id == "TEL-DIP" and "onset" in f.evidence for f in evaluate(Context(series=[series]), rules))


def judge(name: str, seeds: range, wander: int, rules) -> dict:
    use(name)
    rows = [short_case(s, rules) for s in seeds]
    eligible = [r for r in rows if r["eligible"]]
    by_bin: dict[str, list[int]] = {}
    for r in eligible:
        cell = by_bin.setdefault(r["bin"], [0, 0])
        cell[0] += r["found"]
        cell[1] += 1
    return {
        "eligible_found": sum(r["found"] for r in eligible),
        "eligible": len(eligible),
        "by_length_s": {k: by_bin[k] for k in de._labels(de.LENGTH_BINS) if k in by_bin},
        "clean_twins_with_a_finding": sum(r["false"] for r in rows),
        "wandering_runs_with_a_dip": sum(wander_case(s, rules) for s in range(wander)),
    }


def per_second(series) -> np.ndarray:
    """A point's "all jobs" series over its active seconds, averaged per whole second (most of fio-plot's logs are
    0.25 s), without its first 5 s (start-up)."""
    from iolab.doctor.derived import active_seconds

    t, v = (np.asarray(a, dtype=float) for a in active_seconds(series))
    second = np.floor(t - 1e-9).astype(int)
    return np.array([v[second == k].mean() for k in np.unique(second)])[5:]


def real_points(data: Path) -> dict[tuple[str, str], list[np.ndarray]]:
    """(half, device folder) -> its points' per-second series of 35 s or more, all positive (fio-plot's traces as
    bench/fioplot_traces.py reads and splits them)."""
    import fioplot_traces as ft

    sides = ft.folders(data)
    out: dict[tuple[str, str], list[np.ndarray]] = {}
    for name, series in ft.points(data):
        one = ft.summed(name, series)
        x = per_second(one) if one is not None else np.array([])
        if len(x) >= 35 and np.all(x > 0):
            out.setdefault((ft.half(name, sides), str(Path(name).parent)), []).append(x)
    return out


def real_window(x: np.ndarray, others: list[np.ndarray], rng, rules) -> dict | None:
    """A 10-30 s window of a real point, judged with and without a planted dip, with its own correlation (shipped)
    and with its siblings' (the same window of up to 8 other points of its folder)."""
    w = min(int(rng.integers(10, 31)), len(x))
    a = int(rng.integers(0, len(x) - w + 1))
    window = x[a : a + w]
    siblings = [o[a : a + w] for o in others if len(o) >= a + w][:8]
    if len(siblings) < 3:
        return None
    length = int(rng.integers(2, w // 2 + 1))
    onset = int(rng.integers(2, max(w - length - 1, 3)))
    loss = np.zeros(w)
    loss[onset : onset + length] = de.profile(
        de.SHAPES[int(rng.integers(4))], length, float(rng.uniform(0.3, 0.9)), rng
    )
    Truth.siblings = [np.log(y) for y in siblings]
    row: dict = {"eligible": float(loss.max()) >= max(0.3, 3 * de.robust_cov(window))}
    for name in ("shipped", "siblings"):
        use(name)
        hits = de.findings(window * (1.0 - loss), rules)
        row[name] = (bool(de.findings(window, rules)), any(h[0] < onset + length and h[0] + h[1] > onset for h in hits))
    use("shipped")
    own = float(np.corrcoef(np.log(window)[1:], np.log(window)[:-1])[0, 1]) if w > 3 else 0.0
    row["phi"] = (_kendall(own, w), _siblings_phi())
    return row


def real(data: Path, rules) -> dict:
    """Windows of fio-plot's real points (folders with 4 or more), by half: eligible planted dips found and
    unplanted windows with a finding, the window's own correlation and its siblings'."""
    out = {}
    folders = real_points(data)
    for side in ("tuning", "reported"):
        rows = []
        for (half, folder), points in sorted(folders.items()):
            if half != side or len(points) < 4:
                continue
            for k, x in enumerate(points):
                rng = np.random.default_rng([58, k, len(x), len(folder)])
                others = [points[i] for i in rng.permutation(len(points)) if i != k]
                if (row := real_window(x, others, rng, rules)) is not None:
                    rows.append(row)
        phi = np.array([r["phi"] for r in rows]).reshape(-1, 2)
        out[side] = {
            "windows": len(rows),
            "eligible": sum(r["eligible"] for r in rows),
            **{
                f"{name}: eligible found / unplanted with a finding": [
                    sum(r[name][1] and r["eligible"] for r in rows),
                    sum(r[name][0] for r in rows),
                ]
                for name in ("shipped", "siblings")
            },
            "phi own window, siblings: medians": np.median(phi, axis=0).round(3).tolist() if len(rows) else [],
            "phi own window vs siblings: correlation": round(float(np.corrcoef(phi.T)[0, 1]), 3)
            if len(rows) > 2
            else None,
        }
        print(side, out[side])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1200, help="'short' tuning seeds from 3,800,000")
    parser.add_argument("--wander", type=int, default=3000, help="clean wandering short runs")
    parser.add_argument("--fioplot", type=Path, help="fio-plot's data: windows of real points instead")
    parser.add_argument("--out", default=None)
    add_smoke_flag(parser)
    a = parser.parse_args()
    rules = [r for r in de.all_rules() if r.id in de.RULES]
    if a.fioplot:
        cpu = time.process_time()
        figures = {"real": real(a.fioplot, rules), "cpu_s": 0.0}
        figures["cpu_s"] = round(time.process_time() - cpu, 1)
        write_result(Path(a.out or RESULTS / "short_phi_fioplot.json"), "short_phi", figures, smoke=a.smoke)
        return
    runs, wander = (12, 6) if a.smoke else (a.runs, a.wander)
    first = de.SCENARIO_TUNING["short"]
    cpu = time.process_time()
    figures: dict = {"seeds": [first, first + runs], "wander_runs": wander, "siblings": SIBLINGS, "readings": {}}
    for name in READINGS:
        one = figures["readings"][name] = judge(name, range(first, first + runs), wander, rules)
        print(f"{name:26s} {one}")
    use("shipped")
    figures["cpu_s"] = round(time.process_time() - cpu, 1)
    write_result(Path(a.out or RESULTS / "short_phi.json"), "short_phi", figures, smoke=a.smoke)


if __name__ == "__main__":
    main()
