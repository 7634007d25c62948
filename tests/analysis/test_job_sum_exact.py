"""`job_sum` adds the jobs' window means in one numpy pass; its figures are, to the last bit, those of adding
them one by one in the jobs' order, so a stored or shown figure (a dip's depth, a finding's quote) is the same
as before the pass was vectorised."""

from __future__ import annotations

import random

import numpy as np

from iolab.analysis.series import job_sum
from tests.analysis.test_job_sum import _jobs


def _one_by_one(members) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
    """The sum as a loop over the jobs and their windows (float by float, in the jobs' order), with the
    window width `job_sum` chooses: the reference its vectorised pass must equal exactly."""
    own = [float(np.median(np.diff(np.sort(m.t_ms)))) if len(m) > 1 else 0.0 for m in members]
    known = [i for i in own if i > 0]
    interval = float(np.median(known)) if known else 0.0
    if interval < 2:
        interval, own = 1000.0, [1000.0] * len(members)
    sums: dict[int, float] = {}
    logged: dict[str, set[int]] = {}
    for member, width in zip(members, own, strict=True):
        keys = np.rint(member.t_ms / (width or interval)).astype(np.int64)
        windows, where = np.unique(keys, return_inverse=True)
        means = np.bincount(where, weights=member.values) / np.bincount(where)
        logged.setdefault(member.source, set()).update(windows.tolist())
        for window, mean in zip(windows.tolist(), means.tolist(), strict=True):
            sums[window] = sums.get(window, 0.0) + mean
    kept = sorted(set.intersection(*logged.values()))
    step = float(np.rint(interval))
    return [k * step / 1000 for k in kept], [sums[k] for k in kept]


def test_the_vectorised_sum_is_the_one_by_one_sum_to_the_last_bit():
    for seed in range(100):  # in one test: the suite's per-test fixtures cost more than the cases
        rng = random.Random(seed)
        jobs, _ = _jobs(rng)
        rng.shuffle(jobs)  # any order of jobs and directions: the sum is still taken in the order given
        assert job_sum(jobs) == _one_by_one(jobs), seed
