"""An import of fio JSON outputs (no logs) never loads numpy (issue 42 item 10): nothing in it needs an array,
and loading numpy cost each `iolab import` process about 0.1 s of CPU, a sixth of fio-plot's whole loader.
Twenty repeats of one workload (real json+ output, each copy its own bytes) reach the repeat rules' set
size where the doctor judged with numpy; a fresh interpreter, so nothing else has loaded it first."""

from __future__ import annotations

from pathlib import Path

from tests.fresh_python import run_fresh

OUTPUT = Path(__file__).resolve().parents[1] / "data" / "fio" / "randread-4jobs.json"
CHECK = """
import sys
from iolab.imports import import_paths
from iolab.store.db import open_store
outcome = import_paths([sys.argv[1]], open_store(), "test")
print(outcome.files, "numpy" in sys.modules)
"""


def test_importing_json_outputs_loads_no_numpy(tmp_path):
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    for copy in range(20):
        (outputs / f"randread-{copy:02d}.json").write_text(OUTPUT.read_text() + "\n" * copy)
    done = run_fresh(CHECK, str(outputs), home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["20", "False"], done.stdout
