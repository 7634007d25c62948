"""`iolab import` end to end on published IOR outputs: runs marked imported, nothing stored twice, a report
of what a folder held besides outputs, and `compare` across two imported runs of the same workloads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.in_process import iolab

IOR = Path(__file__).resolve().parents[1] / "data" / "ior"
MIB = 1 << 20


def test_two_imported_ior_runs_compare_and_list_as_imported(tmp_path):
    # akrr's IOR on one cluster (16 tasks, 8 per node), March 2019 with IOR 3.0.1 and May 2019 with 3.2.0
    first = iolab("import", str(IOR / "akrr-doc-ior-3.0.1.md"))
    assert first.returncode == 0, first.stderr
    assert "Imported 4 points from 1 file as run 1 (import IOR-3.0.1" in first.stderr
    folder = tmp_path / "may"
    folder.mkdir()
    shutil.copy(IOR / "akrr-v32-ior-3.2.0.txt", folder / "appstdout")  # recognised by content, not by name
    (folder / "job.id").write_text("1164522\n")
    second = iolab("import", str(folder))
    assert second.returncode == 0, second.stderr
    assert "as run 2 (import IOR-3.2.0" in second.stderr
    assert "Skipped 1 files: 1 not a benchmark output (may/job.id)" in second.stderr

    again = iolab("import", str(IOR / "akrr-doc-ior-3.0.1.md"))
    assert (
        again.returncode == 0 and "Already imported as run 1, not stored again: akrr-doc-ior-3.0.1.md" in again.stderr
    )

    listed = json.loads(iolab("ls", "--json").stdout)
    assert [(r["id"], r["label"], r["imported"]["tools"]) for r in listed] == [
        (2, "import IOR-3.2.0", ["ior"]),
        (1, "import IOR-3.0.1", ["ior"]),
    ]

    compared = iolab("compare", "1", "2", "--json")
    assert compared.returncode == 0, compared.stderr
    rows = json.loads(compared.stdout)["workloads"]
    # POSIX shared file and file per process, write and read: the four workloads both runs measured
    assert sorted(r["name"] for r in rows) == ["read", "read", "write", "write"]
    read_fpp = max((r for r in rows if r["name"] == "read"), key=lambda r: r["a"]["values"][0])  # file per process
    assert read_fpp["metric"] == "bw"
    assert read_fpp["a"]["values"] == [pytest.approx(468.59 * MIB)]
    assert read_fpp["b"]["values"] == [pytest.approx(268.57 * MIB)]
