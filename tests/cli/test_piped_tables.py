"""Tables sent to a pipe or a file keep every cell whole, as `show` always did (no `equival…`)."""

from __future__ import annotations

from pathlib import Path

from tests.iolab_cli import iolab

FIO_JSON = Path(__file__).resolve().parents[1] / "data" / "fio" / "randread-4jobs.json"


def test_compare_ls_and_show_on_a_pipe_are_not_cut(tmp_path):
    # The same output twice, the second saved with a trailing newline: other bytes, so a second run (the
    # same bytes again would name the run already holding them).
    again = tmp_path / "again.json"
    again.write_text(FIO_JSON.read_text() + "\n")
    for path in (FIO_JSON, again):
        assert iolab("import", str(path)).returncode == 0
    compared = iolab("compare", "1", "2")  # captured: stdout is a pipe
    assert compared.returncode == 0, compared.stderr
    assert "+0.0% (no interval at n = 1)" in compared.stdout  # the same output: no change, and no interval
    assert "not evaluated: no interval at n = 1: 2 runs per side give one, and a verdict" in compared.stdout
    assert "…" not in compared.stdout and "\x1b[" not in compared.stdout  # nothing cut, no colour codes
    for args in (["ls"], ["show", "1"]):
        out = iolab(*args).stdout
        assert "…" not in out and "\x1b[" not in out, out
