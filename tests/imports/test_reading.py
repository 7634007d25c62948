"""Parsing an import's files with a second process (`imports.reading`): the same files parsed the same, in
the same order, as in one process; a child that dies costs no file; leaving early stops the child. The
runs are judged by both processes: the same findings as judged in one, and a child that dies costs no run.

The second process is forked only while the process is single-threaded, and pytest's has numpy's BLAS
threads by now: each case runs in a fresh interpreter, which forks as `iolab import` does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent.parent / "data"

# Both scripts: the archive's candidates, and `read_one` able to end the child after DIE_AFTER files.
PRELUDE = """
import os, sys
from iolab.imports import reading
from iolab.imports.discover import discover

die_after = int(os.environ.get("DIE_AFTER", "0"))
parent = os.getpid()
parse = reading.read_one
calls = [0]

def dying(candidate, logs):
    calls[0] += 1
    if die_after and os.getpid() != parent and calls[0] > die_after:
        open(os.environ["DIED"], "w").close()
        os._exit(9)
    if die_after and os.getpid() == parent:  # parse nothing until the child has died: it must reach its limit
        import time
        deadline = time.monotonic() + 60
        while not os.path.exists(os.environ["DIED"]) and time.monotonic() < deadline:
            time.sleep(0.01)
    return parse(candidate, logs)

reading.read_one = dying
reading._second_cpu = lambda: True  # a host of one CPU forks too: what is tested is the sharing, not the speed
candidates = discover([sys.argv[1]]).candidates
"""

# Parse with a second process, then in this one alone, and compare everything parsed, logs included.
COMPARE = """
def shown(parsed):
    if isinstance(parsed, str):
        return parsed
    series = []
    for job in getattr(parsed, "jobs", []):
        series += [(s.metric, s.ddir, s.source, s.rows, s.t_ms, s.value) for s in job.series]
        job.series = []
    return repr(parsed) + repr(series)

with reading.Reading(candidates, logs=True, parallel_from=2) as read:
    assert read.child is not None, "no second process"
    together = [shown(p) for p in read]
    child = read.child
child.join(5)
with reading.Reading(candidates, logs=True, parallel_from=10**9) as read:
    assert read.child is None
    alone = [shown(p) for p in read]
assert len(together) == len(candidates) == len(alone), (len(together), len(candidates), len(alone))
for number, (a, b) in enumerate(zip(together, alone)):
    assert a == b, (number, candidates[number].path, a[:300], b[:300])
print("ok", len(together), "files; child exit", child.exitcode)
"""

# Take one file and leave: the child must be gone.
LEAVE = """
with reading.Reading(candidates, logs=True, parallel_from=2) as read:
    assert read.child is not None, "no second process"
    next(iter(read))
    child = read.child
child.join(5)
assert child.exitcode is not None, "the child outlived its reading"
print("ok")
"""


# The child stalls on its first chunk: this process parses ahead, but only so far, then waits for it. Each side
# waits for the other's mark, not for a time: at a load of 20 the child had not claimed its chunk after 0.5 s
# (and a stall of 2 s could end before this process reached its limit).
AHEAD = """
import time
from pathlib import Path
mark = Path(os.environ["MARK"])
mine = [0]

def wait_for(path):
    deadline = time.monotonic() + 30
    while not path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True

def slow_child(candidate, logs):
    if os.getpid() != parent:
        if calls[0] == 0:
            (mark / "claimed").touch()  # the child holds the first chunk...
            if not wait_for(mark / "released"):  # ...until this process has parsed all it may parse ahead
                (mark / "never released").touch()
        calls[0] += 1
    else:
        mine[0] += 1
        if mine[0] == reading.AHEAD * reading.CHUNK:
            (mark / "released").touch()  # one past it would be parsed while the child parses its chunk
    return parse(candidate, logs)

reading.read_one = slow_child
with reading.Reading(candidates, logs=False, parallel_from=2) as read:
    assert wait_for(mark / "claimed"), "the child claimed no chunk"
    first = next(iter(read))
    assert mine[0] == reading.AHEAD * reading.CHUNK, (mine[0], len(candidates))
    assert not (mark / "never released").exists(), "this process stopped short of its limit"
print("ok")
"""

# The parent dies at once, without a word to its child (kill -9 would do the same).
ORPHAN = """
read = reading.Reading(candidates, logs=True, parallel_from=2)
assert read.child is not None, "no second process"
print(read.child.pid, flush=True)
os._exit(0)
"""


# The whole import twice: with the second process (which must judge some runs: this one is slowed while judging,
# so the idle child claims runs; with DIE_JUDGING it dies on its first one), then alone; every finding compared.
JUDGE = """
import shutil, tempfile, time
from iolab.imports import import_paths
from iolab.store.db import open_store

judge = reading.findings_of
children = [0]

