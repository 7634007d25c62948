"""Where a command's output goes, in process: `-o FILE` writes the page into FILE (private, 0600) and says so
on stderr, printing nothing; `history --html FILE` alone prints nothing either; a file that cannot be written
is refused in one line with the OS's reason and the option to change; `--json` with another format is two
formats asked for; `--json --format json` is one."""

from __future__ import annotations

import json
import os

import pytest

from tests.cli.test_format_matrix import FIO_JSON
from tests.in_process import iolab


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    place = tmp_path_factory.mktemp("output")
    assert iolab("import", str(FIO_JSON), env={"IOLAB_HOME": str(place / "home")}).returncode == 0
    return place / "home"


def _iolab(home, *args: str):  # type: ignore[no-untyped-def]
    return iolab(*args, env={"IOLAB_HOME": str(home)})


def test_output_goes_into_the_file_named_and_only_a_line_says_so(home, tmp_path):
    page = tmp_path / "page.txt"
    done = _iolab(home, "show", "1", "-o", str(page))
    assert done.returncode == 0 and done.stdout == "" and done.stderr == f"wrote {page}\n"
    assert page.read_text() == _iolab(home, "show", "1").stdout
    assert os.stat(page).st_mode & 0o777 == 0o600


def test_a_page_asked_for_into_a_file_only_prints_nothing(home, tmp_path):
    page = tmp_path / "page.html"
    done = _iolab(home, "history", "--html", str(page))
    assert done.returncode == 0 and done.stdout == "" and done.stderr == f"wrote {page}\n"
    assert page.read_text().startswith("<!DOCTYPE html>")
    both = _iolab(home, "history", "--html", str(page), "--format", "json")
    assert both.returncode == 0 and isinstance(json.loads(both.stdout), dict | list)


@pytest.mark.parametrize(
    ("args", "option"), [(["ls", "-o"], "--output"), (["history", "--html"], "--html")], ids=["ls", "history"]
)
def test_a_file_that_cannot_be_written_is_refused_with_the_os_reason(home, tmp_path, args, option):
    where = tmp_path / "missing" / "page"
    done = _iolab(home, *args, str(where))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"iolab: cannot write the report to {where}: No such file or directory; choose another {option}\n"
    )


def test_json_and_another_format_are_two_formats(home):
    done = _iolab(home, "show", "1", "--json", "--format", "csv")
    assert done.returncode == 2 and done.stderr == "iolab: --json and --format csv ask for two formats: give one\n"
    same = _iolab(home, "show", "1", "--json", "--format", "json")
    assert same.returncode == 0 and same.stdout == _iolab(home, "show", "1", "--json").stdout
