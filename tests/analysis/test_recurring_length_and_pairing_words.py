"""Two bounds and a line the fast tier did not reach (fresh seed 84263's survivors): drops are alike only when
their lengths are within 3x of one another (a 2 s drop and a 7 s one are not: `LENGTH_RATIO` 3 -> 4
survived), and a compare whose workloads were paired by access pattern says what B does differently in one
line per pair (`+` -> `-` between its two strings, a TypeError on any such compare, survived)."""

from __future__ import annotations

from types import SimpleNamespace

from iolab.analysis.dips import Dip
from iolab.analysis.recurring import _like
from iolab.report.wording import paired_lines


def _dip(duration: float) -> Dip:
    return Dip("transient", 10.0, duration, 0.7, 0.6, 1.0, 0.3, 0.0, 1.0, 1.0)


def test_drops_are_alike_within_three_times_each_others_length_and_not_beyond():
    assert _like(_dip(5.9), _dip(2.0)) and _like(_dip(2.0), _dip(5.9))
    assert not _like(_dip(7.0), _dip(2.0)) and not _like(_dip(2.0), _dip(7.0))


def test_a_pairing_by_access_pattern_says_what_b_does_differently():
    def side(name: str, target: str) -> SimpleNamespace:
        return SimpleNamespace(name=name, target=target, pattern="randread 4k")

    paired = SimpleNamespace(a=side("rr-qd32", "/dev/a"), b=side("rr-qd64", "/dev/a"), differs=["iodepth 32 -> 64"])
    same = SimpleNamespace(a=side("x", "/dev/a"), b=side("x", "/dev/a"), differs=[])
    assert paired_lines(SimpleNamespace(rows=[paired, same])) == [  # type: ignore[arg-type]
        "rr-qd32 on /dev/a vs rr-qd64: paired as randread 4k; B differs in iodepth 32 -> 64"
    ]
