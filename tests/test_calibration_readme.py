"""The README's calibration figures are the committed results files', as bench/calibration_readme.py writes them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_holds_the_figures_of_bench_results():
    script = ROOT / "bench" / "calibration_readme.py"
    proc = subprocess.run([sys.executable, str(script), "--check"], check=False, capture_output=True, text=True)
    assert proc.returncode == 0, (
        "README's calibration block differs from bench/results: run bench/calibration_readme.py"
    )
    text = (ROOT / "README.md").read_text()
    assert text.count("<!-- calibration figures:") == 1 and text.count("<!-- end of calibration figures -->") == 1
