"""The adaptive presets' parameters are the ones docs/plans.md's preset table states: qd-sweep --adaptive
quadruples one job's depth from 1 to 256, stops when a doubling gains under 5%, takes the first depth at 90%
of the plateau and bisects to within 1.5x; ssd-steady judges the last five rounds (range within 20% of their
mean, the fitted line's excursion within 10%) and gives up after 25; latency-curve runs at 10% ... 100% of its
probe's IOPS. The words are read from the page, so the page and the plans cannot part."""

from __future__ import annotations

from pathlib import Path

from iolab.plan.presets import latency_curve, qd_sweep, ssd_steady

DOC = (Path(__file__).resolve().parents[2] / "docs" / "plans.md").read_text()
WORDS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}


def _row(name: str) -> str:
    (row,) = [line for line in DOC.splitlines() if line.startswith(f"| `{name}` |")]
    return row


def test_qd_sweep_adaptive_searches_as_documented():
    plan = qd_sweep(adaptive=True)
    row = _row("qd-sweep")
    assert len(plan.qd_searches) == 2
    for search in plan.qd_searches:
        depths, depth = [], search.start
        while depth <= search.max_qd:
            depths.append(depth)
            depth *= 4
        assert f"one job's depth quadruples ({', '.join(map(str, depths))})" in row
        assert f"(less than {search.plateau_gain:.0%} per doubling;" in row
        assert f"the first depth reaching {search.fraction:.0%} of the plateau" in row
        assert f"bisected to within {1 + search.resolution:g}x" in row
        assert f"numjobs doubles (up to {search.max_jobs})" in row


def test_ssd_steady_judges_rounds_as_documented():
    steady = ssd_steady().steady_rounds
    assert steady is not None
    assert (
        f"until the last {WORDS[steady.window]} rounds are steady: range within {steady.range_frac:.0%} of their "
        f"mean and the fitted line's excursion within {steady.slope_frac:.0%}; gives up after {steady.max_rounds} "
        "rounds" in _row("ssd-steady")
    )


def test_latency_curve_rates_are_the_documented_tenths():
    curve = latency_curve().latency_curve
    assert curve is not None
    fractions = [f"{f:.0%}" for f in curve.fractions]
    assert fractions == [f"{10 * i}%" for i in range(1, 11)]
    assert f"runs limited to {fractions[0]}, {fractions[1]}, ... {fractions[-1]} of its IOPS" in _row("latency-curve")