def judging(store, run_id, tool):
    if os.getpid() == parent:
        time.sleep(0.2)
    elif os.environ.get("DIE_JUDGING"):
        os._exit(9)
    else:
        print("judged by the child", run_id, flush=True)
    return judge(store, run_id, tool)

reading.findings_of = judging

def findings(second):
    home = tempfile.mkdtemp()
    os.environ["IOLAB_HOME"] = home
    reading._second_cpu = lambda: second
    store = open_store()
    try:
        runs = import_paths([sys.argv[1]], store, "test").run_ids
        query = "SELECT rule_id, severity, title, subject, evidence, why, quotes FROM findings WHERE run_id = ? ORDER BY id"
        return [(run, [tuple(row) for row in store.conn.execute(query, (run,))]) for run in runs]
    finally:
        store.conn.close()
        shutil.rmtree(home)

together, alone = findings(True), findings(False)
assert len(together) >= 4 and sum(len(f) for _, f in together) > 0, together
assert together == alone
print("ok", len(together), "runs")
"""


def run(archive: Path, body: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", PRELUDE + body, str(archive)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    """Real outputs of every format, fio's with logs, copied to 200 files (each copy other bytes), and one
    truncated output."""
    root = tmp_path_factory.mktemp("archive")
    shutil.copytree(DATA / "fio" / "logs", root / "logs")
    for folder in ("ior", "mdtest", "iozone"):
        shutil.copytree(DATA / folder, root / folder)
    shutil.copytree(DATA / "fio" / "terse", root / "terse")
    copies = root / "copies"
    copies.mkdir()
    for number in range(200):
        name = ("randread-4jobs.json", "randrw-json.json", "client-server-3hosts.json", "text-before.json")[number % 4]
        (copies / f"{number:03d}-{name}").write_text((DATA / "fio" / name).read_text() + "\n" * number)
    text = (DATA / "fio" / "randrw-json.json").read_text()
    (copies / "truncated.json").write_text(text[: len(text) // 2])
    return root


def test_with_a_second_process_every_file_is_parsed_the_same_and_in_order(archive):
    proc = run(archive, COMPARE)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("ok ")


def test_a_child_that_dies_costs_no_file(archive, tmp_path):
    # This process waits for the child to die before it parses a file: at a load of 20 it once parsed nearly
    # every file itself and the child never reached its 21st.
    proc = run(archive, COMPARE, {"DIE_AFTER": "20", "DIED": str(tmp_path / "died")})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "child exit 9" in proc.stdout  # it did die, and every file was still parsed the same


def test_leaving_the_reading_early_stops_the_child(archive):
    proc = run(archive, LEAVE)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok"


def test_a_child_whose_parent_died_ends_quietly(archive):
    # The child holds this stderr open until it ends, so the run waits for it: a child parsing on, or blocked
    # forever, would hit the timeout; one ending with a traceback would show it here.
    proc = run(archive, ORPHAN)
    assert proc.returncode == 0 and proc.stdout.strip().isdigit(), proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and proc.stderr.strip() == "", proc.stderr[-3000:]


def test_this_process_parses_ahead_of_a_stalled_child_only_so_far(archive, tmp_path):
    proc = run(archive, AHEAD, {"MARK": str(tmp_path)})
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


def test_the_runs_are_judged_by_both_processes_as_by_one(archive):
    proc = run(archive, JUDGE)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines()[-1].startswith("ok "), proc.stdout
    assert "judged by the child" in proc.stdout  # the child did judge some of them


def test_a_child_that_dies_judging_costs_no_run(archive):
    proc = run(archive, JUDGE, {"DIE_JUDGING": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines()[-1].startswith("ok ") and "judged by the child" not in proc.stdout


# One run, judged by the child (which loaded the doctor while this process stored): this process, the import's
# slower, never loads the doctor; the findings are those this process finds alone.
ONE_RUN = """
import os, shutil, sys, tempfile
from pathlib import Path
from iolab.imports import import_paths, reading
from iolab.store.db import open_store

outputs = Path(tempfile.mkdtemp())
text = Path(sys.argv[1]).read_text()
for copy in range(100):
    (outputs / f"randread-{copy:03d}.json").write_text(text + "\\n" * copy)

def findings(second):
    os.environ["IOLAB_HOME"] = tempfile.mkdtemp()
    reading._second_cpu = lambda: second
    store = open_store()
    (run,) = import_paths([str(outputs)], store, "test").run_ids
    rows = store.conn.execute("SELECT rule_id, title, evidence FROM findings WHERE run_id = ? ORDER BY id", (run,))
    return [tuple(row) for row in rows]

together = findings(True)
doctor_here = "iolab.doctor.engine" in sys.modules
alone = findings(False)
assert together == alone and together, (together, alone)
print("ok", len(together), "findings; doctor loaded here:", doctor_here)
"""


def test_one_run_is_judged_by_the_child_and_this_process_never_loads_the_doctor(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", ONE_RUN, str(DATA / "fio" / "randread-4jobs.json")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("doctor loaded here: False"), proc.stdout
