"""What an import stores beside the figures (issue 41: `bench/mutation.py --whole` left these held by no fast
test): a fio output keeps fio's method advice (only other tools' runs drop it), each tool's points name the
kind of target it measured (mdtest a directory, IOR a file), and a file starting exactly the session gap after
a sitting ends still belongs to it."""

from __future__ import annotations

from pathlib import Path

from iolab.imports import import_paths
from iolab.imports.sessions import SESSION_GAP, Sessions, Span
from iolab.store.db import open_store
from iolab.store.queries import run_findings, run_points

DATA = Path(__file__).parent.parent / "data"


def test_a_fio_import_keeps_fios_method_advice():
    store = open_store()
    outcome = import_paths([str(DATA / "fio" / "randread-4jobs.json")], store, "iolab import")
    (run_id,) = outcome.run_ids
    assert [f for f in run_findings(store, run_id) if f.family == "method"]


def test_mdtest_measured_a_directory_and_ior_a_file():
    store = open_store()
    paths = [str(DATA / "mdtest" / "akrr-v2-mdtest-1.9.3.txt"), str(DATA / "ior" / "akrr-v33-ior-3.3.0.txt")]
    outcome = import_paths(paths, store, "iolab import")
    kinds = {
        record.result.fio_version.split("-")[0]: record.point.target.kind
        for run_id in outcome.run_ids
        for record in run_points(store, run_id)
        if record.result
    }
    assert kinds == {"mdtest": "directory", "IOR": "file"}


def test_a_file_exactly_the_gap_away_on_either_side_is_the_same_sitting():
    sessions = Sessions()
    first = sessions.sitting("ior", Span(10_000.0, 10_100.0))
    assert sessions.sitting("ior", Span(10_100.0 + SESSION_GAP, 10_200.0 + SESSION_GAP)) == first
    assert sessions.sitting("ior", Span(10_000.0 - SESSION_GAP - 50, 10_000.0 - SESSION_GAP)) == first
    assert sessions.sitting("ior", Span(30_000.0 + 3 * SESSION_GAP, 30_100.0 + 3 * SESSION_GAP)) != first
