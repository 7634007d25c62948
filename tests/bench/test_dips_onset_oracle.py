"""The dip bench's onset oracle (issue 40: onset within 1 s of the shape's start, beside what any method could do):
`oracle_onset` dates a planted dip by the maximum-likelihood start of a hinge, knowing the level, the noise's
AR(1) phi and that the shape falls straight from the level. Noise-free it must find every shape's first second
exactly (a hinge whose fall or whitening were wrong by a second fails here); in AR(1) noise a steep fall is
still dated within a second; and the onset table sets iolab's figure beside the oracle's by shape and slope."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import dips_envelope as de  # noqa: E402


def _planted(shape: str, length: int, cov: float, phi: float, seed: int = 5) -> tuple:
    case = de.Case(seed, 400, (de.Planted(120.0, float(length), shape, 0.6),), cov, phi, "gaussian")
    values, (loss,) = de.series(case, True)
    return case, values, loss


@pytest.mark.parametrize("shape", ["rectangle", "trapezoid", "V", "ramp", "noisy bottom"])
@pytest.mark.parametrize("length", [2, 9, 150])
@pytest.mark.parametrize("phi", [0.0, 0.6])
def test_noise_free_every_shape_is_dated_at_its_first_second(shape, length, phi):
    case, values, loss = _planted(shape, length, 1e-9, phi)
    for known in (False, True):
        assert de.oracle_onset(case, values, loss, shape, known) == 120.0


@pytest.mark.parametrize("seed", range(6))
def test_a_steep_fall_in_ar1_noise_is_dated_within_a_second(seed):
    # a trapezoid 60% deep falling over 10 s at COV 3%: 2 sd a second
    case, values, loss = _planted("trapezoid", 30, 0.03, 0.6, seed)
    assert abs(de.oracle_onset(case, values, loss, "trapezoid") - 120.0) <= 1.0


def test_the_onset_table_sets_iolab_beside_the_oracle_by_shape_and_slope():
    rows = []
    for k, (error, oracle) in enumerate(((0.0, 0.0), (3.0, 0.0), (5.0, 4.0))):
        case = de.Case(k, 600, (de.Planted(100.0, 120.0, "V", 0.5),), 0.05, 0.3, "t3")
        rows.append(
            {
                "case": case,
                "dip": case.dips[0],
                "found": True,
                "depth": 0.5,
                "sd": 0.05,
                "shape_onset_error": error,
                "oracle_onset_error": oracle,
                "oracle_bottom_onset_error": oracle,
            }
        )
    table = de.onsets(rows)
    cell = table["by_shape_and_slope"]["V 0.1-0.2"]  # 50% over 60 s at an sd of 5%: 0.17 sd a second
    assert cell["found"] == 3 and cell["iolab"] == round(1 / 3, 4) and cell["oracle"] == round(2 / 3, 4)
    assert table["by_shape_and_length_s"]["V 61-300"]["oracle_known_bottom"] == round(2 / 3, 4)
