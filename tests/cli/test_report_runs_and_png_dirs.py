"""`report`'s runs given more than once are reported once, and `--png` writes into a directory that exists
or whose parents do not yet (issue 41: `bench/mutation.py` found `mkdir(parents=True, exist_ok=True)` and
the run list's de-duplication held by no fast test: the one --png test wrote into a new directory of an
existing parent). In process, on imports of a real fio output."""

from __future__ import annotations

import json

import pytest

from iolab.cli.report import write_pngs
from tests.cli.test_format_matrix import FIO_JSON
from tests.in_process import iolab


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    place = tmp_path_factory.mktemp("report")
    assert iolab("import", str(FIO_JSON), env={"IOLAB_HOME": str(place / "home")}).returncode == 0
    return place / "home"


def test_a_run_named_thrice_is_reported_once(home):
    done = iolab("report", "1", "1-1", "last", "--json", env={"IOLAB_HOME": str(home)})
    assert done.returncode == 0, done.stderr
    assert [run["id"] for run in json.loads(done.stdout)["runs"]] == [1]


@pytest.mark.parametrize("where", ["exists", "a/b/c"])
def test_png_charts_go_into_a_directory_that_exists_or_whose_parents_do_not(tmp_path, capsys, where):
    charts = tmp_path / where
    if where == "exists":
        charts.mkdir()
        (charts / "old.png").write_bytes(b"")
    write_pngs([], charts, [])  # no charts to draw: the directory is what is checked
    assert charts.is_dir() and capsys.readouterr().err == f"wrote 0 charts into {charts}\n"
