"""The metadata preset's workloads really run with the installed fio."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from iolab.fio.jobfile import JobSection, render_jobfile
from iolab.plan.presets import metadata, uses_directory

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")


def test_metadata_create_stat_remove_rates_are_positive(tmp_path):
    plan = metadata(threads=[1], files_per_thread=200, runtime=1)
    assert [w.name for w in plan.workloads] == ["create-j1", "stat-j1", "remove-j1"]
    scratch = tmp_path / "md"
    scratch.mkdir()
    rates = {}
    for workload in plan.workloads:
        assert uses_directory(workload)
        jobfile = tmp_path / f"{workload.name}.fio"
        jobfile.write_text(render_jobfile([JobSection(workload.name, {**workload.options, "directory": str(scratch)})]))
        done = subprocess.run(
            ["fio", "--output-format=json", str(jobfile)], capture_output=True, text=True, timeout=30, check=False
        )
        assert done.returncode == 0, done.stderr
        job = json.loads(done.stdout)["jobs"][0]
        assert job["error"] == 0
        rates[workload.options["ioengine"]] = job["read"]["iops"]
        if workload.options["ioengine"] == "filecreate":
            assert len(list(scratch.iterdir())) == 200  # every file created, named by the shared format
    assert all(rate > 0 for rate in rates.values()), rates
    # Whether filedelete removes every file it opened differs between fio versions (iolab removes its own
    # metadata directory after a run either way); what any fio must do is name them by the shared format.
    assert all(p.name.startswith("iolab-md.") for p in scratch.iterdir())
