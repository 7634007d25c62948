"""The oracle agrees with every figure iolab stores for real fio outputs and with every compare verdict, and finds\neach kind of wrong figure and wrong verdict."""

from __future__ import annotations

import functools
import itertools
import json
import math
import random
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from iolab.analysis.compare import CompareParams, compare_samples
from iolab.imports import import_paths
from iolab.report.json_output import comparison_json
from iolab.store.db import open_store
from iolab.views import comparison
from iolab.views.comparison import ComparedWorkload, Comparison, WorkloadSamples, compare_runs
from tests.oracle import OracleReport, check_store, check_verdict, side_values

DATA = Path(__file__).parent / "data" / "fio"


@pytest.fixture
def imported(tmp_path) -> Path:
    """tests/data/fio imported into a store of its own: 25 real fio outputs, fio 2.1 to 3.33. Under `tampered`:
    the tests below damage it, so the suite's own oracle check (tests/conftest.py) leaves it alone."""
    store = open_store(tmp_path / "tampered" / "home")
    import_paths([str(DATA)], store, "iolab import")
    store.conn.close()
    return tmp_path / "tampered" / "home" / "iolab.db"


def test_every_figure_stored_from_real_fio_outputs_agrees_with_the_oracle(imported):
    report = check_store(imported)
    assert report.disagreements == []
    assert report.points >= 15 and report.figures >= 200  # the fio 3 JSON outputs, every direction's figures


@pytest.mark.parametrize(
    ("column", "change"),
    [
        ("bw_bytes", "bw_bytes / 4"),  # the rate of one job in four
        ("bw_bytes", "bw_bytes * 1000 / 1024"),  # KiB/s read as kB/s
        ("iops", "iops * 1.01"),
        ("lat_mean_ns", "lat_mean_ns * 1.001"),
        ("runtime_ms", "runtime_ms + 1"),
        ("percentiles", "replace(percentiles, '\"50.0\": ', '\"50.0\": 1')"),  # a p50 ten times or more off
    ],
)
def test_each_kind_of_wrong_figure_is_a_disagreement(imported, column, change):
    conn = sqlite3.connect(imported)
    changed = conn.execute(
        f"UPDATE results SET {column} = {change} WHERE point_id IN (SELECT id FROM points WHERE status = 'ok')"
    ).rowcount
    conn.commit()
    conn.close()
    assert changed
    report = check_store(imported)
    assert report.disagreements and all(" stored " in d for d in report.disagreements)


def test_fio_2_outputs_are_held_in_their_own_units(imported):
    """fio 2.1.3 to 2.17 (yardstick, PerfKitBenchmarker): KiB/s, KiB and µs, each figure recomputed."""
    report = check_store(imported)
    assert report.fio2 >= 4 and report.disagreements == []
    conn = sqlite3.connect(imported)
    conn.execute("UPDATE results SET io_bytes = io_bytes / 1024")  # KiB kept as bytes
    conn.commit()
    conn.close()
    assert any("fio 2)" in d and "io_bytes" in d for d in check_store(imported).disagreements)


def _row(a: list[float], b: list[float], higher_is_better: bool) -> dict:
    """compare's JSON row for two sides' samples, made as `iolab compare --json` makes it."""
    metric = "bw" if higher_is_better else "lat_mean"
    sides = [WorkloadSamples("w", "w", "/t", metric, list(values)) for values in (a, b)]
    verdict = compare_samples(a, b, CompareParams(higher_is_better=higher_is_better))
    comparison = Comparison("A", "B", [1], [2], [ComparedWorkload(*sides, verdict)], [], [], [])
    (row,) = json.loads(comparison_json(comparison))["workloads"]
    return row


def _generated(seed: int) -> tuple[list[float], list[float], bool]:
    """Two sides of repeats as benchmarks give them: log-normal noise of 0.1% to 30%, 1 to 9 repeats a side,
    B from 40% slower to 40% faster (often the same), now and then a lone outlier or a failed run (0)."""
    rng = random.Random(seed)
    noise = math.exp(rng.uniform(math.log(0.001), math.log(0.3)))
    effect = rng.choice([1.0, 1.0, rng.uniform(0.6, 1.4), rng.uniform(0.97, 1.03)])
    sides = []
    for scale in (1.0, effect):
        values = [200e6 * scale * math.exp(rng.gauss(0, noise)) for _ in range(rng.randint(1, 9))]
        if len(values) >= 4 and rng.random() < 0.2:
            values[rng.randrange(len(values))] *= rng.choice([0.3, 2.5])
        if rng.random() < 0.02:
            values[0] = 0.0
        sides.append(values)
    return sides[0], sides[1], rng.random() < 0.7


