"""fio's averaged log rows: a repeated (time, direction) keeps its first row, whatever the order of the rows,
and per-I/O rows (a block size) and rows of every other direction are kept as they are. The rows are read
row by row here, as fio's HOWTO states the rule, and `fio.logs` must keep exactly those (it skips its sort
when the pairs rise, as nearly every log's do)."""

from __future__ import annotations

import numpy as np

from iolab.fio.logs import DDIR_NAMES, SCALE, _series


def _row_by_row(table: np.ndarray) -> list[tuple[str, list[int], list[float]]]:
    """The series as the rule reads, one row at a time."""
    seen: set[tuple[int, int]] = set()
    kept: dict[int, tuple[list[int], list[float]]] = {}
    for row in table.tolist():
        time, value, ddir = int(row[0]), row[1], int(row[2])
        if ddir not in DDIR_NAMES:
            continue
        if len(row) <= 3 or row[3] == 0:  # averaged: a window's row, which fio may write twice
            if (time, ddir) in seen:
                continue
            seen.add((time, ddir))
        times, values = kept.setdefault(ddir, ([], []))
        times.append(time)
        values.append(value * SCALE["bw"])
    return [(DDIR_NAMES[code], *kept[code]) for code in sorted(kept)]


def test_a_repeated_window_keeps_its_first_row_and_nothing_else_is_dropped():
    for seed in range(300):  # in one test: the suite's per-test fixtures cost more than the cases
        assert _kept(seed) == _row_by_row(_table(seed)), seed


def _table(seed: int) -> np.ndarray:
    """A generated log: rising times with repeats (or any order), stray directions, per-I/O rows."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    step = int(rng.choice([250, 500, 1000]))
    times = np.cumsum(rng.integers(0, 3, n)) * step  # rising, with repeats (a window written twice)
    if seed % 3 == 0:
        times = rng.permutation(times)  # any order
    ddirs = rng.integers(-1, 4, n) if seed % 5 == 0 else rng.integers(0, 2, n)
    sizes = rng.integers(0, 2, n) * 4096 if seed % 2 else np.zeros(n, dtype=np.int64)
    table = np.stack([times, rng.integers(0, 10**6, n), ddirs, sizes], axis=1)
    return table[:, :3] if seed % 7 == 0 else table  # without a block size column every row is averaged


def _kept(seed: int) -> list[tuple[str, list[int], list[float]]]:
    return [(s.ddir, s.t_ms.tolist(), s.values.tolist()) for s in _series(_table(seed), "bw", "job1")]
