"""An import's findings travel and are saved as the store's rows (`store.db.pack_findings`, `PackedFindings`): the
process that judged a run sends those, not the Findings. Saved packed, real findings read back as they were found,
every field (evidence, quotes, confidence), and leave the rows a save of the Findings themselves leaves."""

from __future__ import annotations

import pickle
import shutil
from dataclasses import replace
from pathlib import Path

from iolab.doctor.quotes import quote
from iolab.imports import import_paths
from iolab.imports.judging import findings_of
from iolab.store.db import open_store, pack_findings
from iolab.store.queries import run_findings, run_points

DATA = Path(__file__).parent.parent / "data" / "fio"
# Real outputs whose doctor finds method and result findings (with logs: series findings)
OUTPUTS = ("randread-4jobs.json", "randrw-json.json", "client-server-3hosts.json", "logs", "quick")


def test_findings_saved_packed_read_back_as_found(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    for name in OUTPUTS:
        (shutil.copytree if (DATA / name).is_dir() else shutil.copy)(DATA / name, archive / name)
    store = open_store(tmp_path / "home")
    try:
        runs = import_paths([str(archive)], store, "test").run_ids
        found = [finding for run in runs for finding in findings_of(store, run, "fio")]
        # and one quoting a real point's figure, as a QD sweep's findings do (these outputs make none that quote)
        point = next(r for r in run_points(store, runs[0]) if r.result is not None)
        quoted = quote([(str(point.id), point.result)], "bw", "MB/s")
        found.append(replace(found[0], title=f"{found[0].title} at {quoted.shown}", quotes=(quoted, quoted)))
        assert len(found) >= 5 and any(f.evidence for f in found)
        packed = pickle.loads(pickle.dumps(pack_findings(found)))  # as the judging process sends them
        by_list, by_rows = (store.create_run("again", "test", [], "") for _ in range(2))
        store.save_findings(by_list, found)
        store.save_findings(by_rows, packed)
        assert run_findings(store, by_rows) == sorted(found, key=lambda f: f.severity.rank)
        query = "SELECT rule_id, family, severity, title, subject, evidence, why, fix, confidence, source, quotes"
        query += " FROM findings WHERE run_id IN ({}) ORDER BY id"
        rows = [
            [tuple(row) for row in store.conn.execute(query.format(",".join("?" * len(ids))), ids)]
            for ids in ([by_list], [by_rows], runs)
        ]
        assert rows[1] == rows[0] and rows[0][:-1] == rows[2]  # the import's own (judged again here), too
    finally:
        store.close()
