"""Outlier drives over the space a user's array can present, by bin, beside what the data allow.

The space (reference/analysis.md §5.4), drawn per seed:

- 3 to 32 drives; the healthy drives' levels lognormal, sigma of ln(rate) 1 to 30%;
- per-second noise: AR(1) (lag-1 correlation 0 to 0.8) with Student t (3 dof) innovations, a per-second
  CV of 1 to 20%, over 10 to 60 s (three arrays in four) or 300 s (fio-plot's long runs);
- each seed a clean array and its twin with one or two drives at 5 to 95% of the healthy drives' median.

Every array is judged as ARR-OUTLIER judges it: `find_outliers(values, view="together",
metric="bandwidth", noise=...)`, each drive's value the mean of its seconds and its noise the relative
standard error of that mean about its own levels (`analysis.noise.own_noise`).

Beside it, two tests that know more than any method can, on the same observed means, at the same nominal
false-alarm rate per array (1%, Bonferroni over the drives), each weighing a drive against its healthy
peers only (they know which the planted drives are):

- the oracle bound: a prediction interval on the log means that knows the model (normal log levels, the
  noise of each drive's mean) but not sigma, which it estimates from the same peers: Student's t with
  m - 1 degrees of freedom. No method that is not told sigma does better at the same false-alarm rate in
  every sigma; the target is to come within 3 points of it;
- the known-sigma ceiling: the same interval with the true sigma and the true noise of a mean (normal
  quantile); what the array would show if its peers' spread were known beforehand.

Bins: sigma (1-10, 10-20, 20-30%) x size (3-7, 8-15, 16-32 drives) x slowdown (the drive's level over the
healthy median: <= 20, 20-40, 40-60, 60-80, 80-95%). Recall is per planted drive; a false alarm is a clean
array with any drive named. Parameters are chosen on the tuning seeds (--seed ..); figures are reported on
the held-out seeds (--held-out-seed ..), drawn once the method was fixed.

The choice (issue 40, third round): the envelope test judges arrays of fewer than 8 drives only; of the t
test's alarm share in 8+ drives (`LOO_ALARMS`), its share below 8 (`SMALL_ALARMS`) and the share of drives set
aside in turn (`SHARES`), the combinations whose clean tuning arrays alarm at most `TUNE_ALARMS` in all and
`TUNE_BIN_ALARMS` in every bin, and whose recall of drives at or below 60% is within `TUNE_GAP` of the oracle
bound (at the matched alarm) in every sigma x size bin of 8+ drives; of those the one naming the most in its
worst sigma bin of 8-32 drives, then of 3-7, then the more conservative.

The fourth round (a slow group found first, `analysis.outlier_groups`) keeps the third round's t alarms and
share and chooses the group search's alarm (`GROUP_ALARMS`) the same way, with one more criterion before the
size bins' recall: the most drives of a slow HBA group named in the worst sigma x group-share bin of the HBA
groups family's own tuning seeds (`GROUP_TUNING_SEED`..).

The sixth round (the whole verdict's alarm in 8+ drives held per size by simulation, `analysis.outlier_null`)
chooses that alarm (`ARRAY_ALARMS`) with the group search's; a bin's clean arrays fail the choice only where the
lower end of their Wilson interval is over `TUNE_BIN_ALARMS` (its point share turned on one array of ~110), and
where no combination is within what is allowed, those least over it are ranked (before, the smallest key, the
group search off, was taken).

Beyond that space, families on seeds of their own (never tuned on; judged with the chosen parameters, the
references at the tuning seeds' matched alarms), each by sigma x its own bin, weak bins included:

- larger arrays: `draw`'s arrays of 33 to 128 drives (bins 33-64, 65-128), seeds 610000..; and above 128
  drives, 129 to 512 (bins 129-256, 257-512), seeds 630000.. (a fifth as many: each takes 10-20 times as long);
- HBA groups: arrays of 8 to 128 drives with a group of drives behind one HBA (2 drives up to half the array;
  bins up to 10%, 10-25%, 25-50% of the drives) whose seconds share 30-90% of their noise, the group slowed
  together to one level at 5-95% of the other drives' median (its clean twin keeps the group and its shared
  noise), seeds 620000.. (those the third round reported) and 820000.. (fresh, drawn once); beside recall per
  drive, the share of slow groups named whole and in part, and where the median of all drives sat over the
  other drives' median (how far the group drags the peers);
- two drive models: arrays of 8 to 128 drives, a quarter to three quarters of them a model at 60-80% of the
  other's speed, one or two drives slow against their own model, seeds 640000..; judged by model (the run
  knows them: the correct answer, no finding for the slower model), the oracle bound weighing each drive
  against its own model's healthy drives; beside it, what the call says without the models (clean arrays with
  a drive named, and with the whole slower model named as a group).

Where the method misses a planted drive, the figures count how often its report had said it could not have
named one that slow (its floor; for an HBA group, its group floor).

    python bench/outlier_envelope.py --cases 2000 --held-out-cases 3000 --family-cases 600 [--seed 33] [--held-out-seed 500000] [--out PATH]
    python bench/outlier_envelope.py --families-only --family-cases 800   # the families again, into the stored run
    python bench/outlier_envelope.py --shipped ...   # the shipped parameters, no choice (a busy host, no time)
    python bench/outlier_envelope.py --smoke   # the smoke size the suite runs
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from statistics import NormalDist

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import held_out  # noqa: E402
from results_file import host, write_result  # noqa: E402

from iolab.analysis import outlier_groups, outlier_null  # noqa: E402
from iolab.analysis.noise import own_noise  # noqa: E402
from iolab.analysis.outliers import OutlierParams, OutlierReport, find_outliers, find_outliers_by_class  # noqa: E402
from iolab.analysis.student_t import t_sf  # noqa: E402

BASE = 500e6  # bytes/s of a healthy drive
ALARM = 0.01  # the nominal false-alarm rate per clean array, of every test here
SIGMA_BINS = ((0.01, 0.10), (0.10, 0.20), (0.20, 0.30))
SIZE_BINS = ((3, 7), (8, 15), (16, 32))
SLOW_BINS = ((0.05, 0.20), (0.20, 0.40), (0.40, 0.60), (0.60, 0.80), (0.80, 0.95))
FRESH_SEED = 500_000
# The third round's choice (its grid is in that round's results): the t test's alarm share in arrays of 8 drives or
# more, in arrays of fewer (where the envelope test judges too), and the share of drives set aside in turn
LOO_ALARMS = (0.005,)
SMALL_ALARMS = (0.002,)
SHARES = (0.0,)
# The group search's alarm share (issue 40, fourth round; 0: off), chosen on the tuning seeds of the base space
# and of the HBA groups family (`GROUP_TUNING_SEED`)
GROUP_ALARMS = (0.0005, 0.001, 0.002, 0.003)
# The whole verdict's nominal alarm in arrays of 8+ drives (issue 40, sixth round: the leave-out tests' alarm is
# simulated per size to hold it with the group search, `analysis.outlier_null`)
ARRAY_ALARMS = (0.005, 0.006)
GROUP_TUNING_SEED = 720_000
TUNE_ALARMS = 0.007  # clean arrays' alarms allowed on the tuning seeds, in all
# and in any one bin (sigma x size): the target (issue 40), judged as a binomial share: a bin fails where even the
# lower end of its Wilson 95% interval is over it. A bin of the tuning seeds holds 110-650 arrays, where one alarm
# is 0.15-0.9 points: its point share failed every alarm of the fifth round by a single array, and the choice fell
# back to the search off. bench/outlier_clean.py measures each bin with 2,000 arrays.
TUNE_BIN_ALARMS = 0.01
Z95 = 1.959964
TUNE_GAP = 0.02  # recall at most this far below the oracle bound in any bin of 8+ drives (the target: 3 points)


@dataclass
class Array:
    """One array of the space: its drives' true levels, its noise, and which drives were made slow."""

    seed: int
    sigma: float
    cv: float
    phi: float
    seconds: int
    levels: np.ndarray
    slow: dict[int, float]  # drive -> its level over the healthy drives' median
    # Drives behind one shared HBA (the groups family): their seconds share a noise component, `shared` of
    # each one's per-second variance, and a slow HBA slows them all at once.
    group: tuple[int, ...] = field(default=(), kw_only=True)
    shared: float = field(default=0.0, kw_only=True)
    # Each drive's model (the two-models family): drives of one model are one another's peers; () one model.
    model: tuple[int, ...] = field(default=(), kw_only=True)

    @property
    def n(self) -> int:
        return len(self.levels)

    def mean_noise(self) -> float:
        """The standard deviation of ln(mean of the seconds) that the noise model gives (small-CV limit)."""
        lags = np.arange(1, self.seconds)
        weights = self.seconds + 2 * float(((self.seconds - lags) * self.phi**lags).sum())
        return self.cv * math.sqrt(weights) / self.seconds


