"""fio-plot's published collection imported with the invariants on, and every stored figure held against the oracle.

Every point of the collection (fio-plot commit 868a7af5d, `benchmark_data/`; `bench/fioplot_collection.py` says how
to fetch it) either holds every invariant (`iolab.analysis.invariants`) or is flagged by RES-INVARIANT with the
invariant it breaks; the flagged ones are counted by kind. Then the suite's oracle (`tests/oracle.py`, which
shares no code with iolab) recomputes each stored figure from the point's fio output.

    .venv/bin/python bench/invariants_collection.py --data DIR
    .venv/bin/python bench/invariants_collection.py --smoke     # tests/data/fio: seconds, for `make test`

Writes bench/results/invariants_collection.json (not with --smoke).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the suite's oracle, tests/oracle.py
sys.path.insert(0, str(HERE))

from results_file import add_smoke_flag, host, write_result  # noqa: E402

from tests.oracle import check_store  # noqa: E402

RESULT = HERE / "results" / "invariants_collection.json"
SMOKE_DATA = HERE.parent / "tests" / "data" / "fio"


def measure(data: Path) -> dict:
    """Import `data` (without logs) into a fresh store; the points, the flagged ones by invariant, the oracle."""
    from iolab.imports import import_paths
    from iolab.store.db import open_store

    with tempfile.TemporaryDirectory(prefix="iolab-invariants-") as home:
        store = open_store(Path(home))
        started = time.perf_counter()
        outcome = import_paths([str(data)], store, "iolab import", logs=False)
        seconds = time.perf_counter() - started
        store.conn.close()
        database = Path(home) / "iolab.db"
        conn = sqlite3.connect(database)
        points = conn.execute("SELECT COUNT(*) FROM points").fetchone()[0]
        flagged = conn.execute("SELECT subject, evidence FROM findings WHERE rule_id = 'RES-INVARIANT'").fetchall()
        conn.close()
        kinds = collections.Counter(json.loads(evidence)["invariant"] for _, evidence in flagged)
        examples = {}
        for subject, evidence in flagged:
            found = json.loads(evidence)
            examples.setdefault(found["invariant"], f"{subject}: {found['by']}")
        oracle = check_store(database)
    return {
        "data": data.name,  # never a machine's absolute path
        "files": outcome.files,
        "points": points,
        "import_s": round(seconds, 2),
        "findings": len(flagged),
        "flagged_by_invariant": dict(kinds),
        "example_per_invariant": examples,
        "oracle": {
            "points": oracle.points,
            "figures": oracle.figures,
            "points_not_read": oracle.skipped,
            "points_by_output": dict(sorted(oracle.formats.items())),
            "disagreements": len(oracle.disagreements),
            "first_disagreements": oracle.disagreements[:10],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=os.environ.get("IOLAB_FIOPLOT_DATA"), help="fio-plot's data")
    add_smoke_flag(parser)  # tests/data/fio instead of the collection
    args = parser.parse_args()
    data = SMOKE_DATA if args.smoke else args.data
    if data is None or not Path(data).is_dir():
        print("no data: give --data DIR with fio-plot's benchmark_data (see bench/fioplot_collection.py), or --smoke")
        return
    figures = measure(Path(data))
    print(json.dumps(figures, indent=2))
    if figures["oracle"]["disagreements"]:
        raise SystemExit(f"the oracle disagrees with {figures['oracle']['disagreements']} stored figures")
    write_result(RESULT, "invariants_collection", {"host": host(), **figures}, smoke=args.smoke)


if __name__ == "__main__":
    main()
