"""How much work an import does, counted, not timed (a CI host's speed is unknown): every log column is
encoded once (by whichever process parses, never again when stored), every run judged once, every point's
summed series segmented once. fio-plot's collection went from 19.5 s to 38 s when the dip rules segmented
each series twice: a count catches that class on any host, a clock only on a quiet one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parents[1] / "data" / "fio"


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """fio's real outputs with their logs (one with a dip), each folder twice (the second copy's JSON other
    bytes, so both are stored)."""
    root = tmp_path / "archive"
    for folder in ("logs", "logs-dip"):
        for copy in range(2):
            target = root / f"{folder}-{copy}"
            shutil.copytree(DATA / folder, target)
            for output in target.glob("*.json"):
                output.write_text(output.read_text() + "\n" * copy)
    return root


def test_each_column_encoded_each_run_judged_each_series_segmented_once(archive, tmp_path, monkeypatch):
    monkeypatch.setenv("IOLAB_HOME", str(tmp_path / "home"))
    from iolab.analysis import dips
    from iolab.doctor import engine
    from iolab.imports import import_paths
    from iolab.store import columns
    from iolab.store.db import open_store

    calls = {"encode": 0, "diagnose_run": 0, "segment": 0, "point series": 0}

    def counted(module, name, key, measure=lambda result: 1):
        real = getattr(module, name)

        def count(*args, **kwargs):
            result = real(*args, **kwargs)
            calls[key] += measure(result)
            return result

        monkeypatch.setattr(module, name, count)

    counted(columns, "encode", "encode")
    counted(engine, "diagnose_run", "diagnose_run")
    counted(dips, "segment", "segment")
    counted(engine, "point_series", "point series", len)
    store = open_store()
    try:
        outcome = import_paths([str(archive)], store, "test")
        stored = store.conn.execute("SELECT COUNT(*) FROM series").fetchone()[0]
    finally:
        store.close()
    assert outcome.log_rows > 0 and stored > 0
    assert calls["encode"] == 2 * stored  # times and values of each series, once
    assert calls["diagnose_run"] == len(outcome.runs) >= 1
    assert calls["point series"] >= 4  # two jobs summed in each of four outputs
    assert calls["segment"] <= calls["point series"]  # at most once each (a short series is not segmented)
    assert calls["segment"] >= 2  # the dip outputs' series are long enough: segmented