def draw(seed: int) -> tuple[Array, Array]:
    """A clean array and its twin (the same drives and noise) with one or two slow drives."""
    rng = np.random.default_rng(seed)
    return _planted(seed, rng, int(rng.integers(3, 33)))


def _planted(seed: int, rng: np.random.Generator, n: int) -> tuple[Array, Array]:
    """`draw`'s arrays of `n` drives: the spread, noise and slow drives drawn from `rng`."""
    sigma = float(rng.uniform(0.01, 0.30))
    seconds = int(rng.integers(10, 61)) if rng.random() < 0.75 else 300
    levels = BASE * np.exp(sigma * rng.standard_normal(n))
    clean = Array(seed, sigma, float(rng.uniform(0.01, 0.20)), float(rng.uniform(0.0, 0.8)), seconds, levels, {})
    drives = rng.choice(n, size=int(rng.integers(1, 3)) if n >= 4 else 1, replace=False)
    slow = {int(d): float(rng.uniform(0.05, 0.95)) for d in drives}
    healthy = np.median([v for i, v in enumerate(levels) if i not in slow])
    twin_levels = levels.copy()
    for d, ratio in slow.items():
        twin_levels[d] = ratio * healthy
    return clean, Array(seed, sigma, clean.cv, clean.phi, seconds, twin_levels, slow)


def per_second(array: Array, rng: np.random.Generator) -> np.ndarray:
    """Each drive's seconds (drives x seconds): its level times exp of AR(1) noise with t3 innovations."""
    shocks = rng.standard_t(3, (array.n, array.seconds)) / math.sqrt(3.0)  # unit variance
    shocks *= array.cv * math.sqrt(1 - array.phi**2)
    e = np.empty_like(shocks)
    e[:, 0] = rng.standard_t(3, array.n) / math.sqrt(3.0) * array.cv
    for t in range(1, array.seconds):
        e[:, t] = array.phi * e[:, t - 1] + shocks[:, t]
    if array.group:  # the HBA's own noise, common to its drives (drawn after the rest: other arrays unchanged)
        common = per_second(replace(array, levels=np.ones(1), group=()), rng)
        group = list(array.group)
        e[group] = math.sqrt(1 - array.shared) * e[group] + math.sqrt(array.shared) * np.log(common)
    return array.levels[:, None] * np.exp(e)


