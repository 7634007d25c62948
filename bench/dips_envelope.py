"""TEL-DIP and TEL-STEP over the space a user's machine can present, by bin, beside an oracle bound.

The declared space (issue 40, reference/analysis.md §5.4), each case drawn from its seed:

- run length 30 to 600 whole seconds (log-uniform);
- a dip of 2 s to half the run (log-uniform), at least 3 s from either end;
- its shape: a rectangle, a ramp (a sudden fall, then a straight recovery over
  the dip), a V (down to the deepest second in the middle and back), or a
  noisy bottom (a rectangle whose seconds' loss varies by a further 30% of the depth, never under 40% of
  it: varied by 30% of the low level instead, as before issue 40's second look, a shallow dip's seconds
  rose back to the level and a "2 s dip" was one low second);
- depth (the deepest second's loss) 10 to 100%;
- per-second noise: a coefficient of variation of 1 to 15% (log-uniform),
  autocorrelated (AR(1), phi 0 to 0.7), its shocks Gaussian or Student t with
  3 degrees of freedom (heavy tails), multiplying the level.

Beside that space, scenarios it does not span (or spans thinly) are drawn on their own held-out seeds and reported
by the same bins (nothing is chosen on them):

- "several": two to four dips of 2-20 s in one run of 60-600 s, 1-10 s apart (each dip is scored on its
  own: found when a finding overlaps it);
- "0.1 s": the series logged every 0.1 s (fio's log_avg_msec=100), runs of 30-300 s, a dip of 2 s to
  half the run starting at any tenth of a second; the per-sample COV is drawn as above, and the robust sd
  the target speaks of is the per-second one (samples averaged per second);
- "long": runs of 600-7,200 s (real traces reach hours), one dip as above;
- "past half": a dip longer than half the run, up to the whole run minus its recovery: runs of 30-600 s,
  the dip starting 3 s to a fifth of the run in, the run recovering for its last 5 s to a fifth of it;
- "seasonal": runs of 60-600 s with a periodic shape of their own, a false-alarm scenario (the clean twin
  keeps it): a sawtooth (a garbage-collection cycle: the rate sags linearly by 5-25% over a period of
  10-120 s, then jumps back) or periodic pauses (one second in every 5-60 s at 20-60% below the level),
  one dip as above planted on top of it. Both shapes are counted as false when TEL-RECURRING names them:
  the sawtooth sags no more than 25% (no second 25% below the level by its shape), and a pause is one second,
  under the 2 s a dip holds, so neither is a recurring drop as the rules define one;
- "recurring": runs of 600-7,200 s holding drops that recur (garbage collection, periodic stalls): a period
  of 30 s to 15 min (log-uniform, at most a third of the run), each drop 2-60 s long (log-uniform, at most
  half the period), one shape for all, 30-100% deep (each drop's depth within 15% of the run's), each onset
  within 5% of the period from its place; the pattern is found when TEL-RECURRING names it on the planted
  run (its count and period read beside), each drop scored as a dip as in "several" (seeds 1,100,000 on:
  the first 40 from 1,000,000 were looked at while the rule was built);
- "2 s": the main space with every dip 2 s long (four times as many cases): the shortest dips the target
  speaks of, by shape and depth, where the main space draws a few dozen of each (seeds 3,000,000 on were
  looked at while issue 40's fourth look diagnosed 2 s ramps; 1,200,000 on are held out);
- "gradual": runs of 30-3,600 s, one dip of 2 s to half the run shaped as a trapezoid (a straight fall over the
  first third of its length, flat, a straight rise over the last third), a V or a rectangle: where a dip's
  onset is dated from the start of a slow descent, beside the onset oracle below (seeds 3,100,000 on were
  tuned on; 1,300,000 on are held out);
- "gradual noisy": the same shapes and noisy bottoms in runs of 60-3,600 s whose COV is drawn uniform over 1-15%
  (the independent audit's draw; log-uniform elsewhere): noisier machines, where three in five of its trapezoids
  and V's fall a sd a second or more, against three in four in "gradual" (seeds 3,200,000 on were tuned on;
  1,400,000 on are held out);
- "short": runs of 8-30 s (a quick point, or a device's counters over one), one dip of 2 s to half the run that
  starts and ends at any tenth of a second, at least 2 s from either end, sampled once a second: its first and
  last seconds are part-way down, as a device's counters show a dip that does not start on the sampler's second
  (issue 40, round 54: seed 000's 3 s dip in a 10 s array read was missed whenever its rise fell inside a second,
  which the main space, dips on whole seconds in runs of 30 s or more, never drew; seeds 3,800,000 on are tuning
  seeds, 2,000,000 on held out).

Every seed gives the dip case and a clean twin (the same noise, no dip). Each
series goes to the rules as the doctor gives it (one "all jobs" series with a
partial first and last second), and the serious findings of TEL-DIP and
TEL-STEP are read:

- found: a finding whose interval overlaps the planted one; its onset and
  length error against the planted start and length;
- false alarm: any serious finding on a clean twin (per run).

The oracle bound in each bin is the recall of a matched filter that knows the
dip's shape and length, the level and the noise model (AR(1) phi and sigma,
Gaussian), scanning every position: the whitened correlation's largest z
against the Bonferroni cut at the rules' own false-alarm rate per run on the
clean twins (at least one in the number of clean runs). No method can do
better on the same data at that rate; a Gaussian filter is not the best test
under t3 shocks, so there it is a reference, not a ceiling. Beside it
("oracle_own_noise") the same filter with its cut read from SIMS clean runs of
the case's own noise model (t3 shocks where the case has them) at the same
rate per run: a test that knows the truth's noise model, as issue 40 defines
the bound; and ("beyond_twin") the share of dips deeper than every window of
their clean twin, which no window test at a false-alarm rate well under one
run in two can exceed.

The onset of each eligible dip found (within 1 s of the planted shape's first second, issue 40's target) is
set beside an onset oracle (`oracle_onset`, the "onsets" tables by shape and length, COV, phi, tails and the
fall's slope in the run's sd per second): the maximum-likelihood start of a hinge (the level, a straight fall,
a floor), knowing the level, the noise's AR(1) phi and where the planted shape's deepest part ends, fitted to the
prewhitened seconds; beside it the same knowing where the fall ends too. A descent that falls a fraction of an
sd a second cannot be dated to a second by it, nor by anything.

"Eligible" cases are those the issue's target speaks of: depth at least 30%
and at least 3x the run's robust per-second sd (1.4826 MAD of the clean twin's
seconds over their median). The depth is the planted one as the issue defines
it, 1 - lowest / level: the largest planted loss of any second (a noisy
bottom's deepest second, not the middle of its spread).

Parameters (the segmentation penalty) are chosen on the tuning seeds (--seed,
--tune-cases) with --tune; the figures are reported on held-out seeds
(--held-out-seed .. + --cases) that nothing was chosen on.

    python bench/dips_envelope.py [--cases 3000] [--held-out-seed 400000] [--scenario-cases 300] [--out PATH]
    python bench/dips_envelope.py --tune [--tune-cases 600]
    python bench/dips_envelope.py --smoke
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import NormalDist

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from results_file import RESULTS, add_smoke_flag, host, write_result  # noqa: E402

from iolab.doctor.derived import PointSeries  # noqa: E402
from iolab.doctor.engine import all_rules, evaluate  # noqa: E402
from iolab.doctor.rule import Context  # noqa: E402
from iolab.doctor.rules import telemetry  # noqa: E402
from iolab.models import Severity  # noqa: E402

RULES = ("TEL-DIP", "TEL-STEP", "TEL-RECURRING")
EVENT_RULES = ("TEL-DIP", "TEL-STEP")  # the findings a dip is found by and a clean run's false findings are
SHAPES = ("rectangle", "ramp", "V", "noisy bottom")
# the "gradual" scenario's shapes: a trapezoid falls over the first third of its length, holds the middle third
# and recovers over the last (issue 40's independent audit's "ramp", as its brief describes it), beside the V and
# the rectangle (which a dating that moves edges out must not date early)
GRADUAL_SHAPES = ("rectangle", "trapezoid", "V")
# "gradual noisy" (issue 40's independent audit's mix, which "gradual" spans thinly): its noise's COV is drawn
# uniform over 1-15% (log-uniform in the others: a third of their runs sit under 3%, where a fall of 30% over a
# minute is still a few sd a second), and noisy bottoms beside the gradual shapes
NOISY_GRADUAL_SHAPES = (*GRADUAL_SHAPES, "noisy bottom")
# the "real shapes" scenarios' own (issue 40 point 1's round 51): a rectangle the rate bursts above the level after
# (a garbage-collection stall's catch-up), and a fall and recovery in two or three steps
REAL_SHAPES = ("overshoot", "staircase")
ALL_SHAPES = (*SHAPES, "trapezoid", *REAL_SHAPES)
TUNING_SEED = 40
HELD_OUT_SEED = 400_000
PENALTIES = (2.0, 3.0, 5.0, 8.0)
TARGET = 0.95  # issue 40: found at least this often at every length, depth >= 30% and >= 3x the noise
LENGTH_BINS = ((2, 2), (3, 5), (6, 10), (11, 20), (21, 60), (61, 300), (301, 3600))
DEPTH_BINS = ((0.1, 0.3), (0.3, 0.6), (0.6, 1.0))
COV_BINS = ((0.01, 0.03), (0.03, 0.07), (0.07, 0.15))
PHI_BINS = ((0.0, 0.3), (0.3, 0.5), (0.5, 0.7))
RUN_BINS = ((30, 59), (60, 149), (150, 600), (601, 7200))
# each scenario's first held-out seed
SCENARIOS = {
    "several": 500_000,
    "0.1 s": 600_000,
    "long": 700_000,
    "past half": 800_000,
    "seasonal": 900_000,
    "recurring": 1_100_000,  # 1,000,000-1,000,039 were looked at while the rule was built: not held out
    "2 s": 1_200_000,  # the main space with every dip 2 s long: its shapes and depths by bin (3,000,000 on tuned)
    "gradual": 1_300_000,  # gradual shapes in runs of 30-3,600 s: the onset beside its oracle (3,100,000 on tuned)
    "gradual noisy": 1_400_000,  # the same in noisier runs of 60-3,600 s (3,200,000 on tuned)
    # shapes real drives show that the others do not (round 51): held out here, tuned on SCENARIO_TUNING's seeds
    "overshoot": 1_500_000,
    "staircase": 1_600_000,
    "edge": 1_700_000,
    "drift": 1_800_000,
    "pair": 1_900_000,
    "short": 2_000_000,
}
# each scenario's first tuning seed where it has one (--tuning-scenarios): chosen on, never reported
SCENARIO_TUNING = {
    "2 s": 3_000_000,
    "gradual": 3_100_000,
    "gradual noisy": 3_200_000,
    "overshoot": 3_300_000,
    "staircase": 3_400_000,
    "edge": 3_500_000,
    "drift": 3_600_000,
    "pair": 3_700_000,
    "short": 3_800_000,
}
# Cases of each scenario per --scenario-cases: 0.1 s logs draw ten times as many (they are cheap, and one in nine
# of their dips holds 2 s: 16 at 150 cases were too few to judge that bin).
SCENARIO_SCALE = {
    "several": 1,
    "0.1 s": 10,
    "long": 1,
    "past half": 1,
    "seasonal": 1,
    "recurring": 1,
    "2 s": 4,
    "gradual": 2,
    "gradual noisy": 2,
    "overshoot": 1,
    "staircase": 1,
    "edge": 1,
    "drift": 1,
    "pair": 1,
    "short": 2,
}
PERIOD_BINS = ((30, 60), (61, 180), (181, 900))
# a dip's fall per second in the run's robust sd (`slope`): the onset tables' axis of what can be dated
SLOPE_BINS = ((0.0, 0.05), (0.05, 0.1), (0.1, 0.2), (0.2, 0.5), (0.5, 1.0), (1.0, 1e9))
# Clean runs of a case's own noise model (its tails, COV, phi and length) the matched filter's cut is read from in
# the oracle that knows the noise (`own_noise_p`): 400 resolves the 1-6% per run the rules run at.
SIMS = 400
SMOKE_SIMS = 10  # --smoke: the own-noise oracle is exercised, not measured (the smoke keeps its time)
SEASONS = ("sawtooth", "pauses")
DRIFTS = ("drift", "wander")  # the "drift" scenario's slow changes of the level the clean twin keeps too


@dataclass(frozen=True)
class Planted:
    onset: float  # seconds from the start of the run (a whole number of samples; any tenth in "short")
    length: float  # seconds
    shape: str
    depth: float  # the shape's nominal depth (a noisy bottom's: the middle of its spread; see `profile`)
    burst: tuple[float, int] = (0.0, 0)  # an overshoot's (height above the level, seconds) after the dip


@dataclass(frozen=True)
class Case:
    seed: int
    seconds: int
    dips: tuple[Planted, ...]
    cov: float  # per sample
    phi: float  # per sample
    tails: str  # "gaussian" or "t3"
    interval: float = 1.0  # seconds a sample covers
    scenario: str = "single"
    season: tuple[str, float, float] | None = None  # (kind, period s, amplitude) of a run's own periodic shape

    @property
    def samples(self) -> int:
        return int(round(self.seconds / self.interval))


def _length(rng, longest: float) -> float:
    return max(2.0, min(math.floor(math.exp(rng.uniform(math.log(2), math.log(longest + 1)))), longest))


def _dip(rng, onset: float, length: float, shapes: tuple[str, ...] = SHAPES) -> Planted:
    return Planted(onset, length, shapes[int(rng.integers(len(shapes)))], float(rng.uniform(0.1, 1.0)))


def draw(seed: int, scenario: str = "single") -> Case:
    """One case of `scenario` (the module's docstring) from its seed."""
    rng = np.random.default_rng(seed)
    low, high = {
        "single": (30, 600),
        "several": (60, 600),
        "0.1 s": (30, 300),
        "long": (600, 7200),
        "past half": (30, 600),
        "seasonal": (60, 600),
        "recurring": (600, 7200),
        "2 s": (30, 600),
        "gradual": (30, 3600),
        "gradual noisy": (60, 3600),
        "overshoot": (30, 600),
        "staircase": (30, 600),
        "edge": (30, 600),
        "drift": (60, 1800),
        "pair": (60, 600),
        "short": (8, 30),
    }[scenario]
    seconds = int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))
    interval = 0.1 if scenario == "0.1 s" else 1.0
    if scenario == "several":
        dips = _several(rng, seconds)
    elif scenario == "past half":
        dips = [_past_half(rng, seconds)]
    elif scenario == "recurring":
        dips = _recurring(rng, seconds)
    elif scenario == "short":
        dips = [_unaligned(rng, seconds)]
    elif scenario in REAL_DRAWS:
        dips = REAL_DRAWS[scenario](rng, seconds)
    else:
        dips = [_single(rng, seconds, interval, scenario)]
    case = Case(
        seed,
        seconds,
        tuple(dips),
        _cov(rng, scenario),
        float(rng.uniform(0.0, 0.7)),
        ("gaussian", "t3")[int(rng.integers(2))],
        interval,
        scenario,
    )
    if scenario == "seasonal":
        kind = SEASONS[int(rng.integers(2))]
        period, amplitude = (rng.uniform(10, 120), rng.uniform(0.05, 0.25))
        if kind == "pauses":
            period, amplitude = (float(rng.integers(5, 61)), rng.uniform(0.2, 0.6))
        case = replace(case, season=(kind, float(period), float(amplitude)))
    if scenario == "drift":
        kind = DRIFTS[int(rng.integers(2))]
        # drift: the level moves linearly by 10-40% (up or down) over the run; wander: two sines of periods a third
        # of the run to twice it, 3-10% each (a level that moves every hour, never by a day's cycle)
        amount = (
            float(rng.uniform(0.1, 0.4) * rng.choice((-1.0, 1.0))) if kind == "drift" else float(rng.uniform(0.03, 0.1))
        )
        case = replace(case, season=(kind, float(rng.uniform(1 / 3, 2.0) * seconds), amount))
    return case


