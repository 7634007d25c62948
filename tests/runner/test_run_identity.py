"""A run's identity (what running the same plan again resumes) holds its targets and hosts, generated:
the metadata preset plans no point up front, so its keys alone named no target (run 38 merged /ram/md
into the failed run on /mnt)."""

from __future__ import annotations

import itertools
import random

import pytest

from iolab.runner.request import RunRequest, plan_identity

PATHS = ["/mnt", "/ram/md", "/dev/loop3", "/data/a", "/data/b"]
HOSTS = [(), ("h1",), ("h2",), ("h1", "h2")]


@pytest.mark.parametrize("seed", range(100))
def test_a_different_target_or_host_is_a_different_run(seed):
    rng = random.Random(seed)
    request = RunRequest(plan=rng.choice(["metadata", "quick", "/plans/p.toml"]))
    keys = [] if rng.random() < 0.5 else [f"{rng.getrandbits(64):016x}" for _ in range(rng.randint(1, 4))]
    choices = list(itertools.product(PATHS, HOSTS))
    first = rng.sample(choices, rng.randint(1, 3))
    second = rng.sample(choices, rng.randint(1, 3))
    same = {(p, tuple(sorted(h))) for p, h in first} == {(p, tuple(sorted(h))) for p, h in second}
    assert (plan_identity(keys, request, first) == plan_identity(keys, request, second)) == same
    # the order targets come in, or a host list's, is not part of it
    shuffled = [(p, tuple(reversed(h))) for p, h in reversed(first)]
    assert plan_identity(keys, request, first) == plan_identity(list(reversed(keys)), request, shuffled)


def test_the_metadata_preset_on_another_directory_is_another_run():
    request = RunRequest(plan="metadata")
    assert plan_identity([], request, [("/mnt", ())]) != plan_identity([], request, [("/ram/md", ())])