@dataclass(frozen=True)
class Verdict:
    """What ARR-OUTLIER's call says of one array: the drives named, the smallest slowdown of one drive it says it
    could have named (`floor`), the same for a further group of three (None where the search does not judge), the
    group it named."""

    named: set[int]
    group_floor: float | None
    group: set[int]
    reports: list[OutlierReport]

    @classmethod
    def of(cls, reports: list[OutlierReport]) -> Verdict:
        """The verdict of one array's reports (one, or one per model): the lowest floors of any."""
        groups = [r.group_floor for r in reports if r.group_floor is not None]
        named = {int(s.device[1:]) for r in reports for s in r.outliers}
        return cls(named, min(groups, default=None), {int(d[1:]) for r in reports for d in r.group}, reports)

    @cached_property
    def floor(self) -> float | None:
        """The lowest of the reports' floors, worked out where first read (a missed drive): where the mixture test
        judges, a report's floor is a bisection of it (`OutlierReport.floor`)."""
        return min((r.floor for r in self.reports if r.floor is not None), default=None)


@dataclass(frozen=True)
class Seen:
    """One array as the doctor sees it (each drive's mean and noise), and the two reference tests' verdicts."""

    values: dict[str, float]
    noise: dict[str, float]
    bound: dict[int, float]  # each drive's Bonferroni-adjusted p-value in the oracle bound's test
    ceiling: dict[int, float]  # in the known-sigma test
    # each drive's model, where the run knows it (the two-models family); None: judged as one array
    classes: dict[str, str] | None = None
    judged: dict[tuple[OutlierParams, bool], Verdict] = field(default_factory=dict, compare=False)

    def judge(self, params: OutlierParams, models: bool = True) -> Verdict:
        """ARR-OUTLIER's verdict (kept per array and parameters: the choice asks each several times); by model
        where the array knows its drives' models and `models` (else as one array)."""
        key = (params, models and self.classes is not None)
        if key not in self.judged:
            self.judged[key] = Verdict.of(self._reports(params, key[1]))
        return self.judged[key]

    def _reports(self, params: OutlierParams, by_model: bool) -> list[OutlierReport]:
        if by_model:
            return list(find_outliers_by_class(self.values, self.classes or {}, params, noise=self.noise).values())
        return [find_outliers(self.values, params, view="together", metric="bandwidth", noise=self.noise)]


def observe(array: Array) -> Seen:
    rng = np.random.default_rng([array.seed, 7, len(array.slow)])
    return seen(array, per_second(array, rng))


def seen(array: Array, x: np.ndarray) -> Seen:
    """What the rule and both oracle bounds see of an array's per-second rates `x` (a row per drive)."""
    values = {f"d{i}": float(x[i].mean()) for i in range(array.n)}
    noise = {}
    for i in range(array.n):
        error = own_noise(x[i].tolist())
        if error is not None:
            noise[f"d{i}"] = error
    y = np.log(list(values.values()))
    classes = {f"d{i}": f"model {m}" for i, m in enumerate(array.model)} or None
    return Seen(values, noise, _oracle(array, y, known_sigma=False), _oracle(array, y, known_sigma=True), classes)


def _oracle(array: Array, y: np.ndarray, known_sigma: bool) -> dict[int, float]:
    """Each drive's p-value against its healthy peers' prediction interval (module docstring), times the drives
    (Bonferroni): a drive is named at a false-alarm rate `alarm` per array where this is below `alarm`. Where the
    drives are of two models, a drive's peers are the healthy drives of its own model."""
    healthy = [i for i in range(array.n) if i not in array.slow]
    model = array.model or (0,) * array.n
    adjusted = {}
    for i in range(array.n):
        peers = [j for j in healthy if j != i and model[j] == model[i]]
        if len(peers) >= 2:
            adjusted[i] = _p_value(array, y, i, peers, known_sigma) * array.n
    return adjusted


def _p_value(array: Array, y: np.ndarray, i: int, peers: list[int], known_sigma: bool) -> float:
    """Drive i's one-sided p-value against its peers' prediction interval, told sigma or estimating it."""
    m = len(peers)
    beyond = float(y[peers].mean()) - float(y[i])
    if known_sigma:
        scale = math.sqrt((array.sigma**2 + array.mean_noise() ** 2) * (1 + 1 / m))
        return 1 - NormalDist().cdf(beyond / scale)
    scale = float(y[peers].std(ddof=1)) * math.sqrt(1 + 1 / m)
    return t_sf(beyond / scale, m - 1) if scale > 0 else float(beyond <= 0)


def named_at(adjusted: dict[int, float], alarm: float) -> set[int]:
    return {i for i, p in adjusted.items() if p < alarm}


def matched_alarm(cases: list[Case], params: OutlierParams, which: str) -> float:
    """The reference test's nominal alarm at which its clean arrays alarm as often, in all, as the method's do on
    the same cases: the two are compared at the same false-alarm rate, not the same nominal one."""
    method = sum(bool(case.seen_clean.judge(params).named) for case in cases) / len(cases)
    lowest = sorted(min(getattr(case.seen_clean, which).values(), default=1.0) for case in cases)
    k = int(round(method * len(cases)))
    if k <= 0:
        return lowest[0]
    return float(np.nextafter(lowest[k - 1], np.inf))


def size_bin(n: int) -> str:
    return next(f"{low}-{high}" for low, high in SIZE_BINS if n <= high)


