"""bench/mutation.py: a mutant that makes a covering test module raise at its import (the module calls the
mutated code at its top, `CASES = build()`) is killed. Run against its tests' node ids, as every mutant of a
coverage-map run is, pytest exits 4 ("found no collectors", a usage error) for that, not 2 as for the file:
the bench took it for a broken run. A usage error with nothing that failed to collect still stops it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Run in a fresh interpreter, as the bench runs: this test process has imported the worktree's iolab already.
SCRIPT = """
import json, sys
from pathlib import Path
sys.path.insert(0, {bench!r})
import mutation
scratch = Path(sys.argv[1])
out = {{}}
for name, body in (("raises", "raise ValueError('the mutant')"), ("returns", "return 1")):
    tree = scratch / name / "iolab"
    tree.mkdir(parents=True)
    (tree / "__init__.py").write_text("")
    (tree / "cases.py").write_text("def build():\\n    " + body + "\\n")
    test = scratch / name / "test_built_at_import.py"
    test.write_text("from iolab.cases import build\\nCASES = build()\\ndef test_one():\\n    assert CASES == 1\\n")
    out[name + " by node id"] = mutation.run_tests(tree, [str(test) + "::test_one"])
    out[name + " by file"] = mutation.run_tests(tree, [str(test)])
try:
    out["usage error"] = "counted as " + mutation.run_tests(tree, [str(scratch / "no_such_test.py") + "::test_x"])
except mutation.RunBroken as stop:
    out["usage error"] = str(stop)
print(json.dumps(out))
"""


def test_a_test_module_that_raises_at_import_kills_the_mutant_by_node_id_and_by_file(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(bench=str(ROOT / "bench")), str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out == {
        "raises by node id": "killed",
        "raises by file": "killed",
        "returns by node id": "survived",
        "returns by file": "survived",
        "usage error": out["usage error"],
    }
    assert out["usage error"].startswith("pytest could not run") and "exit 4" in out["usage error"]
