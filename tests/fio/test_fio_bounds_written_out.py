"""fio's output at bounds and defaults written out as numbers here, not read back from the code (issue 41:
`bench/mutation.py --whole` left these held by no fast test): a job may have run for ten years and not a
millisecond longer; a job entry without an `error` key is no error; and the two readers of a fio log (numpy's
whole-text one and the line-by-line one it falls back to) give the same series for every log, so which one
read a log never shows."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import numpy as np
import pytest

from iolab.errors import UserError
from iolab.fio import logs
from iolab.fio.parse import aggregate
from iolab.fio.validate import check_document

DATA = Path(__file__).resolve().parent.parent / "data"
DOC = json.loads((DATA / "fio" / "randread-4jobs.json").read_text())
TEN_YEARS_MS = 315_360_000_000


def _runtime(ms: int) -> dict:
    doc = copy.deepcopy(DOC)
    doc["jobs"][0]["job_runtime"] = ms
    return doc


def test_a_job_may_have_run_ten_years_and_not_a_millisecond_more():
    check_document(_runtime(TEN_YEARS_MS), "r.json")
    with pytest.raises(UserError, match=r"job_runtime: 315360000001 is not possible"):
        check_document(_runtime(TEN_YEARS_MS + 1), "r.json")


def test_a_job_entry_without_an_error_key_is_no_error():
    entries = copy.deepcopy(DOC["jobs"])
    for entry in entries:
        del entry["error"]
    assert aggregate(entries, "fio-3.33").error == 0
    entries[0]["error"] = 5
    assert aggregate(entries, "fio-3.33").error == 5


def _series(table: np.ndarray | None) -> list[tuple]:
    found = [] if table is None else logs._series(table, "bw", "x")
    return [(s.ddir, s.t_ms.tolist(), [float(v) for v in s.values]) for s in found]


def _generated(rng: random.Random) -> bytes:
    columns = rng.choice([3, 4, 5, 6])
    rows = []
    for t in range(rng.randint(1, 30)):
        value = rng.choice([str(rng.randint(0, 10**6)), f"{rng.uniform(0, 1e6):.3f}"])
        row = [str(t * 1000 + rng.randint(0, 5)), value, str(rng.choice([0, 1, 2])), str(rng.choice([0, 4096]))]
        rows.append(", ".join((row + ["0", "7"])[:columns]))
    return ("\n".join(rows) + rng.choice(["", "\n"])).encode()


def test_both_log_readers_give_the_same_series_for_real_and_generated_logs():
    real = [path.read_bytes() for path in sorted(DATA.rglob("*.log"))]
    rng = random.Random(41)
    for data in real + [_generated(rng) for _ in range(200)]:
        assert _series(logs._table(data)) == _series(logs._table_by_lines(data.strip()) if data.strip() else None)
