"""The dip bench's bounds (issue 40's seventh look, docs/dips.md). Each recall cell says what share of its dips lies
beyond every window of the run's clean twin, the same noise without the dip: a dip no deeper than some window of
its twin is called only by a test that calls that window in a clean run too. And the oracle's matched filter is
read twice: at the Gaussian cut, and at a cut from clean runs of the case's own noise model (t3 shocks where it
has them), the bound as issue 40 defines it; under t3 the Gaussian cut over-reads what the data allow."""

from __future__ import annotations

import sys
from pathlib import Path
from statistics import NormalDist

import numpy as np

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import dips_envelope as de  # noqa: E402


def _row(seed: int, found: bool, beyond: bool) -> dict:
    case = de.Case(seed, 120, (de.Planted(50.0, 2.0, "ramp", 0.4),), 0.05, 0.0, "gaussian")
    return {
        "case": case,
        "dip": case.dips[0],
        "first": True,
        "depth": 0.4,
        "sd": 0.05,
        "found": found,
        "held_s": 2.0,
        "onset_error": 0.0 if found else None,
        "length_error": 0.0 if found else None,
        "shape_onset_error": 0.0 if found else None,
        "false": 0,
        "false_patterns": 0,
        "patterns": [],
        "oracle": 9.0,
        "own_noise_p": 0.5 if beyond else 0.0,
        "beyond_twin": beyond,
    }


def test_each_cell_reports_the_share_of_its_dips_beyond_the_clean_twin():
    rows = [_row(1, True, True), _row(2, False, True), _row(3, False, False), _row(4, True, False)]
    figures = de.summarise(rows)
    assert figures["eligible"]["beyond_twin"] == 0.5
    assert figures["eligible_by_shape"]["ramp"]["beyond_twin"] == 0.5
    assert figures["eligible_by_shape_length_and_depth"]["ramp 2-2 depth 0.3-0.6"]["beyond_twin"] == 0.5
    # the recall among those beyond the twin stands beside it
    assert figures["eligible_beyond_twin_by_shape"]["ramp"]["recall"] == 0.5

    assert figures["eligible"]["oracle_own_noise"] == 0.5 and figures["eligible"]["oracle"] == 1.0


def _case(tails: str) -> tuple:
    case = de.Case(11, 300, (de.Planted(100.0, 2.0, "rectangle", 0.4),), 0.1, 0.3, tails)
    return case, de.losses(case)[0]


def test_the_own_noise_cut_holds_its_rate_on_gaussian_runs():
    case, loss = _case("gaussian")
    null = de.null_runs(case)
    bonferroni = NormalDist().inv_cdf(1.0 - 0.05 / case.samples)  # the Gaussian oracle's cut at 5% a run
    assert 0.01 <= de.own_noise_p(case, bonferroni, loss, null) <= 0.1
    assert de.own_noise_p(case, 0.0, loss, null) == 1.0 and de.own_noise_p(case, 8.0, loss, null) == 0.0


def test_under_t3_shocks_the_gaussian_cut_is_no_bound():
    """The same filter, the same z: clean t3 runs reach it far more often than the Gaussian cut says."""
    bonferroni = NormalDist().inv_cdf(1.0 - 0.01 / 300)
    gaussian, loss = _case("gaussian")
    t3, _ = _case("t3")
    assert de.own_noise_p(t3, bonferroni, loss, de.null_runs(t3)) > 0.1
    assert de.own_noise_p(t3, bonferroni, loss, de.null_runs(t3)) > 5 * de.own_noise_p(
        gaussian, bonferroni, loss, de.null_runs(gaussian)
    )
    # the null runs are the case's own: its length, and seconds never below no work
    null = de.null_runs(t3)
    assert null.shape == (de.SIMS, 300) and null.min() >= -1.0 and np.isclose(np.std(null), 0.1, rtol=0.3)
