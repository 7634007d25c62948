"""Shard 2 of the bench smokes (tests/bench/test_smoke.py says why they are dealt over modules)."""

from __future__ import annotations

import shutil

import pytest

from tests.bench.test_smoke import run_smoke, shard


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
@pytest.mark.parametrize("script", shard(2))
def test_bench_runs_at_its_smoke_size(script, tmp_path):
    run_smoke(script, tmp_path)
