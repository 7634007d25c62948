"""compare's A/B direction, in the fast tier (issue 41 item 8): B against A, never A against B, for a rate
and for a latency (lower is better), through `compare_runs` and the CLI's argument order and regression
gate. Stored runs in a temporary store; no fio."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from iolab.cli import app
from iolab.store.db import open_store
from iolab.views.comparison import compare_runs
from tests.store.test_series import MB, RAND_QD1, SEQ_READ, US, _bw, _direction, _result, _run


def _latency(us: float):  # type: ignore[no-untyped-def]
    return _result(_direction("read", bw=4096 * 1e6 / us, iops=1e6 / us, lat_ns=us * US))


@pytest.fixture
def store(iolab_home):  # type: ignore[no-untyped-def]
    store = open_store(iolab_home)
    yield store
    store.close()


def test_b_slower_than_a_is_slower_and_swapping_the_sides_makes_it_faster(store):
    a, _ = _run(store, "seq", SEQ_READ, [_bw(400), _bw(404), _bw(398)])
    b, _ = _run(store, "seq", SEQ_READ, [_bw(300), _bw(302), _bw(299)])
    (row,) = compare_runs(store, "A", [a], "B", [b]).rows
    assert row.verdict.kind == "slower" and row.verdict.change == pytest.approx(300.3 / 400.7 - 1, abs=0.01)
    assert row.a.figure == pytest.approx(400.7 * MB, rel=0.01)  # A's figure is A's runs'
    (swapped,) = compare_runs(store, "B", [b], "A", [a]).rows
    assert swapped.verdict.kind == "faster" and swapped.verdict.change == pytest.approx(400.7 / 300.3 - 1, abs=0.01)


def test_a_higher_latency_in_b_is_slower_not_faster(store):
    a, _ = _run(store, "lat", RAND_QD1, [_latency(80), _latency(81), _latency(79)])
    b, _ = _run(store, "lat", RAND_QD1, [_latency(120), _latency(121), _latency(119)])
    (row,) = compare_runs(store, "A", [a], "B", [b]).rows
    assert row.a.metric == "lat_mean" and not row.verdict.params.higher_is_better
    assert row.verdict.kind == "slower" and row.verdict.change == pytest.approx(0.5, abs=0.02)


def test_the_cli_s_first_group_is_a_and_its_regression_gate_fails_only_on_b_slower(store):
    a, _ = _run(store, "seq", SEQ_READ, [_bw(400), _bw(404), _bw(398)])
    b, _ = _run(store, "seq", SEQ_READ, [_bw(300), _bw(302), _bw(299)])
    runner = CliRunner()
    shown = runner.invoke(app, ["compare", str(a), str(b), "--json"])
    assert shown.exit_code == 0, shown.output
    document = json.loads(shown.stdout)
    assert document["a"]["runs"] == [a] and document["b"]["runs"] == [b]
    (row,) = document["workloads"]
    assert row["verdict"] == "slower" and row["change"] < 0
    assert runner.invoke(app, ["compare", str(a), str(b), "--fail-on-regression", "10%"]).exit_code == 1
    assert runner.invoke(app, ["compare", str(b), str(a), "--fail-on-regression", "10%"]).exit_code == 0
