"""Reading an import's logs ahead (`imports.prefetch`): only regular files beside the outputs being parsed, never
a FIFO, a link or a device node, never past the memory budget; and the import's second process asks for them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from iolab.imports import prefetch
from iolab.imports.discover import discover

DATA = Path(__file__).parent.parent / "data"


def _file(path: Path, size: int) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"1, 2, 0, 4096, 0\n" * (size // 17))
    return str(path)


def test_regular_files_are_asked_for_until_the_budget(tmp_path):
    paths = [_file(tmp_path / f"job_bw.{n}.log", 1700) for n in range(5)]
    assert prefetch.ask(paths, 10**9) == 5 * 1700
    assert prefetch.ask(paths, 3 * 1700) == 3 * 1700  # the fourth would pass the budget: none after it either
    assert prefetch.ask(paths, 0) == 0


def test_a_fifo_a_link_and_a_device_node_are_never_opened(tmp_path, monkeypatch):
    fifo = tmp_path / "job_bw.1.log"
    os.mkfifo(fifo)  # an open for reading would wait for a writer: the test would hang
    link = tmp_path / "job_bw.2.log"
    link.symlink_to(_file(tmp_path / "elsewhere" / "data", 1700))
    paths = [str(fifo), str(link), "/dev/null", _file(tmp_path / "job_bw.3.log", 1700)]
    opened: list[str] = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda path, *args: opened.append(str(path)) or real_open(path, *args))
    done: list[int] = []
    thread = threading.Thread(target=lambda: done.append(prefetch.ask(paths, 10**9)), daemon=True)
    thread.start()
    thread.join(10)
    assert done == [1700], "only the regular file is asked for"
    assert opened == paths[-1:], "looked at, not opened"


def test_a_missing_file_is_skipped(tmp_path):
    assert prefetch.ask([str(tmp_path / "gone_bw.1.log"), _file(tmp_path / "job_bw.1.log", 1700)], 10**9) == 1700


def test_only_logs_beside_outputs_being_parsed_are_asked_for(tmp_path):
    fresh, done = tmp_path / "fresh", tmp_path / "imported-before"
    paths = [
        str(fresh / "job_bw.1.log"),
        str(fresh / "clients" / "host1" / "job_bw.1.log"),  # a client's logs, under its output's folder
        str(done / "job_bw.1.log"),
        str(fresh / "deeper" / "job_bw.1.log"),  # another folder's: its own outputs name it
    ]
    assert prefetch.logs_to_read(paths, [fresh]) == paths[:2]
    assert prefetch.logs_to_read(paths, []) == []


def test_the_budget_is_a_share_of_available_memory():
    budget = prefetch._budget()
    assert 0 < budget < os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def test_the_walk_keeps_every_log_it_counts():
    found = discover([str(DATA / "fio" / "logs")])
    assert found.logs == len(found.log_paths) > 0
    assert all(Path(path).is_file() for path in found.log_paths)


# The import's second process asks for the fresh outputs' logs; the import itself is unchanged.
SCRIPT = """
import os, sys, tempfile
from iolab.imports import import_paths, prefetch, reading
from iolab.store.db import open_store

asked_for = sys.argv[2]
real = prefetch.ask

def ask(paths, budget):
    with open(asked_for, "w") as out:
        out.write("\\n".join(paths))
    return real(paths, budget)

prefetch.ask = ask
reading._second_cpu = lambda: True
os.environ["IOLAB_HOME"] = tempfile.mkdtemp()
import_paths([sys.argv[1]], open_store(), "test")
print("ok")
"""


@pytest.fixture
def archive(tmp_path) -> Path:
    """fio's real outputs with their logs, in 70 folders (the second process starts from 64 files), each
    output other bytes (an output imported before is not parsed again)."""
    root = tmp_path / "archive"
    for number in range(70):
        folder = shutil.copytree(DATA / "fio" / "logs", root / f"{number:02d}")
        for output in folder.glob("*.json"):
            output.write_text(output.read_text() + "\n" * number)
    return root


def test_the_second_process_asks_for_the_logs_of_the_outputs_it_imports(archive, tmp_path):
    asked_for = tmp_path / "asked"
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(archive), str(asked_for)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]
    asked = asked_for.read_text().splitlines()
    assert sorted(asked) == sorted(discover([str(archive)]).log_paths)
