"""Every script under bench/ has a smoke entry (tests/bench/test_smoke.py runs them in `make test`), checked
in `make check`: a new bench without one fails at once, not when someone next measures with it."""

from __future__ import annotations

from tests.bench.test_smoke import BENCH, SHARDS, SMOKE, bench_scripts, shard


def test_every_bench_script_has_a_smoke_entry():
    assert bench_scripts() == set(SMOKE), "bench/ scripts and SMOKE differ: add the script's smoke entry here"


def test_every_bench_script_takes_the_smoke_flag():
    """Its own parser gets the flag, or the simulated corpora's shared one does (bench/held_out.corpus_args)."""
    assert "add_smoke_flag(parser)" in (BENCH / "held_out.py").read_text(encoding="utf-8")
    lacking = [
        name
        for name in SMOKE
        if not any(
            call in (BENCH / name).read_text(encoding="utf-8") for call in ("add_smoke_flag(parser)", "corpus_args(")
        )
    ]
    assert not lacking


def test_the_scan_finds_the_benches():
    assert {"overhead.py", "mutation.py", "calibration.py"} <= bench_scripts()
    assert "run_all.py" not in bench_scripts() and "results_file.py" not in bench_scripts()


def test_every_smoke_is_in_exactly_one_shard_module():
    dealt = [script for number in range(SHARDS) for script in shard(number)]
    assert sorted(dealt) == sorted(SMOKE)
    modules = {p.name for p in (BENCH.parent / "tests" / "bench").glob("test_smoke*.py")} - {"test_smoke_registry.py"}
    assert modules == {"test_smoke.py"} | {f"test_smoke_shard_{n}.py" for n in range(1, SHARDS)}
