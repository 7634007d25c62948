"""The second split's pieces (bench/stopping_second_split.py): its interval is Wilson's, and its deal of drives
differs from the first split's and from that split's swap, with no drive on both sides."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import stopping_second_split as ss  # noqa: E402
from stopping_envelope import drive, split  # noqa: E402
from stopping_replay import Trace  # noqa: E402


def test_the_interval_is_wilsons_at_90_percent() -> None:
    low, high = ss.wilson(102, 107) or (0.0, 0.0)
    assert (round(low, 3), round(high, 3)) == (0.907, 0.977)  # the brief's 90.7-97.7% for the held-out writes
    assert ss.wilson(0, 0) is None
    low, high = ss.wilson(50, 50) or (0.0, 0.0)
    assert high == 1.0 and 0.94 < low < 0.96


def test_the_second_deal_differs_from_the_first_and_its_swap() -> None:
    folders = ["INTEL_A", "KINGSTON", "SAMSUNG860", "PM883", "CRUCIAL_MX200", "USB", "HIGHPOINT", "RAID5MDADM"]
    found = [
        Trace(f"{name}/{i}.json", "SSD", "randwrite QD>4", True, [1000.0] * (300 if k < 3 else 60))
        for k, name in enumerate(folders)
        for i in range(k + 2)
    ]
    salt, halves = ss.second_salt(found)
    first = split(found)
    assert salt.startswith(ss.SALT) and halves != first
    assert halves != {d: "choose" if h == "held-out" else "held-out" for d, h in first.items()}
    assert set(halves) == {drive(t.path) for t in found}  # every drive dealt, each to one side only
