"""An imported tool's run shows what the tool measured, the tool's own host, and when its outputs are dated.

The issue's mdtest case: `MB/s 0.00 ± 0.00`, CPU 0.0%, `duration: 10459613 s` and the importing machine as the
host of GPFS results. Real outputs: tests/data/mdtest (two akrr runs, months apart) and fio's client/server JSON.
"""

from __future__ import annotations

from pathlib import Path

from iolab.imports import import_paths
from iolab.store.db import open_store
from iolab.store.queries import get_run, run_points
from iolab.views.run import load_run

DATA = Path(__file__).parent.parent / "data"


def _imported(tmp_path: Path, *paths: Path):
    store = open_store(tmp_path / "home")
    (run,) = import_paths([str(p) for p in paths], store, "iolab import").runs
    return store, get_run(store, run.run_id), run_points(store, run.run_id)


def test_an_mdtest_import_shows_only_what_mdtest_measured_and_no_host_or_duration_of_ours(tmp_path):
    store = open_store(tmp_path / "home")
    runs = import_paths([str(DATA / "mdtest")], store, "iolab import").runs  # one run per sitting (their dates)
    dated, creations = [], []
    for imported in runs:
        run, records = get_run(store, imported.run_id), run_points(store, imported.run_id)
        report = load_run(store, run.id, records).report
        facts = dict(report.facts)
        assert facts["host"] == "not named by the imported outputs"  # was this machine's name
        assert "duration" not in facts and "fio" not in facts  # was 10,459,613 s: the span between two outputs
        dated.append(facts["outputs dated"])
        [table] = report.tables
        headers = [c.header for c in table.columns]
        for row in table.rows:
            cells = dict(zip(headers, row.cells, strict=True))
            assert (cells["MB/s"], cells.get("MB/s 95% CI", "-"), cells["CPU"]) == (
                "-",
                "-",
                "-",
            )  # were 0.00 ± 0.00, 0.0%
            assert cells["IOPS"] != "-"  # what mdtest measured: operations per second
        assert "iodepth" not in table.fixed_text and "direct" not in table.fixed_text  # fio's defaults, not mdtest's
        first = next(row for row in table.rows if row.cells[0] == "directory creation")
        creations.append(dict(zip(headers, first.cells, strict=True)))
    # the operations a second mdtest measured (97 and 103 in the sitting of two repeats), nothing else
    assert any(c["IOPS"] == "100 ± 5" and c["mean lat"] == "-" for c in creations), creations
    assert any(d.startswith("2018-12-31") for d in dated) and any("2019-05-01" in d for d in dated), dated


def test_a_fio_import_names_the_hosts_its_output_names(tmp_path):
    _, run, _ = _imported(tmp_path, DATA / "fio" / "client-server-3hosts.json")
    assert run.host == "3 hosts"
    _, run, _ = _imported(tmp_path / "one", DATA / "fio" / "randread-4jobs.json")
    assert run.host == ""  # a standalone fio output names no host
