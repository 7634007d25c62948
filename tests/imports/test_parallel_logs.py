"""A large import reads its logs in worker processes: what it stores is what reading them here stores."""

from __future__ import annotations

import shutil
from pathlib import Path

import iolab.imports as imports
from iolab.store.db import open_store
from iolab.store.queries import point_samples, run_points

LOGS = Path(__file__).parent.parent / "data" / "fio" / "logs"


def _imported(tmp_path: Path, name: str, threshold: int, monkeypatch) -> tuple[list, int]:
    archive = tmp_path / name / "archive"
    shutil.copytree(LOGS, archive)
    monkeypatch.setattr(imports, "PARALLEL_LOGS", threshold)
    store = open_store(tmp_path / name)
    outcome = imports.import_paths([str(archive)], store, "test")
    (record,) = run_points(store, outcome.run_ids[0])
    samples = point_samples(store, record.id)
    store.close()
    return samples, outcome.log_rows


def test_logs_read_by_workers_are_stored_as_logs_read_here(tmp_path, monkeypatch):
    here, rows_here = _imported(tmp_path, "here", 10**9, monkeypatch)
    workers, rows_workers = _imported(tmp_path, "workers", 1, monkeypatch)
    assert workers == here and rows_workers == rows_here == len(here) > 0
