"""The calibration corpora's benches at their smoke sizes: they run, check the rules were evaluated on every
case (they exit on one that was not), and their planted faults are found, so their counts can move."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
FIOPLOT = os.environ.get("IOLAB_FIOPLOT_DATA", "")


def _bench(script: str, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(BENCH / script), *args]
    return subprocess.run(command, check=False, capture_output=True, text=True, timeout=600)


def test_simulated_arrays_smoke(tmp_path):
    out = tmp_path / "arrays.json"
    proc = _bench("simulated_arrays.py", "--cases", "16", "--out", str(out))
    assert proc.returncode in (0, 1), proc.stderr  # 1: the cut chosen on 8 arrays differs from the shipped one
    held = json.loads(out.read_text())["held_out"]
    assert held["cases"] == 8 and held["recall"]["slow"]["hits"] > 0 and held["recall"]["step"]["hits"] > 0


def test_simulated_histories_smoke(tmp_path):
    out = tmp_path / "histories.json"
    proc = _bench("simulated_histories.py", "--cases", "8", "--out", str(out))
    assert proc.returncode in (0, 1), proc.stderr
    figures = json.loads(out.read_text())
    assert figures["issue_example"] == {"change_points": [7], "outlier_runs": [4]}
    assert figures["held_out"]["histories"] == 4 and figures["held_out"]["outlier_runs_recall"] > 0.5


def test_dips_envelope_smoke(tmp_path):
    """The dip envelope at 24 held-out cases: every bin is printed, the oracle stands beside each, and the planted
    dips are found (issue 40's space: 2 s to half the run, four shapes, AR(1) and t3 noise)."""
    out = tmp_path / "dips.json"
    proc = _bench("dips_envelope.py", "--cases", "24", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    held = json.loads(out.read_text())["held_out"]
    assert (
        held["all"]["cases"] == 24
        and held["all"]["recall"] > 0.5
        and held["all"]["oracle"] >= held["all"]["recall"] - 0.2
    )
    assert set(held["all_by_length_s"]) == {"2-2", "3-5", "6-10", "11-20", "21-60", "61-300"}
    assert held["clean"]["runs"] == 24


@pytest.mark.skipif(
    not FIOPLOT or not Path(FIOPLOT).is_dir(), reason="fio-plot's data is not here (IOLAB_FIOPLOT_DATA)"
)
def test_fioplot_traces_smoke(tmp_path):
    out = tmp_path / "fioplot.json"
    _bench("fioplot_traces.py", "--data", FIOPLOT, "--limit", "40", "--out", str(out))
    figures = json.loads(out.read_text())
    # The first 40 in name order: a floppy drive's (a few KB/s, logged seconds apart: no twins) and a RAID set's
    # 1 s logs, where dips of 2 s to half the point are planted.
    assert figures["points_judged"] == 40 and figures["planted_twins"] >= 10
    assert figures["planted_twins_named"] >= figures["planted_twins"] // 2
    assert figures["false_alarms"]["all"]["points_not_judged_real"] > 0
