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
    held = figures["held_out"]
    assert held["histories"] == 4 and held["false_change_points"]["all"]["runs"] > 0
    assert set(held["outlier_runs"]) == {"gaussian", "t4"} and "size_by_cov" in held["step_recall"]


@pytest.mark.skipif(
    not FIOPLOT or not Path(FIOPLOT).is_dir(), reason="fio-plot's data is not here (IOLAB_FIOPLOT_DATA)"
)
def test_fioplot_traces_smoke(tmp_path):
    out = tmp_path / "fioplot.json"
    _bench("fioplot_traces.py", "--data", FIOPLOT, "--limit", "20", "--out", str(out))
    figures = json.loads(out.read_text())
    # The first 20 in name order are a floppy drive's: a few KB/s, seconds apart; 14 of 20 twins named there.
    assert figures["points_judged"] == 20 and figures["planted_twins_named"] >= 10
