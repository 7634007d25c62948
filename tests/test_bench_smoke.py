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


@pytest.mark.skipif(
    not FIOPLOT or not Path(FIOPLOT).is_dir(), reason="fio-plot's data is not here (IOLAB_FIOPLOT_DATA)"
)
def test_fioplot_traces_smoke(tmp_path):
    out = tmp_path / "fioplot.json"
    _bench("fioplot_traces.py", "--data", FIOPLOT, "--limit", "20", "--out", str(out))
    figures = json.loads(out.read_text())
    # The first 20 in name order are a floppy drive's: a few KB/s, seconds apart; 14 of 20 twins named there.
    assert figures["points_judged"] == 20 and figures["planted_twins_named"] >= 10


def _envelope(tmp_path, *args: str) -> dict:
    proc = subprocess.run(
        [sys.executable, str(BENCH / "stopping_envelope.py"), "--smoke", *args],
        check=False, capture_output=True, text=True, timeout=600, env={**os.environ, "IOLAB_BENCH_RESULTS": str(tmp_path)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads((tmp_path / "stopping_envelope.json").read_text())


def test_stopping_envelope_simulated_smoke(tmp_path):
    """One simulated series in each of 9 of the envelope's bins, both rules judged on the same series."""
    sim = _envelope(tmp_path, "--part", "sim")["sim"]
    assert len(sim["bins"]) == 9 and all(b["ours"]["points"] == b["today"]["points"] == 1 for b in sim["bins"])
    assert set(sim["by_axis"]) == {"length", "cv", "phi", "drift", "warm", "gc"}


@pytest.mark.skipif(
    not FIOPLOT or not Path(FIOPLOT).is_dir(), reason="fio-plot's data is not here (IOLAB_FIOPLOT_DATA)"
)
def test_stopping_envelope_real_smoke(tmp_path):
    """The first 12 traces in name order (a floppy drive's, 60 s and 5-minute runs), split by drive."""
    real = _envelope(tmp_path, "--part", "real", "--data", FIOPLOT, "--limit", "12")["real"]
    assert real["replayed"] == 12
    groups = [g for half in ("choose", "held-out") for g in real.get(half, {}).values()]
    assert sum(g["points"] for g in groups) == 12
    for group in groups:  # today's rule judged on the same points beside it
        assert group["points"] == group["today"]["points"] and 0 <= group["stops"] <= group["points"]