def _cov(rng, scenario: str) -> float:
    """The noise's per-sample COV, 1-15%: log-uniform (two runs in five under 3%), uniform in "gradual noisy"
    (issue 40's independent audit's draw: one in seven under 3%)."""
    if scenario == "gradual noisy":
        return float(rng.uniform(0.01, 0.15))
    return float(math.exp(rng.uniform(math.log(0.01), math.log(0.15))))


def _several(rng, seconds: int) -> list[Planted]:
    """Two to four dips of 2-20 s, 1-10 s apart, as many as fit."""
    dips: list[Planted] = []
    at = float(rng.integers(3, 20))
    for _ in range(int(rng.integers(2, 5))):
        length = _length(rng, 20)
        if at + length + 3 > seconds:
            break
        dips.append(_dip(rng, at, length))
        at += length + float(rng.integers(1, 11))
    return dips


def _single(rng, seconds: int, interval: float, scenario: str) -> Planted:
    """One dip of 2 s to half the run (2 s in the "2 s" scenario), at least 3 s from either end; in 0.1 s logs
    any tenth of a second, in length and start."""
    length = 2.0 if scenario == "2 s" else _length(rng, seconds // 2)
    if interval < 1.0:
        length = min(length + round(float(rng.uniform(0, 1)), 1), seconds / 2)
        onset = round(float(rng.uniform(3, seconds - length - 3)), 1)
    else:
        onset = float(rng.integers(3, seconds - length - 3 + 1))
    shapes = {"gradual": GRADUAL_SHAPES, "gradual noisy": NOISY_GRADUAL_SHAPES}.get(scenario, SHAPES)
    return _dip(rng, onset, length, shapes)


def _unaligned(rng, seconds: int) -> Planted:
    """One dip of 2 s to half the run, starting and ending at any tenth of a second, at least 2 s from either end:
    sampled once a second, its first and last seconds are part-way down, as a device's counters show a dip that
    does not start on the sampler's second."""
    length = min(_length(rng, seconds // 2) + round(float(rng.uniform(0, 1)), 1), seconds / 2)
    onset = round(float(rng.uniform(2, seconds - length - 2)), 1)
    return _dip(rng, onset, length)


def _overshoot(rng, seconds: int) -> list[Planted]:
    """A stall (a rectangle) of 2 s to a third of the run, then the rate 10-50% above the level for 2-20 s
    (at most the stall's length again), falling back straight: the dip ends where the level returns."""
    length = _length(rng, seconds // 3)
    burst_s = int(min(rng.integers(2, 21), max(2, length)))
    onset = float(rng.integers(3, max(4, seconds - length - burst_s - 3 + 1)))
    return [Planted(onset, length, "overshoot", float(rng.uniform(0.1, 1.0)), (float(rng.uniform(0.1, 0.5)), burst_s))]


def _staircase(rng, seconds: int) -> list[Planted]:
    """A fall in two or three steps and a recovery in steps (`profile`), 4 s to half the run."""
    onset, length = _placed(rng, seconds, 4)
    return [Planted(onset, length, "staircase", float(rng.uniform(0.1, 1.0)))]


def _placed(rng, seconds: int, shortest: int = 2) -> tuple[float, float]:
    """(onset, length) of one dip of `shortest` s to half the run, at least 3 s from either end."""
    length = max(float(shortest), _length(rng, seconds // 2))
    return float(rng.integers(3, seconds - length - 3 + 1)), length


def _edge(rng, seconds: int) -> list[Planted]:
    """A dip at the run's edge: starting in its first 0-2 s, or recovering only its last 2-5 s (each half the
    cases); 2 s to half the run, any of the main shapes."""
    length = _length(rng, seconds // 2)
    onset = float(rng.integers(0, 3)) if rng.uniform() < 0.5 else float(seconds - length - rng.integers(2, 6))
    return [_dip(rng, onset, length)]


def _drift(rng, seconds: int) -> list[Planted]:
    """One dip as in the main space on a level that drifts or wanders (`season`)."""
    return [_single(rng, seconds, 1.0, "drift")]


def _pair(rng, seconds: int) -> list[Planted]:
    """Two dips of 2 s to a quarter of the run (at most 120 s), 1-30 s apart (log-uniform), depths drawn apart."""
    first = _length(rng, min(120, seconds // 4))
    second = _length(rng, min(120, seconds // 4))
    gap = float(math.floor(math.exp(rng.uniform(0, math.log(31)))))
    span = first + gap + second
    onset = float(rng.integers(3, max(4, seconds - span - 3 + 1)))
    return [_dip(rng, onset, first), _dip(rng, onset + first + gap, second)]


REAL_DRAWS = {"overshoot": _overshoot, "staircase": _staircase, "edge": _edge, "drift": _drift, "pair": _pair}


def _recurring(rng, seconds: int) -> list[Planted]:
    """Drops that recur (the module's docstring): a period, one length and shape, depths near the run's."""
    period = math.exp(rng.uniform(math.log(30), math.log(min(900, seconds / 3))))
    length = min(_length(rng, 60), math.floor(period / 2))
    shape, depth = SHAPES[int(rng.integers(len(SHAPES)))], float(rng.uniform(0.3, 1.0))
    dips, k, phase = [], 0, float(rng.uniform(3, period))
    while True:
        onset = float(round(phase + k * period + rng.uniform(-0.05, 0.05) * period))
        if onset + length + 3 > seconds:
            return dips
        if onset >= 3:
            dips.append(Planted(onset, length, shape, min(1.0, depth * float(rng.uniform(0.85, 1.15)))))
        k += 1


def _past_half(rng, seconds: int) -> Planted:
    """A dip longer than half the run that ends: it starts 3 s to a fifth of the run in and the run recovers
    for its last 5 s to a fifth of it."""
    onset = int(rng.integers(3, max(4, seconds // 5) + 1))
    recovery = int(rng.integers(5, max(6, seconds // 5) + 1))
    longest = seconds - onset - recovery
    shortest = min(seconds // 2 + 1, longest)
    return _dip(rng, float(onset), float(rng.integers(shortest, longest + 1)))


def season(case: Case) -> np.ndarray:
    """The run's own periodic shape, multiplying its level (ones without one): a sawtooth sags linearly by the
    amplitude over each period and jumps back; pauses hold one second in each period the amplitude below."""
    t = np.arange(case.samples) * case.interval
    if case.season is None:
        return np.ones(case.samples)
    kind, period, amplitude = case.season
    phase = (t % period) / period
    if kind == "drift":
        return 1.0 + amplitude * (t / max(float(t[-1]), 1.0) - 0.5)
    if kind == "wander":
        turn = np.random.default_rng([case.seed, 4]).uniform(0, 2 * math.pi, 2)
        return 1.0 + amplitude * (
            np.sin(2 * math.pi * t / period + turn[0]) + np.sin(2 * math.pi * t / (0.6 * period) + turn[1])
        )
    if kind == "sawtooth":
        return 1.0 - amplitude * phase
    return np.where(t % period < 1.0, 1.0 - amplitude, 1.0)


def profile(shape: str, length: int, depth: float, rng) -> np.ndarray:
    """The planted loss per second of the dip (0 = at the level, 1 = stopped)."""
    i = np.arange(length, dtype=float)
    if shape == "ramp":
        return depth * (1.0 - i / length)
    if shape == "trapezoid":
        rise = max(1, length // 3)  # a line from the level one second before the first to the depth
        return depth * np.minimum(1.0, np.minimum(i + 1.0, length - i) / rise)
    if shape == "staircase":
        return depth * _stairs(length, rng)
    if shape == "V":
        centre = (length - 1) / 2
        return depth * (1.0 - np.abs(i - centre) / (centre + 1.0)) / (1.0 - (centre % 1) / (centre + 1.0))
    loss = np.full(length, depth)  # a rectangle, and an overshoot's stall
    if shape == "noisy bottom":
        loss = depth * np.clip(1.0 + 0.3 * rng.standard_normal(length), 0.4, None)
    return np.clip(loss, 0.0, 1.0)


def _stairs(length: int, rng) -> np.ndarray:
    """A fall in two or three equal steps (k / steps of the depth) and a recovery down the same steps, each of a
    drawn number of seconds: the loss per second over `length`, the bottom 1. A dip too short for every step of
    its draw (4 s drawn with three) loses its bottom step: its deepest second, which the bench reads as its depth,
    is then the step above."""
    steps = int(rng.integers(2, 4))
    weights = rng.uniform(0.5, 1.5, 2 * steps - 1)
    seconds = np.maximum(1, np.floor(weights / weights.sum() * length)).astype(int)
    seconds[steps - 1] += length - int(seconds.sum())  # the bottom takes what is left (never under one)
    if seconds[steps - 1] < 1:
        seconds = np.ones(2 * steps - 1, dtype=int)
        seconds[steps - 1] = length - 2 * steps + 2
    levels = np.concatenate((np.arange(1, steps + 1), np.arange(steps - 1, 0, -1))) / steps
    return np.repeat(levels, seconds)


def noise(case: Case) -> np.ndarray:
    """AR(1) relative noise with marginal sd `cov`: Gaussian or Student t3 shocks (scaled to unit variance)."""
    rng = np.random.default_rng([case.seed, 1])
    n = case.samples
    if case.tails == "t3":
        shocks = rng.standard_t(3, n) / math.sqrt(3.0)
    else:
        shocks = rng.standard_normal(n)
    shocks *= case.cov * math.sqrt(1.0 - case.phi**2)
    e = np.empty(n)
    e[0] = shocks[0] / math.sqrt(1.0 - case.phi**2)
    for t in range(1, n):
        e[t] = case.phi * e[t - 1] + shocks[t]
    return e


def losses(case: Case) -> list[np.ndarray]:
    """Each planted dip's loss per sample over the whole run (0 outside it)."""
    out = []
    for k, dip in enumerate(case.dips):
        seed = [case.seed, 2] if k == 0 else [case.seed, 2, k]
        first, count = int(round(dip.onset / case.interval)), int(round(dip.length / case.interval))
        loss = np.zeros(case.samples)
        if first * case.interval != dip.onset or count * case.interval != dip.length:  # "short": any tenth
            loss = _unaligned_loss(case.samples, dip, case.interval, np.random.default_rng(seed))
        else:
            loss[first : first + count] = profile(dip.shape, count, dip.depth, np.random.default_rng(seed))
        height, burst = dip.burst
        if burst:  # the rate above the level after the dip, falling back straight (a negative loss)
            after = loss[first + count : first + count + burst]
            after[:] = -height * (1.0 - np.arange(len(after)) / burst)
        out.append(loss)
    return out


def _unaligned_loss(samples: int, dip: Planted, interval: float, rng) -> np.ndarray:
    """The loss per sample of a dip starting and ending at any tenth of a sample: its profile over whole samples,
    laid on a tenth-of-a-sample grid from its onset, each sample the mean of its tenths."""
    start, tenths = int(round(dip.onset / interval * 10)), int(round(dip.length / interval * 10))
    fine = np.zeros(samples * 10)
    shape = profile(dip.shape, math.ceil(dip.length / interval), dip.depth, rng)
    fine[start : start + tenths] = np.repeat(shape, 10)[:tenths]
    return fine.reshape(samples, 10).mean(axis=1)


def series(case: Case, planted: bool) -> tuple[np.ndarray, list[np.ndarray]]:
    """(the values per sample, each planted dip's loss per sample) of the case or its clean twin."""
    each = losses(case) if planted else []
    kept = season(case)
    for loss in each:
        kept *= 1.0 - loss
    level = 500e6
    return np.clip(level * kept * (1.0 + noise(case)), 0.0, None), each


def findings(values: np.ndarray, rules, interval: float = 1.0) -> list[tuple[float, float]]:
    """(onset, duration) of each serious TEL-DIP or TEL-STEP finding on the series as the doctor gives it."""
    return read(values, rules, interval)[0]


def read(values: np.ndarray, rules, interval: float = 1.0) -> tuple[list[tuple[float, float]], list[dict]]:
    """(onset, duration) of each serious TEL-DIP or TEL-STEP finding on the series as the doctor gives it, and
    the evidence of each serious TEL-RECURRING finding."""
    whole = values.tolist()
    full = [whole[0] * 0.4, *whole, whole[-1] * 0.3]  # fio's partial first and last samples
    ctx = Context(series=[PointSeries("p", "all jobs", [interval * t for t in range(len(full))], full)])
    out, patterns = [], []
    for f in evaluate(ctx, rules):
        if f.severity is Severity.NOT_EVALUATED:
            raise SystemExit(f"not evaluated: {f.title}")
        if f.severity not in (Severity.WARNING, Severity.CRITICAL):
            continue
        if f.rule_id in EVENT_RULES:
            out.append(
                (float(f.evidence["onset"].removesuffix(" s")), float(f.evidence["duration"].removesuffix(" s")))
            )
        else:
            patterns.append(dict(f.evidence))
    return out, patterns


def robust_cov(values: np.ndarray, interval: float = 1.0) -> float:
    """1.4826 MAD over the median of a clean series, its samples averaged per whole second: the run's robust
    per-second sd, relative."""
    per = max(1, int(round(1.0 / interval)))
    seconds = values[: len(values) // per * per].reshape(-1, per).mean(axis=1)
    median = float(np.median(seconds))
    return float(1.4826 * np.median(np.abs(seconds - median)) / median)


def _whitened(case: Case, loss: np.ndarray) -> tuple[np.ndarray, float, int, int] | None:
    """(the whitened template of the planted dip, one second past it; its norm times the innovations' sd; the
    dip's first and last sample), or None when the dip is empty."""
    inside = np.flatnonzero(loss)
    if len(inside) == 0:
        return None
    first, last = int(inside[0]), int(inside[-1])
    template = -loss[first : last + 1]
    q = np.concatenate((template, [0.0]))
    q = q[1:] - case.phi * q[:-1]
    q = np.concatenate(([template[0]], q))[: len(template) + 1]  # whitened template, one second past the dip
    sigma_e = case.cov * math.sqrt(1.0 - case.phi**2)
    return q, float(np.sqrt(np.sum(q * q))) * sigma_e, first, last


def oracle_z(case: Case, values: np.ndarray, loss: np.ndarray) -> float:
    """The largest whitened matched-filter z over the positions where the template overlaps the planted dip
    (a finding is credited only there too), knowing its shape, length, level, phi and sigma."""
    shaped = _whitened(case, loss)
    if shaped is None:
        return 0.0
    q, norm, first, last = shaped
    r = values / (500e6 * season(case)) - 1.0
    w = r[1:] - case.phi * r[:-1]
    if norm == 0 or len(w) < len(q):
        return 0.0
    z = np.correlate(w, q, "valid") / norm  # z[j]: the template's first sample at r[j + 1]
    lo, hi = max(0, first - len(q) + 1), min(len(z) - 1, last)  # windows that overlap the dip
    return float(np.max(z[lo : hi + 1])) if hi >= lo else 0.0


def null_runs(case: Case, sims: int = SIMS) -> np.ndarray:
    """`sims` clean runs' relative deviations from the level (values / level - 1, a second never below no work)
    drawn from the case's own noise model, as `noise` draws its one, from seeds of their own."""
    rng = np.random.default_rng([case.seed, 3])
    n = case.samples
    if case.tails == "t3":
        shocks = rng.standard_t(3, (sims, n)) / math.sqrt(3.0)
    else:
        shocks = rng.standard_normal((sims, n))
    shocks *= case.cov * math.sqrt(1.0 - case.phi**2)
    e = np.empty((sims, n))
    e[:, 0] = shocks[:, 0] / math.sqrt(1.0 - case.phi**2)
    for t in range(1, n):
        e[:, t] = case.phi * e[:, t - 1] + shocks[:, t]
    return np.clip(1.0 + e, 0.0, None) - 1.0


def own_noise_p(case: Case, z: float, loss: np.ndarray, null: np.ndarray) -> float:
    """The share of the case's clean null runs (`null_runs`) in which the same matched filter reaches `z`
    anywhere: the oracle's chance per run under the noise the case was drawn from. Under t3 shocks the Gaussian
    cut of `oracle_z` is no bound (issue 40's seventh look: read at 1% a run it found 125 of 133 eligible 2 s
    dips 30-60% deep at COV 7-15%, calibrated on the t3 noise 13)."""
    shaped = _whitened(case, loss)
    if shaped is None or shaped[1] == 0 or null.shape[1] - 1 < len(shaped[0]):
        return 1.0
    q, norm = shaped[0], shaped[1]
    w = null[:, 1:] - case.phi * null[:, :-1]
    m, size = w.shape[1] - len(q) + 1, 1 << int(w.shape[1] + len(q)).bit_length()
    # every position's correlation at once, by FFT: a recurring run holds dozens of dips over 7,200 s
    spectrum = np.fft.rfft(w, size, axis=1) * np.conj(np.fft.rfft(q, size))
    largest = np.fft.irfft(spectrum, size, axis=1)[:, :m].max(axis=1) / norm
    return float(np.mean(largest >= z))


ONSET_REACH = 600  # samples the onset oracle looks before the planted dip (and at most its length)


def oracle_onset(
    case: Case, values: np.ndarray, loss: np.ndarray, shape: str, known_bottom: bool = False
) -> float | None:
    """The onset (s) a method knowing the level, the noise's AR(1) phi and the shape family (a straight descent
    from the level, then a floor) would date the planted dip at: the maximum-likelihood start t0 of a hinge (the
    level up to t0, a straight fall to a floor at t1, the floor on to the end of the planted shape's deepest part:
    its middle for a V, its flat for a rectangle or a trapezoid, its whole length for a noisy bottom), its fall
    and floor free, fitted to the prewhitened deviations from the level from up to the dip's length (at least
    10 s, at most ONSET_REACH samples) before it (Gaussian innovations: under t3 shocks a reference, not a
    ceiling). It is told where the deepest part ends, which no method is: a generous bound; `known_bottom`: where
    it starts too (the fall's end t1 is the truth's, t0 alone is fitted), more generous still. None when the dip
    is empty."""
    inside = np.flatnonzero(loss)
    if len(inside) == 0:
        return None
    first, count = int(inside[0]), int(inside[-1] - inside[0] + 1)
    deepest = np.flatnonzero(loss >= float(loss.max()) - 1e-9)
    end = int(inside[-1]) if shape == "noisy bottom" else int(deepest[-1])
    lo = max(0, first - min(max(count, 10), ONSET_REACH))
    r = values / (500e6 * season(case)) - 1.0
    phi = case.phi
    w = r[lo : end + 1] - phi * (r[lo - 1 : end] if lo > 0 else np.concatenate(([0.0], r[lo:end])))
    v = w - phi * np.concatenate((w[1:], [0.0]))  # the hinge h's h.whitened(h) . w = sum h_i (w_i - phi w_{i+1})
    m = len(v)
    sv = np.concatenate(([0.0], np.cumsum(v)))
    siv = np.concatenate(([0.0], np.cumsum(np.arange(m) * v)))
    best, start = -1.0, first
    for block in range(1, m, 256):  # rows of t0 at a time: a 1,800 s V's grid is millions of (t0, t1)
        t0 = np.arange(block, min(block + 256, m))[:, None]
        t1 = np.arange(1, m)[None, :]
        if known_bottom:
            t1 = np.array([[first if shape == "noisy bottom" else int(deepest[0])]]) - lo
        span = np.maximum(t1 - t0 + 1, 1).astype(float)
        hv = ((siv[t1 + 1] - siv[t0]) - (t0 - 1) * (sv[t1 + 1] - sv[t0])) / span + (sv[m] - sv[t1 + 1])
        # whitened hinge's energy: ((1 - phi) k + phi) / span for k = 1..span on its fall, 1 - phi on its floor
        fall = (1 - phi) ** 2 * (span + 1) * (2 * span + 1) / 6 + phi * (1 - phi) * (span + 1) + phi**2
        fit = np.where((t1 >= t0) & (hv < 0), hv * hv / (fall / span + (1 - phi) ** 2 * (m - 1 - t1)), -1.0)
        row = fit.max(axis=1)
        if float(row.max()) > best:
            best, start = float(row.max()), lo + block + int(np.argmax(row))
    return start * case.interval


def held(loss: np.ndarray, interval: float, shoulder: float) -> tuple[float, float] | None:
    """(onset s, length s) of the planted dip as the issue's definition reads it, an interval below the run's
    level: from the first to the last sample the planted loss puts at least `shoulder` below it (the amount a
    second must be below the level to count as low time). A rectangle's is its whole planted interval; a V's
    starts where its edge gets that deep, not at its first second 1% down, which no method can place in noise
    (a 300 s V 30% deep falls 0.2% a second); a 2 s ramp in 0.1 s logs holds that deep for less than 2 s.
    None when no sample is that deep (the dip is shallower than the shoulder)."""
    inside = np.flatnonzero(loss >= shoulder - 1e-9)
    if len(inside) == 0:
        return None
    return float(inside[0]) * interval, float(inside[-1] - inside[0] + 1) * interval


def run_case(case: Case, rules, sims: int = SIMS) -> list[dict]:
    """One row per planted dip (the clean twin's false findings on the first); the own-noise oracle reads `sims`
    null runs."""
    planted, each = series(case, True)
    clean, _ = series(case, False)
    hits, patterns = read(planted, rules, case.interval)
    # the noise's own sd: a drifting level (which the clean twin keeps) is not noise
    sd = robust_cov(clean / season(case) if case.season and case.season[0] in DRIFTS else clean, case.interval)
    false_hits, false_patterns = read(clean, rules, case.interval)
    false = len(false_hits)
    null = null_runs(case, sims)
    rows = []
    for k, (dip, loss) in enumerate(zip(case.dips, each, strict=True)):
        match = [h for h in hits if h[0] < dip.onset + dip.length and h[0] + h[1] > dip.onset]
        onset, length = held(loss, case.interval, telemetry.PARAMS.shoulder) or (dip.onset, dip.length)
        best = min(match, key=lambda h: abs(h[0] - onset)) if match else None
        rows.append(
            {
                "case": case,
                "dip": dip,
                "first": k == 0,
                "depth": float(loss.max()),  # 1 - lowest / level of the planted dip, as the issue defines depth
                "sd": sd,
                "found": best is not None,
                "held_s": length,
                **_errors(best, onset, length, dip.onset),
                "false": false if k == 0 else 0,
                "false_patterns": len(false_patterns) if k == 0 else 0,
                "patterns": patterns if k == 0 else [],
                "oracle_onset_error": _minus(oracle_onset(case, planted, loss, dip.shape), dip.onset),
                "oracle_bottom_onset_error": _minus(oracle_onset(case, planted, loss, dip.shape, True), dip.onset),
                "oracle": (z := oracle_z(case, planted, loss)),
                "own_noise_p": own_noise_p(case, z, loss, null),
                "beyond_twin": beyond_twin(planted, clean, onset, length, case.interval),
            }
        )
    return rows


def _minus(a: float | None, b: float) -> float | None:
    return None if a is None else a - b


def beyond_twin(planted: np.ndarray, clean: np.ndarray, onset: float, length: float, interval: float) -> bool:
    """Whether the planted dip's mean log value over its held interval is below every window of that length in
    its clean twin: otherwise the run's own noise holds a window as deep, and no test at the rules' chance per
    run could call the dip and not that window (a second of no work counts as 1% of the median, as in the
    rules' own tail)."""
    first, count = int(round(onset / interval)), max(1, int(round(length / interval)))

    def logs(x: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(x, 0.01 * float(np.median(clean))))

    c = np.concatenate(([0.0], np.cumsum(logs(clean))))
    deepest = float(np.min(c[count:] - c[:-count])) / count
    return float(np.mean(logs(planted)[first : first + count])) < deepest


def _errors(best: tuple[float, float] | None, onset: float, length: float, shape_onset: float) -> dict:
    """The finding's onset and length error against the held interval, and its onset error against the shape's
    first second (None each when nothing was found)."""
    if best is None:
        return {"onset_error": None, "length_error": None, "shape_onset_error": None}
    return {
        "onset_error": best[0] - onset,
        "length_error": best[1] - length,
        "shape_onset_error": best[0] - shape_onset,
    }


def bin_of(value: float, bins) -> str | None:
    for lo, hi in bins:
        if lo <= value <= hi:
            return f"{lo:g}-{hi:g}"
    return None


def summarise(rows: list[dict]) -> dict:
    """Recall (with the oracle bound), onset and length error, by bin; false alarms per clean run, by bin."""
    cases = [r for r in rows if r["first"]]
    alarm = max(sum(r["false"] > 0 for r in cases), 1) / len(cases)

    def recall(group: list[dict]) -> dict:
        return _recall(group, alarm)

    deep = [r for r in rows if r["depth"] >= 0.3 and r["depth"] >= 3 * r["sd"]]
    # the target's dips: deep enough, and holding the low time a dip must (a 2 s V in 0.1 s logs does not)
    eligible = [r for r in deep if r["held_s"] >= telemetry.PARAMS.min_duration_s - 1e-9]
    out: dict = {"false_alarm_rate_used_by_oracle": round(alarm, 4), "all": recall(rows), "eligible": recall(eligible)}
    # the same target read by the planted shape's whole interval (its length and first second), beside it
    out["deep_by_planted_length_s"] = {
        label: recall([r for r in deep if bin_of(math.floor(r["dip"].length), LENGTH_BINS) == label])
        for label in _labels(LENGTH_BINS)
    }
    out["deep_holding_under_min"] = recall([r for r in deep if r not in eligible])
    axes = {
        "length_s": (lambda r: math.floor(r["held_s"] + 1e-9), LENGTH_BINS),  # 0.1 s logs: 2.3 s is a 2 s dip
        "depth": (lambda r: r["depth"], DEPTH_BINS),
        "cov": (lambda r: r["case"].cov, COV_BINS),
        "phi": (lambda r: r["case"].phi, PHI_BINS),
        "run_s": (lambda r: r["case"].seconds, RUN_BINS),
    }
    beyond = [r for r in eligible if r["beyond_twin"]]  # deeper than any window its clean twin holds
    for scope, group in (("eligible", eligible), ("all", rows), ("eligible_beyond_twin", beyond)):
        out |= _tables(scope, group, axes, recall)
    out["clean"] = _clean(cases, axes)
    out["eligible_by_variant"] = {v: recall([r for r in eligible if variant(r) == v]) for v in VARIANTS}
    return out


VARIANTS = ("start", "end", *DRIFTS, "first", "second", "burst 10-30%", "burst 30-50%")


def variant(r: dict) -> str | None:
    """The round-51 scenarios' sub-kinds: an edge dip at the run's start or end, the level's drift or wander, the
    first or second of a pair, an overshoot's burst height."""
    c, d = r["case"], r["dip"]
    if c.scenario == "edge":
        return "start" if d.onset < 3 else "end"
    if c.scenario == "drift":
        return c.season[0]
    if c.scenario == "pair":
        return "first" if r["first"] else "second"
    if c.scenario == "overshoot":
        return "burst 10-30%" if d.burst[0] < 0.3 else "burst 30-50%"
    return None


def _clean(cases: list[dict], axes: dict) -> dict:
    """False findings per clean run, in all and by the noise's and the run's bins."""
    clean: dict = {
        "runs": len(cases),
        "false_per_run": round(sum(r["false"] for r in cases) / len(cases), 4),
        "false_patterns_per_run": round(sum(r["false_patterns"] for r in cases) / len(cases), 4),
    }
    for name in ("cov", "phi", "run_s"):
        key, bins = axes[name]
        clean[f"by_{name}"] = {
            label: _false([r for r in cases if bin_of(key(r), bins) == label]) for label in _labels(bins)
        }
    clean["by_tails"] = {t: _false([r for r in cases if r["case"].tails == t]) for t in ("gaussian", "t3")}
    return clean


def by_pattern(rows: list[dict]) -> dict:
    """The recurring scenario's patterns: the share of planted runs TEL-RECURRING names (its drops' count and
    period beside), in all and by period, drop length, depth and tails; runs whose drops are eligible (depth at
    least 30% and 3x the run's robust sd) apart, with the recall of those drops as dips."""
    cases = [r for r in rows if r["first"]]
    eligible = [r for r in cases if r["depth"] >= 0.3 and r["depth"] >= 3 * r["sd"]]
    out: dict = {"all": _pattern_share(cases, rows), "eligible": _pattern_share(eligible, rows)}
    for name, bins in (("period_s", PERIOD_BINS), ("length_s", LENGTH_BINS[:5]), ("depth", DEPTH_BINS[1:])):
        out[f"by_{name}"] = _pattern_bins(cases, rows, name, bins)
    out["by_tails"] = {t: _pattern_share([r for r in cases if r["case"].tails == t], rows) for t in ("gaussian", "t3")}
    return out


def _pattern_bins(cases: list[dict], rows: list[dict], name: str, bins) -> dict:
    return {
        label: _pattern_share([r for r in cases if bin_of(_pattern_key(r)[name], bins) == label], rows)
        for label in _labels(bins)
    }


def _pattern_key(r: dict) -> dict:
    c = r["case"]
    return {"period_s": _period(c), "length_s": c.dips[0].length, "depth": float(np.median([d.depth for d in c.dips]))}


def _pattern_share(group: list[dict], rows: list[dict]) -> dict:
    """Of the runs in `group` (their first rows): named by TEL-RECURRING, its period and count right, and the
    recall of their drops as dips (all their rows)."""
    named = [r for r in group if r["patterns"]]
    seeds = {g["case"].seed for g in group}
    return {
        "runs": len(group),
        "named": _share([bool(r["patterns"]) for r in group]),
        "period_within_10pct": _share([_period_within(r) for r in named]),
        "drops_counted_within_20pct": _share([_count_within(r) for r in named]),
        "drops_found_as_dips": _share([d["found"] for d in rows if d["case"].seed in seeds]),
    }


def _period(case: Case) -> float:
    onsets = [d.onset for d in case.dips]
    return float(np.median(np.diff(onsets))) if len(onsets) > 1 else float(case.seconds)


def _period_within(r: dict) -> bool:
    said = str(r["patterns"][0].get("period", "irregular"))
    if said == "irregular":
        return False
    return abs(float(said.removesuffix(" s")) - _period(r["case"])) <= 0.1 * _period(r["case"])


def _count_within(r: dict) -> bool:
    return abs(int(str(r["patterns"][0]["drops"])) - len(r["case"].dips)) <= 0.2 * len(r["case"].dips)


def _tables(scope: str, group: list[dict], axes: dict, recall) -> dict:
    """`scope`'s recall tables: by each axis's bins, by shape, by tails, by shape and length."""
    out = {f"{scope}_by_{name}": _by_bins(group, key, bins, recall) for name, (key, bins) in axes.items()}
    out[f"{scope}_by_shape"] = {s: recall([r for r in group if r["dip"].shape == s]) for s in ALL_SHAPES}
    out[f"{scope}_by_tails"] = {t: recall([r for r in group if r["case"].tails == t]) for t in ("gaussian", "t3")}
    out[f"{scope}_by_shape_and_length"] = _by_shape_and_length(group, axes["length_s"][0], recall)
    out[f"{scope}_by_shape_length_and_depth"] = {
        f"{shape} {length} depth {depth}": cell
        for (shape, length), by_depth in _by_shape_length_and_depth(group, axes["length_s"][0], recall).items()
        for depth, cell in by_depth.items()
    }
    return out


def _by_shape_length_and_depth(group: list[dict], length, recall) -> dict:
    """{(shape, length bin): {depth bin: recall}}, the depth bins of 30% and over (where the target speaks)."""
    return {
        (s, label): {
            f"{lo:g}-{hi:g}": recall(
                [
                    r
                    for r in group
                    if r["dip"].shape == s and bin_of(length(r), LENGTH_BINS) == label and lo <= r["depth"] <= hi
                ]
            )
            for lo, hi in DEPTH_BINS[1:]
        }
        for s in ALL_SHAPES
        for label in _labels(LENGTH_BINS)
    }


def _by_bins(group: list[dict], key, bins, recall) -> dict:
    return {label: recall([r for r in group if bin_of(key(r), bins) == label]) for label in _labels(bins)}


def _by_shape_and_length(group: list[dict], length, recall) -> dict:
    return {
        f"{s} {label}": recall([r for r in group if r["dip"].shape == s and bin_of(length(r), LENGTH_BINS) == label])
        for s in ALL_SHAPES
        for label in _labels(LENGTH_BINS)
    }


def _recall(group: list[dict], alarm: float) -> dict:
    """Recall, the oracle's at false-alarm rate `alarm` per clean run (its Gaussian cut, and its cut from the case's
    own noise), the share beyond their clean twin, and onset and length error of `group`."""
    found = [r for r in group if r["found"]]
    length = [abs(r["length_error"]) <= max(1.0, 0.2 * r["held_s"]) for r in found]
    return {
        "cases": len(group),
        "recall": _share([r["found"] for r in group]),
        "oracle": _share([_oracle_found(r, alarm) for r in group]),
        # the same filter with its cut from the case's own noise model at the same rate per run (`own_noise_p`)
        "oracle_own_noise": _share([r["own_noise_p"] < alarm for r in group]),
        # the data's own bound: a dip no deeper than some window of its clean twin (the same noise) is called only
        # by a test that would call that window in a clean run too (issue 40's seventh look, docs/dips.md)
        "beyond_twin": _share([r["beyond_twin"] for r in group]),
        "onset_within_1s": _share([abs(r["onset_error"]) <= 1 for r in found]),
        "shape_onset_within_1s": _share([abs(r["shape_onset_error"]) <= 1 for r in found]),
        # the onset oracle's on the same dips (`oracle_onset`): what knowing the level, phi and the shape allows
        "oracle_shape_onset_within_1s": _share([_oracle_onset_within(r) for r in found]),
        "length_within_20pct": _share(length),
        "median_abs_length_error_s": float(np.median([abs(r["length_error"]) for r in found])) if found else None,
    }


def _oracle_onset_within(r: dict, key: str = "oracle_onset_error") -> bool:
    return r.get(key) is not None and abs(r[key]) <= 1.0


def onsets(rows: list[dict]) -> dict:
    """Onset within 1 s of the planted shape's start, iolab's beside the onset oracle's (`oracle_onset`), on the
    eligible dips found (depth at least 30% and 3x the run's robust sd), by shape and planted length, by shape
    and COV, by shape and phi, by shape and tails, by shape and the descent's slope against the noise (`slope`)."""
    found = [r for r in rows if r["found"] and r["depth"] >= 0.3 and r["depth"] >= 3 * r["sd"]]
    axes = {
        "length_s": (lambda r: math.floor(r["dip"].length), LENGTH_BINS),
        "cov": (lambda r: r["case"].cov, COV_BINS),
        "phi": (lambda r: r["case"].phi, PHI_BINS),
        "tails": (lambda r: r["case"].tails, None),
        "slope": (slope, SLOPE_BINS),
    }
    out: dict = {"all": _onset_cell(found)}
    for name, (key, bins) in axes.items():
        labels = _labels(bins) if bins else ["gaussian", "t3"]
        out[f"by_shape_and_{name}"] = {
            f"{s} {label}": _onset_cell(
                [r for r in found if r["dip"].shape == s and (bin_of(key(r), bins) if bins else key(r)) == label]
            )
            for s in ALL_SHAPES
            for label in labels
        }
    return out


def slope(r: dict) -> float:
    """How steeply the planted dip falls against the noise: its depth over the seconds of its fall (a V's half, a
    trapezoid's third, one for the others), in the run's robust per-second sd per second. Under about 0.1, its
    first seconds are each well within the noise, and where it started cannot be read to a second by anyone."""
    dip = r["dip"]
    fall = {"V": dip.length / 2, "trapezoid": max(1.0, dip.length // 3)}.get(dip.shape, 1.0)
    return r["depth"] / fall / max(r["sd"], 1e-9)


def _onset_cell(group: list[dict]) -> dict:
    errors = [abs(r["shape_onset_error"]) for r in group]
    return {
        "found": len(group),
        "iolab": _share([e <= 1 for e in errors]),
        "oracle": _share([_oracle_onset_within(r) for r in group]),
        "oracle_known_bottom": _share([_oracle_onset_within(r, "oracle_bottom_onset_error") for r in group]),
        "iolab_median_abs_error_s": float(np.median(errors)) if errors else None,
        "oracle_median_abs_error_s": (
            float(np.median([abs(r["oracle_onset_error"]) for r in group])) if group else None
        ),
    }


def print_onsets(table: dict) -> None:
    print(f"onset +-1 s of the shape's start, eligible found: {table['all']}")
    for key, cells in table.items():
        if key == "all":
            continue
        print(key)
        for label, c in cells.items():
            if c["found"]:
                print(
                    f"  {label:>22}: {c['found']:5d} found  iolab {_pct(c['iolab'])}  oracle {_pct(c['oracle'])}  "
                    f"(knowing the bottom {_pct(c['oracle_known_bottom'])})  "
                    f"median |error| {c['iolab_median_abs_error_s']:g} s vs {c['oracle_median_abs_error_s']:g} s"
                )


def _oracle_found(r: dict, alarm: float) -> bool:
    c, d = r["case"], r["dip"]
    return r["oracle"] > NormalDist().inv_cdf(1.0 - alarm / (c.samples - round(d.length / c.interval) + 1))


def _share(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def _labels(bins) -> list[str]:
    return [f"{lo:g}-{hi:g}" for lo, hi in bins]


def _false(group: list[dict]) -> dict:
    return {
        "runs": len(group),
        "false_per_run": round(sum(r["false"] for r in group) / len(group), 4) if group else None,
        "false_patterns_per_run": round(sum(r["false_patterns"] for r in group) / len(group), 4) if group else None,
    }


def by_season(rows: list[dict]) -> dict:
    """False findings per clean run of the seasonal scenario, by the run's own periodic shape."""
    cases = [r for r in rows if r["first"]]
    return {kind: _false([r for r in cases if r["case"].season[0] == kind]) for kind in SEASONS}


def score(seeds: range, rules, scenario: str = "single", sims: int = SIMS) -> list[dict]:
    return [row for seed in seeds for row in run_case(draw(seed, scenario), rules, sims)]


def tune(seeds: range, rules) -> tuple[float, dict]:
    """On the tuning seeds only: the largest penalty (the fewest segments, so the fewest false alarms) whose
    eligible recall reaches the issue's 95% in every length bin; failing that, the one with the highest recall
    in its worst bin. (bench/fioplot_traces.py --half tuning --penalty P checks the same choice on real traces.)"""
    shipped = telemetry.PARAMS
    grid = {}
    try:
        for penalty in PENALTIES:
            telemetry.PARAMS = replace(shipped, penalty=penalty)
            figures = summarise(score(seeds, rules))
            worst = min((b["recall"] for b in figures["eligible_by_length_s"].values() if b["cases"] >= 5), default=0.0)
            grid[penalty] = {"worst_length_bin": worst, "false_per_run": figures["clean"]["false_per_run"]}
            print(
                f"penalty {penalty:g}: worst eligible length bin {worst:.1%}, false per clean run {grid[penalty]['false_per_run']}"
            )
    finally:
        telemetry.PARAMS = shipped
    reaching = [p for p in PENALTIES if grid[p]["worst_length_bin"] >= TARGET]
    if reaching:
        return max(reaching), grid
    return max(PENALTIES, key=lambda p: (grid[p]["worst_length_bin"], -p)), grid


TABLES = (
    "eligible_by_length_s",
    "eligible_beyond_twin_by_length_s",
    "eligible_beyond_twin_by_tails",
    "deep_by_planted_length_s",
    "eligible_by_shape",
    "eligible_by_cov",
    "eligible_by_phi",
    "eligible_by_run_s",
    "eligible_by_tails",
    "all_by_length_s",
    "all_by_depth",
    "eligible_by_shape_length_and_depth",
)


def print_table(figures: dict, tables: tuple[str, ...] = TABLES) -> None:
    print(f"oracle at the rules' false-alarm rate per clean run: {figures['false_alarm_rate_used_by_oracle']:.2%}")
    for key in tables:
        print(key)
        for label, b in figures[key].items():
            if b["cases"]:
                print(
                    f"  {label:>14}: {b['cases']:5d} cases  recall {b['recall']:.1%}  oracle {b['oracle']:.1%}  "
                    f"own noise {b['oracle_own_noise']:.1%}  beyond twin {b['beyond_twin']:.1%}  "
                    f"onset +-1 s {_pct(b['onset_within_1s'])} (from the shape's start {_pct(b['shape_onset_within_1s'])})  "
                    f"length +-20% {_pct(b['length_within_20pct'])}"
                )
    clean = figures["clean"]
    print(
        f"clean: {clean['false_per_run']} false findings per run over {clean['runs']} runs, "
        f"{clean['false_patterns_per_run']} false recurring patterns"
    )
    for key in ("by_cov", "by_phi", "by_run_s", "by_tails", "by_season"):
        if key not in clean:
            continue
        print(f"  {key}: " + ", ".join(f"{k} {v['false_per_run']}" for k, v in clean[key].items()))


def print_patterns(p: dict) -> None:
    for name in ("all", "eligible"):
        print(f"  patterns {name}: {p[name]}")
    for key in ("by_period_s", "by_length_s", "by_depth", "by_tails"):
        print(f"  {key}: " + ", ".join(f"{k} {v['named']} of {v['runs']}" for k, v in p[key].items()))


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3000, help="held-out cases (each with its clean twin)")
    parser.add_argument("--held-out-seed", type=int, default=HELD_OUT_SEED)
    parser.add_argument("--seed", type=int, default=TUNING_SEED, help="the first tuning seed")
    parser.add_argument("--tune-cases", type=int, default=600)
    parser.add_argument("--tune", action="store_true", help="choose the penalty on the tuning seeds")
    parser.add_argument("--scenario-cases", type=int, default=300, help="held-out cases of each further scenario")
    parser.add_argument(
        "--tuning-scenarios",
        action="store_true",
        help="the scenarios on their tuning seeds (SCENARIO_TUNING) where they have them, not their held-out ones",
    )
    parser.add_argument("--sims", type=int, default=SIMS, help="clean runs the own-noise oracle reads per case")
    parser.add_argument("--out", type=Path, default=RESULTS / "dips_envelope.json")
    parser.add_argument("--tuning-from", type=Path, help="keep the penalty's tuning grid of this results file")
    parser.add_argument("--only", nargs="+", help="run only these parts: main and the scenarios' names")
    parser.add_argument("--merge", type=Path, nargs="+", help="--only runs' files to merge into --out")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.merge:
        return merge(args.merge, args.out, args.tuning_from)
    return run(args)


def run(args) -> int:
    """The bench's parts (--only, else the main space and every scenario) at the sizes asked, written."""
    if args.smoke:
        args.cases, args.scenario_cases, args.sims = 24, 3, SMOKE_SIMS
    parts = set(args.only or ["main", *SCENARIOS])
    rules = [r for r in all_rules() if r.id in RULES]
    started = time.perf_counter()
    figures: dict = {"host": host(), "params": telemetry.PARAMS.__dict__, "own_noise_sims": args.sims}
    figures |= _tuning(args, rules)
    if "main" in parts:
        rows = score(range(args.held_out_seed, args.held_out_seed + args.cases), rules, sims=args.sims)
        figures["held_out"] = {"seeds": [args.held_out_seed, args.held_out_seed + args.cases], **summarise(rows)}
        figures["held_out"]["onsets"] = onsets(rows)
        print_table(figures["held_out"])
        print_onsets(figures["held_out"]["onsets"])
    firsts = SCENARIOS | (SCENARIO_TUNING if args.tuning_scenarios else {})
    figures["scenarios"] = {
        name: scenario(name, first, args.scenario_cases, rules, args.sims)
        for name, first in firsts.items()
        if name in parts
    }
    figures["seconds"] = round(time.perf_counter() - started, 1)
    write_result(args.out, "dips_envelope", figures, smoke=args.smoke)
    if args.tune and figures["tuning"]["chosen_penalty"] != telemetry.PARAMS.penalty:
        return 1
    return 0


def _tuning(args, rules) -> dict:
    """{"tuning": the penalty chosen on the tuning seeds (--tune), or kept from --tuning-from}, or nothing."""
    if args.tune:
        chosen, grid = tune(range(args.seed, args.seed + args.tune_cases), rules)
        print(f"chosen penalty {chosen:g} (shipped {telemetry.PARAMS.penalty:g})")
        return {"tuning": {"seeds": [args.seed, args.seed + args.tune_cases], "grid": grid, "chosen_penalty": chosen}}
    return {"tuning": kept_tuning(args.tuning_from)} if args.tuning_from is not None else {}


def scenario(name: str, first: int, cases: int, rules, sims: int = SIMS) -> dict:
    """One scenario's figures on its own held-out seeds, printed."""
    seeds = range(first, first + cases * SCENARIO_SCALE[name])
    rows = score(seeds, rules, name, sims)
    figures = {"seeds": [seeds.start, seeds.stop], **summarise(rows), "onsets": onsets(rows)}
    if name == "seasonal":
        figures["clean"]["by_season"] = by_season(rows)
    print(f"scenario {name!r}, seeds {seeds.start}..{seeds.stop - 1}:")
    if name == "recurring":
        figures["patterns"] = by_pattern(rows)
        print_patterns(figures["patterns"])
    print_table(
        figures,
        (
            "eligible_by_length_s",
            "eligible_by_variant",
            "eligible_beyond_twin_by_length_s",
            "eligible_by_shape",
            "all_by_length_s",
            "eligible_by_shape_length_and_depth",
        ),
    )
    print_onsets(figures["onsets"])
    return figures


def kept_tuning(path: Path) -> dict:
    """The tuning grid of an earlier results file, said to be kept (the penalty is chosen on the main space's
    tuning seeds with the rules of that run; a rule added after it does not move the segmentation)."""
    import json

    tuning = json.loads(path.read_text())["tuning"]
    return tuning | {"kept": f"from the run of {json.loads(path.read_text())['when']}: the penalty was not re-tuned"}


def merge(paths: list[Path], out: Path, tuning_from: Path | None) -> int:
    """One results file from --only runs (several processes finish on a shared machine where one would not)."""
    import json

    parts = [json.loads(p.read_text()) for p in paths]
    figures: dict = {"host": parts[0]["host"], "params": parts[0]["params"], "scenarios": {}}
    if tuning_from is not None:
        figures["tuning"] = kept_tuning(tuning_from)
    for part in parts:
        figures |= {k: part[k] for k in ("held_out", "tuning") if k in part}
        figures["scenarios"] |= part["scenarios"]
    figures["measured_as"] = f"{len(parts)} processes (--only), merged by --merge; seconds: the longest"
    figures["seconds"] = max(p["seconds"] for p in parts)
    write_result(out, "dips_envelope", figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
