"""An import of fio JSON outputs (no logs) never loads numpy (issue 42 item 10): nothing in it needs an array,
and loading numpy cost each `iolab import` process about 0.1 s of CPU, a sixth of fio-plot's whole loader.
Twenty repeats of one workload (real json+ output, each copy its own bytes) reach the repeat rules' set
size where the doctor judged with numpy; a fresh interpreter, so nothing else has loaded it first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
    done = subprocess.run(
        [sys.executable, "-c", CHECK, str(outputs)],
        env={"IOLAB_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["20", "False"], done.stdout
