"""TEL-RECURRING: drops that recur inside a point, reported once as a pattern (issue 40: a Kingston SSD's
garbage collection every 515 s over 3.3 h, a hard disk's stalls every 15-90 s; seed 000's engineer came for a
drive busy with garbage collection). Each run is drawn from its seed: planted drops must be reported with
their count, period, depth, length and first onset; clean runs and a run's own sawtooth must stay quiet."""

from __future__ import annotations

import numpy as np
import pytest

from iolab.analysis import recurring
from iolab.doctor.derived import PointSeries
from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context
from iolab.models import Severity

RULES = [r for r in all_rules() if r.id in ("TEL-DIP", "TEL-STEP", "TEL-RECURRING")]


def _quiet(seed: int, seconds: int, cov: float = 0.04, phi: float = 0.3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    shocks = rng.standard_normal(seconds) * cov * np.sqrt(1 - phi * phi)
    e = np.empty(seconds)
    e[0] = shocks[0]
    for i in range(1, seconds):
        e[i] = phi * e[i - 1] + shocks[i]
    return 4e7 * (1 + e)


def _findings(values: np.ndarray, rule_id: str = "TEL-RECURRING"):
    full = [values[0] * 0.4, *values.tolist(), values[-1] * 0.3]
    ctx = Context(series=[PointSeries("p", "all jobs", [float(t) for t in range(len(full))], full)])
    return [
        f for f in evaluate(ctx, RULES) if f.rule_id == rule_id and f.severity in (Severity.WARNING, Severity.CRITICAL)
    ]


@pytest.mark.parametrize("seed", range(3))
def test_garbage_collection_every_few_minutes_is_one_pattern(seed):
    """2 s drops to 25-45% of the level every 200 s through a 1,500 s run: one finding, seven drops, their
    period, depth and first onset; each drop is a dip too."""
    x = _quiet(seed, 1500)
    rng = np.random.default_rng([seed, 1])
    for at in range(100, 1500, 200):
        x[at : at + 2] *= rng.uniform(0.25, 0.45, 2)
    [found] = _findings(x)
    assert found.evidence["drops"] == "7"
    assert found.evidence["period"] == "200 s"
    assert found.evidence["first onset"] == "100 s"
    assert found.evidence["typical length"] == "2 s"
    assert "about every 200 s" in found.title
    assert 55 <= int(str(found.evidence["typical depth"]).rstrip("%")) <= 80
    assert len(_findings(x, "TEL-DIP")) == 7


def test_stalls_at_scattered_times_are_a_pattern_without_a_period():
    """A hard disk's stalls every 14-92 s (fio-plot's traces): a pattern at irregular intervals, each stall a
    dip too (the run's own tail, fitted with them in, hid them all)."""
    x = _quiet(5, 400, cov=0.08)
    for at in (26, 57, 118, 135, 149, 241, 330):
        x[at : at + 2] *= 0.3
    [found] = _findings(x)
    assert found.evidence["period"] == "irregular"
    assert "at irregular intervals (14-92 s apart)" in found.title
    assert found.evidence["drops"] == "7"
    assert len(_findings(x, "TEL-DIP")) == 7


def test_a_missed_drop_leaves_the_period():
    x = _quiet(6, 2000)
    for at in (100, 400, 700, 1300, 1600, 1900):
        x[at : at + 3] *= 0.35
    [found] = _findings(x)
    assert found.evidence["period"] == "300 s"
    assert found.evidence["drops"] == "6"


@pytest.mark.parametrize("seed", range(4))
def test_clean_runs_and_their_own_sawtooth_stay_quiet(seed):
    """AR(1) noise of COV 3-12% over 1,200 s, and the same with a sawtooth of its own (a rate sagging 20% over
    each 60 s and jumping back: the shape bench/dips_envelope.py's 'seasonal' clean twins keep)."""
    rng = np.random.default_rng([seed, 2])
    x = _quiet(seed, 1200, cov=float(rng.uniform(0.03, 0.12)), phi=float(rng.uniform(0.0, 0.7)))
    assert _findings(x) == []
    sawtooth = 1 - 0.2 * (np.arange(1200) % 60) / 60
    assert _findings(x * sawtooth) == []


def test_a_run_too_short_for_its_own_tail_keeps_the_cut_its_drops_passed():
    """120 s with three stalls: too few windows outside them to fit the run's tail, so the pattern stands on the
    Gaussian cut each drop passed, and so does each dip (the run's tail of each dip, fitted with the others
    in, hid the recurring scenario's long drops: 12 s every 55 s were found 0 of 30)."""
    x = _quiet(3, 120)
    for at in (30, 60, 90):
        x[at : at + 2] *= 0.3
    [found] = _findings(x)
    assert found.evidence["chance alike by noise"] == "not read (too short)"
    assert "too short to show its own tail" in str(found.evidence["what it could see"])
    assert len(_findings(x, "TEL-DIP")) == 3


def test_long_drops_too_many_for_the_run_s_tail_are_each_a_dip():
    """Drops of 12 s every 55 s over 900 s: 16 of them leave about 59 windows of 12 s outside, too few to fit
    a tail; each is a dip and the pattern is named."""
    x = _quiet(4, 900)
    for at in range(8, 880, 55):
        x[at : at + 12] *= 0.4
    [found] = _findings(x)
    assert found.evidence["drops"] == "16" and found.evidence["period"] == "55 s"
    assert len(_findings(x, "TEL-DIP")) == 16


def _t3(seed: int, seconds: int = 2400) -> np.ndarray:
    """A clean run with Student t3 shocks (COV 4-14%, AR(1) phi 0.2-0.65), never below 2% of its level."""
    rng = np.random.default_rng([seed, 9])
    return _t3_run(rng, seconds, float(rng.uniform(0.04, 0.14)), float(rng.uniform(0.2, 0.65)))


def _t3_run(rng: np.random.Generator, seconds: int, cov: float, phi: float) -> np.ndarray:
    """`seconds` at 5e8 B/s times (1 + AR(1) noise of sd `cov` with Student t3 shocks), never below 2%."""
    shocks = rng.standard_t(3, seconds) / np.sqrt(3) * cov * np.sqrt(1 - phi * phi)
    e = np.empty(seconds)
    e[0] = shocks[0]
    for i in range(1, seconds):
        e[i] = phi * e[i - 1] + shocks[i]
    return 5e8 * np.clip(1 + e, 0.02, None)


@pytest.mark.parametrize("seed", range(6))
def test_heavy_tailed_shocks_alike_at_scattered_times_are_no_pattern(seed):
    """t3 shocks beyond the Gaussian cut come in groups alike in depth and length, beyond the Poisson count of
    the run's windows outside them (19 of 40 such runs of 2,400 s, 3 of these 6): each drop must also stand
    out of those windows alone (1 of 40)."""
    assert _findings(_t3(seed)) == []


def _weak_pieces_among_strong_drops(seed: int) -> tuple[int, int, int]:
    """(strong drops planted, TEL-DIP findings, TEL-RECURRING findings) on a 3,000 s run at COV 6% with t3 shocks
    (AR(1) 0.4): a 45% drop of 6 s every 40 s, every eighth a 2 s piece 30% deep instead (alike in depth and length
    within the pattern's ratios, too short to stand out of t3 noise alone)."""
    x = _t3_run(np.random.default_rng([seed, 64]), 3000, 0.06, 0.4)
    strong = 0
    for k, start in enumerate(range(20, 2980, 40)):
        if k % 8 == 7:
            x[start : start + 2] *= 0.7
        else:
            x[start : start + 6] *= 0.55
            strong += 1
    return strong, len(_findings(x, "TEL-DIP")), len(_findings(x))


def test_weak_pieces_among_many_drops_do_not_cost_the_pattern(monkeypatch):
    """The pattern keeps the drops that stand out alone (rec63): asking it of every alike drop, the more drops a run
    held the likelier a weak piece failed it, and then no pattern, the drops stayed in the run's own tail and every
    dip was declined (the recurring scenario: a 2-hour run's 218 drops, none found). Seeds 1-3: the pattern is named
    and every strong drop found as a dip; with every drop asked to stand alone (STAND_SHARE 1.0, the rule before)
    seeds 2 and 3 lose the pattern and all but one dip."""
    for seed in (1, 2, 3):
        strong, dips, patterns = _weak_pieces_among_strong_drops(seed)
        assert patterns == 1 and dips >= strong, (seed, strong, dips, patterns)
    monkeypatch.setattr(recurring, "STAND_SHARE", 1.0)
    lost = [seed for seed in (1, 2, 3) if _weak_pieces_among_strong_drops(seed)[2] == 0]
    assert len(lost) >= 2, lost
