"""bench/mutation.py's coverage map made by several processes side by side (`--coverage-shards`): every test
file goes to exactly one of them, the largest first to the least loaded (that each shard's lines reach the
map: tests/bench/test_mutation_map.py)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import mutation  # noqa: E402


def test_every_test_file_goes_to_one_shard_and_the_shards_balance():
    shards = mutation.dealt(["tests/bench", "tests/store/test_db.py::test_run_references"], 3)
    files = [test for shard in shards for test in shard]
    assert sorted(files) == sorted(
        {
            *(str(p.relative_to(ROOT)) for p in (ROOT / "tests/bench").rglob("test_*.py")),
            "tests/store/test_db.py::test_run_references",
        }
    )
    loads = sorted(sum(mutation._size(t) for t in shard) for shard in shards)
    assert len(shards) == 3 and loads[-1] - loads[0] <= max(mutation._size(t) for t in files)
    assert mutation.dealt(["tests/bench"], 1) == [["tests/bench"]]