def test_compare_verdicts_agree_with_the_oracle_on_generated_repeats():
    """Every kind of verdict, both directions of the metric: the kind, change, interval and left-out repeats
    the oracle makes from the same samples (300 pairs)."""
    report = OracleReport()
    kinds: Counter[str] = Counter()
    for seed in range(300):
        a, b, higher = _generated(seed)
        row = _row(a, b, higher)
        kinds[row["verdict"]] += 1
        check_verdict(row, f"seed {seed}", report)
    assert report.disagreements == []
    assert {"faster", "slower", "equivalent", "inconclusive", "not evaluated"} <= set(kinds), kinds


@pytest.mark.parametrize(
    ("field", "wrong", "expected"),
    [
        ("verdict", lambda r: "faster" if r["verdict"] == "slower" else "slower", "verdict"),  # the direction turned
        ("verdict", lambda r: "inconclusive", "verdict"),  # a clear change called undecided
        ("change", lambda r: r["change"] * 1.01, "change"),
        ("ci_low", lambda r: r["ci_low"] - 0.001, "95% low"),
    ],
)
def test_each_kind_of_wrong_verdict_is_a_disagreement(field, wrong, expected):
    row = _row([400e6, 404e6, 398e6, 401e6], [300e6, 302e6, 299e6, 301e6], True)
    assert row["verdict"] == "slower"
    row[field] = wrong(row)
    report = OracleReport()
    check_verdict(row, "slower by 25%", report)
    assert [d.split(":")[0] for d in report.disagreements] == [f"slower by 25% {expected}"]


def test_an_undecided_pair_called_decided_is_a_disagreement():
    """Two-sided: inconclusive samples shown as a verdict fail as much as the reverse."""
    row = _row([400e6, 300e6, 500e6], [380e6, 520e6, 290e6], True)
    assert row["verdict"] == "inconclusive"
    report = OracleReport()
    check_verdict({**row, "verdict": "faster"}, "noisy", report)
    assert len(report.disagreements) == 1


def test_compare_of_real_imported_runs_rests_on_the_stored_repeats(tmp_path, monkeypatch):
    """Every real output under tests/data (fio 2.1 to 3.33, terse, IOR, mdtest, IOzone) imported, each file a
    run, and each run compared with each: every row's samples are the store's own points of that workload,
    and its verdict is the oracle's."""
    home = tmp_path / "tampered" / "home"  # the suite's own oracle pass has checked these outputs already
    store = open_store(home)
    runs = _each_file_a_run(store)
    # The store does not change while the ~2,000 pairs are compared: each run's points are read from it once
    # (reading them again for every pair was 40% of this test's time), as a compare of two runs reads them.
    monkeypatch.setattr(comparison, "run_points", functools.cache(comparison.run_points))
    report, rows = OracleReport(), 0
    for a, b in itertools.permutations(runs, 2):
        for row in json.loads(comparison_json(compare_runs(store, "A", [a], "B", [b])))["workloads"]:
            rows += 1
            where = f"runs {a} vs {b} {row['name']}"
            check_verdict(row, where, report)
            _check_samples(home / "iolab.db", row, (a, b), where, report)
    store.close()
    assert report.disagreements == [], "\n".join(report.disagreements)
    assert len(runs) >= 20 and rows >= 20, (len(runs), rows)


def _each_file_a_run(store) -> list[int]:  # type: ignore[no-untyped-def]
    """Every real output under tests/data imported on its own: the runs made, in order."""
    files = sorted(
        p
        for tool in ("fio", "ior", "mdtest", "iozone")
        for p in (DATA.parent / tool).rglob("*")
        if p.is_file() and p.suffix in (".json", ".txt", ".md")
    )
    runs: list[int] = []
    for path in files:
        before = {r for (r,) in store.conn.execute("SELECT id FROM runs")}
        import_paths([str(path)], store, "iolab import")
        runs += sorted({r for (r,) in store.conn.execute("SELECT id FROM runs")} - before)
    return runs


def _check_samples(database: Path, row: dict, runs: tuple[int, int], where: str, report: OracleReport) -> None:
    """Each side's samples as shown against the store's own points (A by workload, B by name and target)."""
    for side, held in (
        ("a", side_values(database, [runs[0]], row["metric"], workload=row["workload"])),
        ("b", side_values(database, [runs[1]], row["metric"], named=(row["b_name"], row["b_target"]))),
    ):
        if sorted(held) != sorted(row[side]["values"]):
            report.disagreements.append(f"{where} {side}: shown {row[side]['values']}, stored {held}")
