"""Ctrl-C in the middle of a large `iolab import`: what was stored is kept and described, the exit is 3 with one
line, the parsing process goes with it, and importing the same folder again stores only the rest."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests import in_process
from tests.iolab_cli import as_in_a_terminal, iolab

DATA = Path(__file__).parent.parent / "data" / "fio"
FILES = 500  # four batches (BATCH = 100) still to store when the first is committed and Ctrl-C is sent


def _points(db: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.2)
        try:
            return conn.execute("SELECT COUNT(*) FROM points WHERE status = 'ok'").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0  # not made yet, or busy


def test_an_interrupted_import_keeps_its_batches_and_says_so(tmp_path):
    archive = tmp_path / "archive"
    archive.mkdir()
    text = (DATA / "randread-4jobs.json").read_text()
    for number in range(FILES):  # each copy other bytes, so each is a file of its own
        (archive / f"{number:04d}.json").write_text(text + "\n" * number)
    db = Path(os.environ["IOLAB_HOME"]) / "iolab.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "iolab", "import", str(archive)],
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=as_in_a_terminal,
    )
    deadline = time.monotonic() + 120
    while _points(db) < 100 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)  # until the first batch of files is committed
    assert proc.poll() is None, "the import ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    # stderr closes only when every process holding it has ended: the parsing process too
    _, err = proc.communicate(timeout=60)
    lines = [ln for ln in err.splitlines() if not ln.startswith("import ")]  # the progress line aside
    assert proc.returncode == 3, err
    assert "Traceback" not in err and len(lines) == 1 and "import interrupted" in lines[0], err
    kept = _points(db)
    assert 100 <= kept < FILES and f"{kept} files in run 1 stored and kept" in lines[0]
    listed = in_process.iolab("ls").stdout
    assert "import fio-3.33" in listed and "interrupted" in listed, listed  # described, not left "import fio"
    again = iolab("import", str(archive))
    assert again.returncode == 0, again.stderr
    assert f"Imported {FILES - kept} points from {FILES - kept} files as run 2" in again.stderr
    assert "Already imported as run 1" in again.stderr
