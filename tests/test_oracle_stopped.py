"""The oracle on a stopped point (issue 41, Build 7): its kept-window rate recomputed from fio's own blocks.

A stopped point's rate is the bytes fio counted between its status block at the warm-up cut and its final
document, over the time between them. iolab keeps that block beside the final document (fio.cut.json), so
the oracle recomputes the rate exactly, from both sides: before, it held only a ceiling (all bytes over the
kept seconds), and a rate divided by the whole runtime, lower than the window's, passed. The run is the
real run loop on fio's saved 12 s of status blocks (`tests/runner/fake_executor.py`), no fio started.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import replace
from pathlib import Path

import pytest

from iolab.analysis import stopping as rule
from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest
from iolab.store.db import open_store
from tests.oracle import _rates, check_store
from tests.runner.fake_executor import Answer, FakeExecutor

PLAN = 'name = "s"\n[options]\nrw = "randread"\n'


@pytest.fixture
def stopped(tmp_path: Path, iolab_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store holding one point stopped on fio's real status blocks, its first 3 s cut as warm-up."""
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))  # no perf beside the point
    real = rule.decide

    def cut_three(*args, **kwargs):  # the warm-up the rule would find on a slower start
        decision = real(*args, **kwargs)
        return replace(decision, discarded=3)

    monkeypatch.setattr("iolab.runner.stopping.decide", cut_three)
    target = tmp_path / "data.img"
    target.write_bytes(b"\0" * (4 << 20))
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    request = RunRequest(plan=str(plan), targets=[str(target)], telemetry_interval=None)
    request.stopping = {"target_ci": "5%", "min_s": 3, "max_s": 30}
    executor = FakeExecutor(script=lambda point, n: Answer(output="stopping/status-interval-12s.json"))
    outcome = execute(request, open_store(), SilentProgress(), executor=executor)
    assert outcome.status == "complete" and executor.stopped == ["job"]
    return iolab_home / "iolab.db"


def _set(database: Path, sql: str) -> None:
    with sqlite3.connect(database) as conn:
        conn.execute(sql)


def test_a_stopped_point_s_window_is_recomputed_from_fio_s_blocks_and_agrees(stopped):
    with sqlite3.connect(stopped) as conn:
        (names,) = conn.execute("SELECT group_concat(name) FROM artifacts WHERE point_id = 1").fetchone()
        (record,) = conn.execute("SELECT stopping FROM points WHERE id = 1").fetchone()
    assert "fio.cut.json" in names.split(",") and '"discarded_s": 3' in record
    report = check_store(stopped)
    assert report.points == 1 and report.disagreements == []


@pytest.mark.parametrize("factor", [0.9, 1.1, 0.999])
def test_a_stopped_rate_off_either_way_is_a_disagreement(stopped, factor):
    """Two-sided: below (a rate over the whole runtime is lower) and above the window's, even by 0.1%."""
    _set(stopped, f"UPDATE results SET bw_bytes = bw_bytes * {factor}")
    (found,) = check_store(stopped).disagreements
    assert "bw_bytes" in found and "at the cut and the end" in found
    _set(stopped, f"UPDATE results SET bw_bytes = bw_bytes / {factor}")


def test_a_stopped_point_s_iops_and_kept_seconds_are_recomputed_too(stopped):
    _set(stopped, "UPDATE results SET iops = iops * 0.95")
    _set(stopped, "UPDATE points SET stopping = json_set(stopping, '$.kept_s', json_extract(stopping, '$.kept_s') + 2)")
    found = check_store(stopped).disagreements
    assert len(found) == 2 and any(" iops:" in f for f in found) and any("kept_s" in f for f in found)
    _set(stopped, "UPDATE results SET iops = iops / 0.95")
    _set(stopped, "UPDATE points SET stopping = json_set(stopping, '$.kept_s', json_extract(stopping, '$.kept_s') - 2)")


def test_without_the_cut_s_block_only_the_ceiling_holds(stopped):
    """A store made before iolab kept the block: the ceiling still catches a rate above all bytes, and a
    lower one passes — what the block is kept for."""
    _set(stopped, "DELETE FROM artifacts WHERE name = 'fio.cut.json'")
    _set(stopped, "UPDATE results SET bw_bytes = bw_bytes * 0.9")
    assert check_store(stopped).disagreements == []
    _set(stopped, "UPDATE results SET bw_bytes = bw_bytes / 0.9 * 3")
    (found,) = check_store(stopped).disagreements
    assert "more than all fio's bytes" in found
    _set(stopped, "UPDATE results SET bw_bytes = bw_bytes / 3")


def test_a_cut_block_as_late_as_the_end_leaves_fio_s_whole_run_rates_and_is_checked_against_them(stopped):
    """No time between the two blocks: no window, so the figures must be fio's own over the run (checked,
    not skipped): the window's rates stored there are a disagreement, fio's own are not."""
    with sqlite3.connect(stopped) as conn:
        (final,) = conn.execute("SELECT data FROM artifacts WHERE name = 'fio.json'").fetchone()
        conn.execute("UPDATE artifacts SET data = ? WHERE name = 'fio.cut.json'", (final,))
        conn.execute("UPDATE points SET stopping = json_set(stopping, '$.kept_s', 0)")
    found = check_store(stopped).disagreements
    assert any("bw_bytes" in f for f in found) and any(" iops:" in f for f in found), found
    job = json.loads(zlib.decompress(final))["jobs"]
    bw, iops = _rates([j["read"] for j in job])
    _set(stopped, f"UPDATE results SET bw_bytes = {bw!r}, iops = {iops!r}")
    assert check_store(stopped).disagreements == []
