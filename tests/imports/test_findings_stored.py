"""The findings an import stores, held to those it stored when this file's record was made: a change in what the
doctor finds on imported outputs (a rule, the invariants, the order the engine judges in, what the judge is handed)
fails here with the rows that differ, where the store's other tests compare two ways of storing that share the doctor.

fio's outputs of several shapes (json+ with numjobs, client/server, 3.1, terse, logs with a dip) and one of IOR's,
each run's findings as stored (rule, severity, subject, title, evidence, quotes). A change meant to alter them
rewrites the record: `IOLAB_RECORD_FINDINGS=1 pytest tests/imports/test_findings_stored.py`, and the diff is
reviewed with the change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

DATA = Path(__file__).parents[1] / "data"
RECORD = DATA / "findings" / "imported.json"
IMPORTED = ["fio/logs", "fio/logs-dip", "fio/terse", "fio/randread-4jobs.json", "fio/client-server-3hosts.json"]
IMPORTED += ["fio/v3.1/randread-2jobs-jsonplus.json", "ior/compspec-ior-4.0.0rc1.json", "fio/quick"]
COLUMNS = "rule_id, severity, subject, title, evidence, quotes"


def test_the_findings_stored_are_those_recorded(tmp_path, monkeypatch):
    from iolab.imports import import_paths
    from iolab.store.db import open_store

    monkeypatch.setenv("IOLAB_HOME", str(tmp_path / "home"))
    store = open_store()
    try:
        outcome = import_paths([str(DATA / path) for path in IMPORTED], store, "test")
        found = {
            f"run {n}": [
                list(row)
                for row in store.conn.execute(
                    f"SELECT {COLUMNS} FROM findings WHERE run_id = ? ORDER BY id", (run.run_id,)
                )
            ]
            for n, run in enumerate(outcome.runs)
        }
    finally:
        store.close()
    assert sum(map(len, found.values())) >= 20
    if os.environ.get("IOLAB_RECORD_FINDINGS"):
        RECORD.write_text(json.dumps(found, indent=1) + "\n")
    recorded = json.loads(RECORD.read_text())
    assert list(found) == list(recorded)
    for run in found:
        differ = [(a, b) for a, b in zip(found[run], recorded[run], strict=False) if a != b]
        assert not differ and len(found[run]) == len(recorded[run]), (run, differ[:3])
