"""A log of one direction in time order takes `fio.logs`' short way (`_one_direction`: no split, no sort), nearly
every log of fio-plot's collection. It must keep exactly the rows the rule keeps, read row by row
(`test_log_repeats._row_by_row`), and what the long way keeps: generated logs of one direction, at rising times,
at times written twice, out of order, with per-I/O rows, without a block size column, of floats, and of a
direction fio does not have."""

from __future__ import annotations

import numpy as np

from iolab.fio import logs
from iolab.fio.logs import _series
from tests.fio.test_log_repeats import _row_by_row


def _table(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    step = int(rng.choice([250, 500, 1000]))
    times = np.cumsum(rng.integers(1 if seed % 4 == 0 else 0, 3, n)) * step  # rising, or with repeats
    if seed % 9 == 0:
        times = rng.permutation(times)  # any order
    ddir = int(rng.choice([0, 1, 2, 3])) if seed % 6 == 0 else int(rng.integers(0, 3))
    ddirs = np.full(n, ddir)
    if seed % 11 == 0 and n > 1:
        ddirs[int(rng.integers(0, n))] = (ddir + 1) % 3  # one row of another direction
    sizes = rng.integers(0, 2, n) * 4096 if seed % 5 == 0 else np.zeros(n, dtype=np.int64)
    table = np.stack([times, rng.integers(0, 10**6, n), ddirs, sizes], axis=1)
    if seed % 8 == 0:
        table = table + 0.25  # a log of floats (read as numbers with a fraction)
    return table[:, :3] if seed % 7 == 0 else table


def _kept(table: np.ndarray) -> list[tuple[str, list[int], list[float]]]:
    return [(s.ddir, s.t_ms.tolist(), s.values.tolist()) for s in _series(table, "bw", "job1")]


def test_a_log_of_one_direction_keeps_the_rows_the_rule_keeps():
    short = 0
    for seed in range(400):  # in one test: the suite's per-test fixtures cost more than the cases
        table = _table(seed)
        times, ddirs = table[:, 0].astype(np.int64), table[:, 2].astype(np.int64)
        short += logs._one_direction(table, times, ddirs) is not None
        assert _kept(table) == _row_by_row(table), seed
    assert short > 200  # the generated logs take the short way, most of them


def test_the_short_way_keeps_what_the_long_way_keeps(monkeypatch):
    tables = [_table(seed) for seed in range(400)]
    short = [_kept(table) for table in tables]
    monkeypatch.setattr(logs, "_one_direction", lambda *_: None)
    assert [_kept(table) for table in tables] == short
