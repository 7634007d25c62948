"""`import_paths` on real archives: every format by content, a run per tool, provenance, nothing stored twice."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from iolab.imports import import_paths, report_lines
from iolab.imports.discover import kind_of
from iolab.store.db import open_store
from iolab.store.provenance import imported_runs
from iolab.store.queries import get_run, point_samples, run_findings, run_points

DATA = Path(__file__).parent.parent / "data"
KINDS = {
    "fio/published/yardstick-fio_read_sample_output.json": "fio",
    "fio/published/pbench-fio-0/fio-result.txt": "fio",
    "fio/randrw-json.json": "fio",
    "fio/terse/terse-v2.txt": "fio-terse",
    "fio/terse/terse-v3-client-server.txt": "fio-terse",
    "ior/akrr-v33-ior-3.3.0.txt": "ior",
    "ior/akrr-doc-ior-3.0.1.md": "ior",
    "ior/compspec-ior-4.0.0rc1.json": "ior-json",
    "mdtest/akrr-v2-mdtest-1.9.3.txt": "mdtest",
    "iozone/ffs-local-iozone-3.493-R.txt": "iozone",
    "iozone/iozone2csv-iozone-3.434-a.txt": "iozone",
    "fio/published/pbench-fio-0/fio.job": "",
    "fio/logs/point_bw.1.log": "",
    "fio/published/README.md": "",  # names fio's keys in prose, holds no output
    "ior/README.md": "",
}


@pytest.mark.parametrize(("name", "kind"), sorted(KINDS.items()))
def test_formats_are_recognised_by_content(name, kind):
    assert kind_of((DATA / name).read_text()) == kind


def test_a_run_per_tool_and_sitting_each_point_with_its_provenance():
    store = open_store()
    paths = [str(DATA / d) for d in ("ior", "mdtest", "iozone")] + [str(DATA / "fio" / "terse" / "terse-v2.txt")]
    outcome = import_paths(paths, store, "iolab import")
    assert outcome.problems == []
    labels = {run.label for run in outcome.runs}
    assert "import fio" in labels and "import mdtest-1.9.3" in labels  # terse v2 names no fio version
    marks = imported_runs(store, outcome.run_ids)
    assert {tuple(m["tools"]) for m in marks.values()} == {("fio",), ("ior",), ("mdtest",), ("iozone",)}
    # the five IOR outputs ran on five days (2018 to 2023): five runs, one a file, not one run of all five
    ior_runs = [r.run_id for r in outcome.runs if r.label.startswith("import IOR")]
    assert len(ior_runs) == 5 and all(marks[r]["files"] == 1 for r in ior_runs)
    records = [rec for r in ior_runs for rec in run_points(store, r)]
    assert {r.result.fio_version for r in records if r.result} >= {"IOR-3.0.1", "IOR-3.3.0+dev", "IOR-4.0.0rc1"}
    ior_run = min(ior_runs, key=lambda r: get_run(store, r).started_at)
    rows = store.conn.execute(
        "SELECT source, sha256, tool, version FROM provenance JOIN points ON points.id = point_id WHERE run_id = ?",
        (ior_run,),
    ).fetchall()
    kept = run_points(store, ior_run)
    assert len(rows) == len(kept) and all(len(sha) == 64 and tool == "ior" for _, sha, tool, _ in rows)
    # dated when IOR ran (v30's "Began"), not when it was imported
    run = get_run(store, ior_run)
    assert run.started_at == time.mktime(time.strptime("Mon Dec 31 14:43:10 2018", "%a %b %d %H:%M:%S %Y"))
    # fio's method advice (ramp_time=, direct=1) is not given to IOR's runs
    assert all(f.family != "method" for f in run_findings(store, ior_run))


def test_the_same_bytes_are_not_stored_twice(tmp_path):
    store = open_store()
    first = import_paths([str(DATA / "ior" / "akrr-v32-ior-3.2.0.txt")], store, "iolab import")
    copy = tmp_path / "renamed.log"
    shutil.copy(DATA / "ior" / "akrr-v32-ior-3.2.0.txt", copy)
    again = import_paths([str(copy), str(DATA / "ior" / "akrr-v32-ior-3.2.0.txt")], store, "iolab import")
    assert again.runs == [] and {run for _, run in again.already} == {first.run_id}
    assert any("Already imported as run" in line and "renamed.log" in line for line in report_lines(again))
    twice = import_paths([str(DATA / "mdtest" / "akrr-v1-mdtest-1.9.3.txt"), str(copy.parent)], store, "x")
    assert twice.already and len(twice.runs) == 1  # renamed.log was imported before; the mdtest file is new


def test_pbench_layout_logs_in_client_folders_and_a_report_of_what_was_skipped(tmp_path):
    archive = tmp_path / "pbench"
    shutil.copytree(DATA / "fio" / "published" / "pbench-fio-0", archive)
    store = open_store()
    outcome = import_paths([str(archive)], store, "iolab import")
    assert outcome.problems == [] and outcome.points == 1 and outcome.files == 1
    (record,) = run_points(store, outcome.run_ids[0])
    sources = {s.source for s in point_samples(store, record.id) if s.metric == "bw"}
    assert sources == {f"{host}:job{n}" for host in ("perf36", "perf84") for n in range(1, 6)}
    assert outcome.logs == 60  # bw, iops, lat, clat, slat and clat_hist logs of 5 jobs on 2 hosts
    skipped = outcome.skipped["not a benchmark output"]
    assert any(p.endswith("fio.job") for p in skipped) and any(p.endswith("hist.csv") for p in skipped)
    lines = report_lines(outcome)
    assert any(
        line.startswith(f"Skipped {len(skipped)} files: {len(skipped)} not a benchmark output (") for line in lines
    )


def test_a_named_file_of_no_known_format_is_a_problem_the_others_still_imported(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("results are in the spreadsheet\n")
    store = open_store()
    outcome = import_paths([str(notes), str(DATA / "fio" / "terse" / "terse-v3.txt")], store, "iolab import")
    assert len(outcome.runs) == 1 and outcome.points == 1
    assert len(outcome.problems) == 1 and "notes.txt" in outcome.problems[0]
