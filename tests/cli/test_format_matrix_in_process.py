"""Every command that prints, but `run` (which starts fio: tests/cli/test_format_matrix.py), in every format,
in process: it renders (JSON that parses, CSV with a header and rows of its width, a whole HTML page ...) or
refuses in one line, exit 2, naming a format that works. The same matrix as the end-to-end one, read from
the command tree, so the fast tier reaches every renderer of every view (issue 41 item 8)."""

from __future__ import annotations

import re

import pytest

from iolab.report.formats import FORMATS
from tests.cli.test_format_matrix import FIO_JSON, JOB, PRINTING, VALID, _argv, _invoke
from tests.in_process import iolab

COMMANDS = [path for path in PRINTING if path != ("run",)]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A store of two imports of one real fio output, each with this host's snapshot; a job file for `lint`."""
    place = tmp_path_factory.mktemp("formats")
    again = place / "again.json"
    again.write_text(FIO_JSON.read_text() + "\n")
    for path in (FIO_JSON, again):
        done = iolab("import", "--snapshot", str(path), env={"IOLAB_HOME": str(place / "home")})
        assert done.returncode == 0, done.stderr
    (place / "job.fio").write_text(JOB)
    (place / "data").mkdir()
    return place


def test_the_matrix_leaves_out_only_run():
    assert len(COMMANDS) == len(PRINTING) - 1 >= 10


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_a_command_renders_a_format_or_refuses_naming_one_that_works(path, fmt, lab, capsys, monkeypatch):
    monkeypatch.setenv("IOLAB_HOME", str(lab / "home"))
    monkeypatch.chdir(lab)
    code, out, err = _invoke(_argv(lab, path, fmt), capsys, monkeypatch)
    if code == 0:
        assert VALID[fmt](out), (fmt, out[:400])
        return
    assert code == 2, (code, err)
    (line,) = [line for line in err.splitlines() if line.strip()]
    named = re.search(r"cannot write .*: choose one of ([a-z, ]+)$", line)
    assert named, line
    works = named[1].split(", ")[0]
    assert works != fmt and works in FORMATS
