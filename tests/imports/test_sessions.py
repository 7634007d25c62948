"""Imported files grouped into runs by when they ran (`imports.sessions`), generated: a folder of a
schedule's outputs is as many runs as invocations, a sweep run back to back is one."""

from __future__ import annotations

import random

import pytest

from iolab.imports.sessions import SESSION_GAP, Sessions, Span


def _sittings(rng: random.Random) -> list[list[Span]]:
    """Sittings apart by more than the gap, each of back-to-back files (gaps under it)."""
    start, made = 1.7e9, []
    for _ in range(rng.randint(1, 12)):
        spans = []
        for _ in range(rng.randint(1, 6)):
            length = rng.uniform(0.5, 600)
            spans.append(Span(start, start + length))
            start += length + rng.uniform(0, SESSION_GAP * 0.9)
        made.append(spans)
        start += SESSION_GAP * rng.uniform(1.1, 300)
    return made


@pytest.mark.parametrize("seed", range(200))
def test_files_of_one_sitting_share_a_run_and_no_two_sittings_do(seed):
    rng = random.Random(seed)
    made = _sittings(rng)
    files = [(i, span) for i, spans in enumerate(made) for span in spans]
    rng.shuffle(files)  # a directory's order is not the order they ran in
    sessions = Sessions()
    got: dict[int, set[int | None]] = {}
    for truth, span in files:
        got.setdefault(truth, set()).add(sessions.sitting("fio", span))
    # in any order two sittings never share a run (out of order, one sitting may come out as two: its
    # middle file, which joins them, arriving last)
    assert all(not (a & b) for i, a in got.items() for j, b in got.items() if i < j), got


@pytest.mark.parametrize("seed", range(200))
def test_in_time_order_every_sitting_is_one_run(seed):
    rng = random.Random(seed)
    made = _sittings(rng)
    sessions = Sessions()
    got = [{sessions.sitting("fio", span) for span in spans} for spans in made]
    assert all(len(numbers) == 1 for numbers in got)
    assert len(set().union(*got)) == len(made)


def test_hourly_outputs_are_one_run_each_and_untimed_files_share_one():
    sessions = Sessions()
    hourly = [sessions.sitting("fio", Span(t * 3600.0, t * 3600.0 + 1)) for t in range(24)]
    assert len(set(hourly)) == 24
    assert sessions.sitting("fio", None) is None and sessions.sitting("fio", None) is None


def test_tools_do_not_share_a_sitting():
    sessions = Sessions()
    assert sessions.sitting("fio", Span(0, 10)) != sessions.sitting("ior", Span(0, 10))