def sigma_bin(sigma: float) -> str:
    return next(f"{low:.0%}-{high:.0%}" for low, high in SIGMA_BINS if sigma <= high)


def slow_bin(ratio: float) -> str:
    return next(f"{low:.0%}-{high:.0%}" for low, high in SLOW_BINS if ratio <= high)


@dataclass
class Case:
    clean: Array
    twin: Array
    seen_clean: Seen
    seen_twin: Seen


def case(seed: int) -> Case:
    """One seed's clean array and its twin, as the rule and both references see them."""
    clean, twin = draw(seed)
    return Case(clean, twin, observe(clean), observe(twin))


def corpus(seeds: list[int], workers: int = 1) -> list[Case]:
    """Each seed's case, in order (`workers` processes draw and observe them: a host shared by eight sessions gives
    one process a few percent of a CPU)."""
    if workers <= 1:
        return [case(seed) for seed in seeds]
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return pool.map(case, seeds, chunksize=max(1, len(seeds) // (8 * workers)))


class Tally(dict):
    """Counts by key: [method, bound, ceiling, of]."""

    def add(self, key: str, method: bool, bound: bool, ceiling: bool) -> None:
        row = self.setdefault(key, [0, 0, 0, 0])
        row[0] += method
        row[1] += bound
        row[2] += ceiling
        row[3] += 1

    def table(self) -> dict:
        return {
            key: {"method": round(m / n, 4), "bound": round(b / n, 4), "ceiling": round(c / n, 4), "of": n}
            for key, (m, b, c, n) in sorted(self.items())
        }


def score(cases: list[Case], params: OutlierParams, reference: tuple[float, float]) -> dict:
    """By bin: clean arrays' false alarms (method, bound, ceiling), recall per planted drive, and for the drives
    the method missed, how often its report had said a drive that slow could not be named (floor below it)."""
    alarms, recall, headline, said, clean = Tally(), Tally(), Tally(), [0, 0], 0
    bound_alarm, ceiling_alarm = reference
    for case in cases:
        sizes = [size_bin(case.clean.n), "8-32" if case.clean.n >= 8 else None]
        sigma = sigma_bin(case.clean.sigma)
        named = case.seen_clean.judge(params).named
        clean += bool(named)
        bound = named_at(case.seen_clean.bound, bound_alarm)
        ceiling = named_at(case.seen_clean.ceiling, ceiling_alarm)
        for size in filter(None, sizes):
            alarms.add(f"sigma {sigma}, {size} drives", bool(named), bool(bound), bool(ceiling))
        verdict = case.seen_twin.judge(params)
        named = verdict.named
        bound = named_at(case.seen_twin.bound, bound_alarm)
        ceiling = named_at(case.seen_twin.ceiling, ceiling_alarm)
        for d, ratio in case.twin.slow.items():
            hit = (d in named, d in bound, d in ceiling)
            recall.add(f"sigma {sigma}, {sizes[0]} drives, at {slow_bin(ratio)}", *hit)
            if ratio <= 0.6:
                for size in filter(None, sizes):
                    headline.add(f"sigma {sigma}, {size} drives", *hit)
            if not hit[0]:
                _count_said(said, verdict.floor, ratio)
    return {
        "arrays": len(cases),
        "clean_alarm_share": round(clean / len(cases), 4),
        "false_alarms": alarms.table(),
        "recall_at_most_60pct": headline.table(),
        "recall": recall.table(),
        "missed_drives_the_report_said_it_could_not_name": {"said": said[0], "of": said[1]},
    }


def grid_entry(cases: list[Case], params: OutlierParams) -> dict:
    """What the choice weighs of one combination on the tuning seeds, the oracle bound at its alarm matched."""
    figures = score(cases, params, (matched_alarm(cases, params, "bound"), ALARM))
    head = figures["recall_at_most_60pct"]
    large = [row for key, row in head.items() if "3-7" not in key]
    return {
        "false_alarms": figures["clean_alarm_share"],
        "worst_bin_false_alarms": max(row["method"] for row in figures["false_alarms"].values()),
        "worst_bin_lower_95": max(wilson_lower(row["method"], row["of"]) for row in figures["false_alarms"].values()),
        "worst_gap_8_32": round(min(row["method"] - row["bound"] for row in large), 4),
        "worst_recall_8_32": min(row["method"] for key, row in head.items() if "8-32" in key),
        "worst_recall_3_7": min(row["method"] for key, row in head.items() if "3-7" in key),
    }


def wilson_lower(share: float, of: int) -> float:
    """The lower end of the Wilson score interval (95%) of a binomial share of `of` trials."""
    if not of:
        return 0.0
    z2 = Z95**2
    centre = (share + z2 / (2 * of)) / (1 + z2 / of)
    half = Z95 * math.sqrt(share * (1 - share) / of + z2 / (4 * of**2)) / (1 + z2 / of)
    return round(max(0.0, centre - half), 4)


def _over(g: dict) -> float:
    """How far a combination's clean tuning arrays are over what is allowed (0: within it): in all, and in its
    worst bin by the lower end of the bin's interval."""
    return max(0.0, g["false_alarms"] - TUNE_ALARMS, g["worst_bin_lower_95"] - TUNE_BIN_ALARMS)


def _preference(g: dict, k: tuple[float, ...]) -> tuple:
    """Within TUNE_GAP of the bound in every bin of 8+ drives first (else the nearest), then the most drives of a
    slow HBA group named in its worst bin (the group tuning seeds), then the most named in the worst sigma bin of
    8-32 drives, then of 3-7, then the more conservative."""
    return (
        min(g["worst_gap_8_32"], -TUNE_GAP),
        g.get("worst_group_recall", 0.0),
        g["worst_recall_8_32"],
        g["worst_recall_3_7"],
        *(-x for x in k),
    )


def choose(cases: list[Case], groups: list[Case], smoke: bool = False) -> tuple[OutlierParams, dict]:
    """The t test's alarm shares (8+ drives, fewer), the share of drives set aside, the group search's alarm and the
    array alarm, on the tuning seeds (the module's doc): of the combinations least over what is allowed (`_over`:
    TUNE_ALARMS in all, TUNE_BIN_ALARMS in every bin), the one `_preference` ranks first; `groups` are the HBA
    groups family's tuning arrays (its recall of slow groups at or below 60%, in its worst sigma x group-share bin, at the base
    space's matched reference alarms)."""
    shipped = OutlierParams()
    grid = {}
    combinations = list(itertools.product(LOO_ALARMS, SMALL_ALARMS, SHARES, GROUP_ALARMS, ARRAY_ALARMS))
    if smoke:  # the smoke size checks the bench runs: each combination simulates its null at every size first
        combinations = [k for k in combinations if _combination(shipped, k) == shipped] or combinations[-1:]
    for loo, small, share, group, whole in combinations:
        params = _combination(shipped, (loo, small, share, group, whole))
        entry = grid_entry(cases, params)
        if groups:
            reference = (matched_alarm(cases, params, "bound"), ALARM)
            figures = score_family("HBA groups", groups, params, reference)
            rows = figures["recall_at_most_60pct"].values()
            entry["worst_group_recall"] = min(row["method"] for row in rows)
            entry["worst_group_gap"] = round(min(row["method"] - row["bound"] for row in rows), 4)
            entry["group_clean_alarms"] = figures["clean_alarm_share"]
        grid[(loo, small, share, group, whole)] = entry
    # where no combination is within what is allowed, those least over it (before, the smallest key: the search off)
    least = min(_over(g) for g in grid.values())
    allowed = [k for k, g in grid.items() if _over(g) <= least]
    best = max(allowed, key=lambda k: _preference(grid[k], k))
    table = {
        f"t alarm {k[0]:g}, under 8 drives {k[1]:g}, set aside {k[2]:.2f}, group alarm {k[3]:g}, "
        f"array alarm {k[4]:g}": g
        for k, g in grid.items()
    }
    return _combination(shipped, best), table


def _combination(shipped: OutlierParams, k: tuple[float, ...]) -> OutlierParams:
    """The parameters of one combination of the grid: the t alarms (8+ drives, fewer), the share set aside, the
    group alarm and the array alarm."""
    loo, small, share, group, whole = k
    return replace(shipped, loo_alarm=loo, small_loo_alarm=small, loo_share=share, group_alarm=group, array_alarm=whole)


# -- beyond the space the choice is made on (issue 40 item 3) -------------------------------------------------
# Two families drawn on seeds of their own, never tuned on: arrays above 64 drives, and a group of drives behind
# one HBA that slows them all at once. Both are judged with the chosen parameters, the references at the tuning
# seeds' matched alarms, so each bin's figures sit beside those of the space the choice was made on.
FAMILIES = ("larger arrays", "above 128 drives", "HBA groups", "HBA groups, fresh seeds", "two drive models")
FAMILY_SEEDS = {
    "larger arrays": 610_000,
    "above 128 drives": 630_000,
    "HBA groups": 620_000,
    "HBA groups, fresh seeds": 820_000,
    "two drive models": 640_000,
}
FAMILY_SCALE = {"above 128 drives": 0.2}  # of `--family-cases`: an array of 129-512 drives takes 10-20 times as long
LARGE_BINS = ((33, 64), (65, 128), (129, 256), (257, 512))
GROUP_SHARE_BINS = ((0.0, 0.10), (0.10, 0.25), (0.25, 0.50))
MODEL_BINS = ((0.6, 0.7), (0.7, 0.8))  # the slower model's speed over the faster's


def draw_large(seed: int) -> tuple[Array, Array]:
    """`draw`'s clean array and twin, of 33 to 128 drives."""
    rng = np.random.default_rng([seed, 1])
    return _planted(seed, rng, int(rng.integers(33, 129)))


def draw_huge(seed: int) -> tuple[Array, Array]:
    """`draw`'s clean array and twin, of 129 to 512 drives."""
    rng = np.random.default_rng([seed, 3])
    return _planted(seed, rng, int(rng.integers(129, 513)))


def _family_base(rng: np.random.Generator) -> tuple[int, float, int, np.ndarray, float, float]:
    """What the two-model and HBA families draw first, in this order (their seeds draw the same arrays): 8 to
    128 drives, the peers' sigma, the run's length, the drives' levels, the seconds' COV and phi."""
    n = int(rng.integers(8, 129))
    sigma = float(rng.uniform(0.01, 0.30))
    seconds = int(rng.integers(10, 61)) if rng.random() < 0.75 else 300
    levels = BASE * np.exp(sigma * rng.standard_normal(n))
    cv, phi = float(rng.uniform(0.01, 0.20)), float(rng.uniform(0.0, 0.8))
    return n, sigma, seconds, levels, cv, phi


def draw_models(seed: int) -> tuple[Array, Array]:
    """An array of 8 to 128 drives of two models: a quarter to three quarters of them (at least 3 of each) a
    model at 60-80% of the other's speed, each model's drives lognormal about its own level; the twin has one or
    two drives slow to 5-95% of their own model's median. Correct: the run knows its drives' models, each model
    is judged against its own kind and the slower model is no fault (`find_outliers_by_class`)."""
    rng = np.random.default_rng([seed, 4])
    n, sigma, seconds, levels, cv, phi = _family_base(rng)
    count = min(max(3, round(float(rng.uniform(0.25, 0.75)) * n)), n - 3)
    slower = set(int(d) for d in rng.choice(n, size=count, replace=False))
    speed = float(rng.uniform(0.6, 0.8))
    model = tuple(int(i in slower) for i in range(n))
    levels[list(slower)] *= speed
    clean = Array(seed, sigma, cv, phi, seconds, levels, {}, model=model, shared=speed)
    drives = rng.choice(n, size=int(rng.integers(1, 3)), replace=False)
    slow = {int(d): float(rng.uniform(0.05, 0.95)) for d in drives}
    twin = levels.copy()
    for d, ratio in slow.items():
        kind = [i for i in range(n) if model[i] == model[d] and i not in slow]
        twin[d] = ratio * float(np.median(levels[kind]))
    return clean, replace(clean, levels=twin, slow=slow)


def draw_group(seed: int) -> tuple[Array, Array]:
    """An array of 8 to 128 drives with a group behind one HBA (2 drives up to half the array), whose seconds
    share 30-90% of their noise; its twin has the whole group at one level, 5-95% of the other drives' median
    (a slow HBA shares its bandwidth out evenly). The clean array keeps the group and its shared noise."""
    rng = np.random.default_rng([seed, 2])
    n, sigma, seconds, levels, cv, phi = _family_base(rng)
    size = min(max(2, round(float(rng.uniform(0.02, 0.50)) * n)), n // 2)
    group = tuple(sorted(int(d) for d in rng.choice(n, size=size, replace=False)))
    shared, ratio = float(rng.uniform(0.3, 0.9)), float(rng.uniform(0.05, 0.95))
    healthy = float(np.median([v for i, v in enumerate(levels) if i not in group]))
    twin = levels.copy()
    twin[list(group)] = ratio * healthy
    clean = Array(seed, sigma, cv, phi, seconds, levels, {}, group=group, shared=shared)
    return clean, replace(clean, levels=twin, slow=dict.fromkeys(group, ratio))


def family_bin(family: str, array: Array) -> str:
    """The bin of the family's own dimension: the array's size, the slower model's speed, or the group's share of
    its drives."""
    if family in ("larger arrays", "above 128 drives"):
        return next(f"{low}-{high} drives" for low, high in LARGE_BINS if array.n <= high)
    if family == "two drive models":  # `shared` holds the slower model's speed there
        return next(f"slower model at {lo:.0%}-{hi:.0%}" for lo, hi in MODEL_BINS if array.shared <= hi)
    share = len(array.group) / array.n
    return next(f"group of {low:.0%}-{high:.0%} of the drives" for low, high in GROUP_SHARE_BINS if share <= high)


DRAWS = {
    "larger arrays": draw_large,
    "above 128 drives": draw_huge,
    "HBA groups": draw_group,
    "HBA groups, fresh seeds": draw_group,
    "two drive models": draw_models,
}


def family_corpus(family: str, seeds: list[int]) -> list[Case]:
    drawn = DRAWS[family]
    cases = []
    for seed in seeds:
        clean, twin = drawn(seed)
        cases.append(Case(clean, twin, observe(clean), observe(twin)))
    return cases


def score_family(family: str, cases: list[Case], params: OutlierParams, reference: tuple[float, float]) -> dict:
    """By sigma x the family's bin: clean arrays' false alarms and recall per planted drive (method, oracle bound,
    known-sigma ceiling), at <= 60% and by slowdown; for HBA groups also `GroupTally`'s figures; for two drive
    models also what the call says without the models (`_without_models`). Of the planted drives the method
    missed, how many its report had said it could not name (its floor, or for a group its group floor, below)."""
    alarms, recall, headline, groups, said = Tally(), Tally(), Tally(), GroupTally(), [0, 0]
    for case in cases:
        where = f"sigma {sigma_bin(case.clean.sigma)}, {family_bin(family, case.clean)}"
        named = case.seen_clean.judge(params).named
        bound, ceiling = named_at(case.seen_clean.bound, reference[0]), named_at(case.seen_clean.ceiling, reference[1])
        alarms.add(where, bool(named), bool(bound), bool(ceiling))
        verdict = case.seen_twin.judge(params)
        bound, ceiling = named_at(case.seen_twin.bound, reference[0]), named_at(case.seen_twin.ceiling, reference[1])
        for d, ratio in case.twin.slow.items():
            hit = (d in verdict.named, d in bound, d in ceiling)
            recall.add(f"{where}, at {slow_bin(ratio)}", *hit)
            if ratio <= 0.6:
                headline.add(where, *hit)
            if not hit[0]:
                _count_said(said, verdict.group_floor if case.twin.group else verdict.floor, ratio)
        if case.twin.group and max(case.twin.slow.values()) <= 0.6:
            groups.add(case.twin, where, (verdict.named, bound, ceiling))
    out = {"arrays": len(cases), "clean_alarm_share": round(sum(r[0] for r in alarms.values()) / len(cases), 4),
           "false_alarms": alarms.table(), "recall_at_most_60pct": headline.table(), "recall": recall.table(),
           "missed_drives_the_report_said_it_could_not_name": {"said": said[0], "of": said[1]}}  # fmt: skip
    if family == "two drive models":
        out["without_models"] = _without_models(cases, params)
    return {**out, **groups.table()} if groups.whole else out


def _count_said(said: list[int], floor: float | None, ratio: float) -> None:
    """A missed drive counts in `said` [said, of], said where the report's floor was below its ratio."""
    said[0] += floor is not None and floor < ratio
    said[1] += 1


def _without_models(cases: list[Case], params: OutlierParams) -> dict:
    """Two-model arrays judged as one array (a run that does not know its drives' models, e.g. imported): by the
    slower model's speed, clean arrays with any drive named, and with the whole slower model named as a group
    (what the finding then says: a slow group, or a slower model the run cannot tell from one)."""
    named, whole = Tally(), Tally()
    for case in cases:
        where = family_bin("two drive models", case.clean)
        verdict = case.seen_clean.judge(params, models=False)
        slower = {i for i, m in enumerate(case.clean.model) if m}
        named.add(where, bool(verdict.named), False, False)
        whole.add(where, slower <= verdict.group, False, False)
    return {
        "clean_arrays_with_a_drive_named": {k: v["method"] for k, v in named.table().items()},
        "clean_arrays_with_the_slower_model_named_as_a_group": {k: v["method"] for k, v in whole.table().items()},
    }


# How many drives a slow group holds, by what the leave-out test sets aside: two drives it sets aside whole.
GROUP_COUNT_BINS = ((2, 2), (3, 4), (5, 8), (9, 64))


@dataclass
class GroupTally:
    """Slow groups at or below 60%: named whole or in part; recall per drive by how many drives the group holds;
    and where the median of all drives sat over the other drives' median (how far the group drags the peers)."""

    whole: Tally = field(default_factory=Tally)
    by_count: Tally = field(default_factory=Tally)
    medians: dict[str, list[float]] = field(default_factory=dict)

    def add(self, twin: Array, where: str, found: tuple[set[int], set[int], set[int]]) -> None:
        slow = set(twin.slow)
        self.whole.add(f"{where}: whole group named", *(slow <= named for named in found))
        self.whole.add(f"{where}: any of it named", *(bool(slow & named) for named in found))
        low, high = next((low, high) for low, high in GROUP_COUNT_BINS if len(slow) <= high)
        count = f"{low} drives" if low == high else f"{low}-{high} drives"
        for d in slow:
            self.by_count.add(f"{where.split(', ')[0]}, a group of {count}", *(d in named for named in found))
        self.medians.setdefault(where, []).append(_median_shift(twin))

    def table(self) -> dict:
        return {
            "groups_at_most_60pct": self.whole.table(),
            "recall_at_most_60pct_by_group_drives": self.by_count.table(),
            "median_of_all_over_the_others": {
                k: round(float(np.median(v)), 4) for k, v in sorted(self.medians.items())
            },
        }


def _median_shift(array: Array) -> float:
    """The median of all the array's drive levels over the median of those not slowed: how far a slow group
    drags the peers' median towards itself (1.0: not at all)."""
    others = [v for i, v in enumerate(array.levels) if i not in array.slow]
    return float(np.median(array.levels) / np.median(others))


def families(count: int, params: OutlierParams, reference: tuple[float, float], only: list[str] | None = None) -> dict:
    """Each family's figures (or those of `only`) on `count` arrays (and twins) of its own seeds."""
    out = {}
    for family in only or FAMILIES:
        first, size = FAMILY_SEEDS[family], max(4, round(count * FAMILY_SCALE.get(family, 1.0)))
        figures = score_family(family, family_corpus(family, list(range(first, first + size))), params, reference)
        out[family] = {"seeds": f"{first}..{first + size - 1}", **figures}
    return out


def print_family(family: str, figures: dict) -> None:
    print(f"{family}, seeds {figures['seeds']} (method, oracle bound, known-sigma ceiling)")
    parts = ("false_alarms", "recall_at_most_60pct", "groups_at_most_60pct", "recall_at_most_60pct_by_group_drives")
    for part in (*parts, "recall"):
        for key, row in figures.get(part, {}).items():
            label = f"{part.replace('_', ' ')}: {key}"
            print(f"  {label:92s} {row['method']:6.1%} {row['bound']:6.1%} {row['ceiling']:6.1%}  of {row['of']}")
    for key, value in figures.get("median_of_all_over_the_others", {}).items():
        print(f"  median of all drives over the others' (slow groups at <= 60%): {key}: {value:.3f}")
    for part, rows in figures.get("without_models", {}).items():
        for key, value in rows.items():
            print(f"  without the models, {part.replace('_', ' ')}: {key}: {value:.1%}")
    said = figures["missed_drives_the_report_said_it_could_not_name"]
    print(f"  missed drives whose report said it could not name them: {said['said']} of {said['of']}")


def print_figures(figures: dict) -> None:
    for part in ("false_alarms", "recall_at_most_60pct", "recall"):
        print(f"{part} (method, oracle bound, known-sigma ceiling)")
        for key, row in figures[part].items():
            print(f"  {key:40s} {row['method']:6.1%} {row['bound']:6.1%} {row['ceiling']:6.1%}  of {row['of']}")
    said = figures["missed_drives_the_report_said_it_could_not_name"]
    print(f"missed drives whose report said it could not name them: {said['said']} of {said['of']}")


def chosen_of(params: OutlierParams) -> dict:
    return {"t alarm": params.loo_alarm, "t alarm under 8 drives": params.small_loo_alarm,
            "set aside share": round(params.loo_share, 4), "envelope alarm": params.envelope_alarm,
            "envelope under": params.envelope_devices, "group alarm": params.group_alarm,
            "array alarm": params.array_alarm}  # fmt: skip


def _family_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--family-cases",
        type=int,
        help="arrays (and twins) of each family beyond (default: a twentieth of the held-out)",
    )
    parser.add_argument(
        "--families-only", action="store_true", help="judge the families again into the stored result (--out)"
    )
    parser.add_argument(
        "--family",
        action="append",
        choices=FAMILIES,
        help="only this family (repeatable; with --families-only the others are kept)",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes drawing the base space's arrays")
    parser.add_argument(
        "--shipped",
        action="store_true",
        help="judge the shipped parameters without choosing (the tuning seeds only match the reference alarms)",
    )


def families_only(out: Path, count: int, only: list[str] | None = None) -> int:
    """`--families-only`: the families (or those of `only`, the others kept) judged again into the stored result
    `out`, with the parameters its run chose (they must be the shipped ones now) at its matched reference alarms;
    the base space's figures, which the families do not change and which take most of an hour on a busy host, are
    kept as they were measured."""
    stored = json.loads(out.read_text())
    shipped = OutlierParams()
    if stored.get("chosen") != chosen_of(shipped):
        print(f"{out}: its run chose other parameters than the shipped ones; run the whole bench", file=sys.stderr)
        return 2
    started = time.perf_counter()
    reference = (stored["reference_alarms"]["bound"], stored["reference_alarms"]["ceiling"])
    kept = stored["beyond"]["families"] if only else {}
    stored["beyond"] = {
        "host": host(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "references": f"the shipped parameters at the reference alarms of the run of {stored['when']}",
        "arrays_per_family": count,
        "families": {**kept, **families(count, shipped, reference, only)},
        "judged again": only or list(FAMILIES),
        "seconds": round(time.perf_counter() - started, 1),
    }
    out.write_text(json.dumps(stored, indent=2) + "\n")
    for family, part in stored["beyond"]["families"].items():
        print_family(family, part)
    print(f"wrote {out}; took {stored['beyond']['seconds']} s")
    return 0


# A smoke run's nulls (the group search's cuts and the leave-out alarm, `analysis.outlier_groups` and
# `analysis.outlier_null`): a twentieth of the arrays the product simulates per size. Every size an array of the
# smoke presents is still simulated, through the same code; only the tails are coarser. At the product's sizes
# these simulations took 34 of the smoke's 40 CPU s (some 70 sizes of 8-512 drives: the families draw their own).
SMOKE_NULL_SHARE = 0.05


def smoke_nulls(smoke: bool = True) -> None:
    """In a smoke run (`smoke`), simulate the nulls at `SMOKE_NULL_SHARE` of their size in this process (a smoke
    run checks that a bench runs: its figures mean nothing); never for a measurement."""
    if not smoke:
        return
    outlier_groups.CALIBRATION_DRAWS = round(outlier_groups.CALIBRATION_DRAWS * SMOKE_NULL_SHARE)
    outlier_groups.SCALE_DRAWS = round(outlier_groups.SCALE_DRAWS * SMOKE_NULL_SHARE)
    outlier_null.DRAWS = round(outlier_null.DRAWS * SMOKE_NULL_SHARE)


def main() -> int:
    split = held_out.corpus_args(__doc__.splitlines()[0], 6000, "outlier_envelope.json", FRESH_SEED, _family_flag)
    smoke_nulls(split.args.smoke)
    if split.args.families_only and not split.args.smoke:
        return families_only(split.args.out, split.args.family_cases or 1500, split.args.family)
    started = time.perf_counter()
    workers = split.args.workers
    tuning = corpus(split.seeds, workers)
    count = 4 if split.args.smoke else split.args.family_cases or max(4, len(split.fresh) // 20)
    shipped_only = split.args.shipped
    groups = (
        [] if shipped_only else family_corpus("HBA groups", list(range(GROUP_TUNING_SEED, GROUP_TUNING_SEED + count)))
    )
    params, grid = (OutlierParams(), {}) if shipped_only else choose(tuning, groups, split.args.smoke)
    shipped = OutlierParams()
    # the held-out seeds judge what the tuning seeds chose (the exit status says whether the code ships it)
    reference = (matched_alarm(tuning, params, "bound"), matched_alarm(tuning, params, "ceiling"))
    held = score(corpus(split.fresh, workers), params, reference)
    beyond = {"arrays_per_family": count, "families": families(count, params, reference, split.args.family)}
    figures = {
        "host": host(),
        "tuning_seeds": f"{split.seeds[0]}..{split.seeds[-1]}",
        "group_tuning_seeds": f"{GROUP_TUNING_SEED}..{GROUP_TUNING_SEED + count - 1}",
        "held_out_seeds": f"{split.fresh[0]}..{split.fresh[-1]}",
        "alarm": ALARM,
        "grid": grid,
        "chosen": chosen_of(params),
        "shipped": chosen_of(shipped),
        "envelope_sigma": shipped.envelope_sigma,
        "reference_alarms": {"bound": reference[0], "ceiling": reference[1]},
        "held_out": held,
        "beyond": beyond,
        "seconds": round(time.perf_counter() - started, 1),
    }
    write_result(split.args.out, "outlier_envelope", figures, smoke=split.args.smoke)
    print(f"chosen on {len(split.seeds)} tuning arrays: {figures['chosen']} (shipped {figures['shipped']})")
    for key, row in grid.items():
        print(f"  {key}: {row}")
    print(f"held out: {len(split.fresh)} arrays and their twins")
    print_figures(held)
    for family, part in beyond["families"].items():
        print_family(family, part)
    print(f"took {figures['seconds']} s")
    return 0 if params == shipped or split.args.smoke else 1  # a smoke run checks the bench runs, not the choice


if __name__ == "__main__":
    sys.exit(main())
