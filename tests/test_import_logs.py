"""`iolab import` takes fio's logs that sit beside a JSON file along with it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.iolab_cli import iolab

LOGS = Path(__file__).parent / "data" / "fio" / "logs"


def test_logs_beside_the_json_become_the_points_samples(tmp_path):
    archive = tmp_path / "archive"
    shutil.copytree(LOGS, archive)
    proc = iolab("import", str(archive))
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(iolab("show", "1", "--json").stdout)
    (point,) = shown["points"]
    from iolab.store.db import open_store
    from iolab.store.queries import point_samples

    store = open_store()
    got = point_samples(store, point["id"])
    store.close()
    # fio wrote two jobs' bw, iops and lat logs at 1 s (log_avg_msec=1000) for 3 s.
    sources = {(s.metric, s.source) for s in got}
    assert {("bw", "job1"), ("bw", "job2"), ("iops", "job1"), ("lat", "job2")} <= sources
    bw_rows = [ln for ln in (archive / "point_bw.1.log").read_text().splitlines() if ln.strip()]
    assert 1 <= len([s for s in got if s.metric == "bw" and s.source == "job1"]) <= len(bw_rows)
    first = bw_rows[0].split(",")
    job1_bw = sorted((s for s in got if s.metric == "bw" and s.source == "job1"), key=lambda s: s.t_ms)
    assert job1_bw[0].t_ms == int(first[0]) and job1_bw[0].value == float(first[1]) * 1024  # KiB/s → bytes/s
