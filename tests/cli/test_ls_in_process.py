"""`iolab ls` on the command line, in process: its options' bounds as its help states them (a page of 50 runs
unless told, at least one run a page, `--before` any run id from 1), the page a user asks for, and the line
naming the next page."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_format_matrix import FIO_JSON
from tests.in_process import iolab


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """Three runs (imports of one real fio output)."""
    place = tmp_path_factory.mktemp("ls")
    for i in range(3):
        output = place / f"out{i}.json"
        output.write_text(FIO_JSON.read_text() + "\n" * (i + 1))
        assert iolab("import", str(output), env={"IOLAB_HOME": str(place / "home")}).returncode == 0
    return place / "home"


def _ls(home, *args: str):  # type: ignore[no-untyped-def]
    return iolab("ls", *args, env={"IOLAB_HOME": str(home)})


def test_the_help_states_a_page_of_fifty_and_the_bounds(home):
    said = " ".join(_ls(home, "--help").stdout.split())
    assert "Show at most this many runs, newest first. [default: 50; x>=1]" in said
    assert "Only runs older than this one: the next page. [x>=1]" in said


def test_the_smallest_page_and_the_oldest_run_are_taken(home):
    one = _ls(home, "--limit", "1", "--json")
    assert one.returncode == 0 and [r["id"] for r in json.loads(one.stdout)] == [3]
    before = _ls(home, "--before", "1")
    assert before.returncode == 0 and before.stdout == "No runs older than run 1.\n"
    refused = _ls(home, "--limit", "0")
    assert refused.returncode == 2 and "--limit" in refused.stderr and not refused.stdout


def test_a_page_names_the_next_with_its_own_limit(home):
    page = _ls(home, "--limit", "2")
    assert page.returncode == 0
    assert page.stdout.splitlines()[-1] == (
        "1 older run not shown: `iolab ls --before 2 --limit 2` lists the next 1, `--limit N` more at once"
    )
    whole = _ls(home, "--limit", "3")
    assert whole.returncode == 0 and "not shown" not in whole.stdout and "--before" not in whole.stdout


def test_every_format_of_a_page_names_what_it_leaves_out(home):
    markdown = _ls(home, "--limit", "2", "--format", "markdown").stdout
    assert markdown.endswith("\n\nOlder runs: `iolab ls --before 2 --limit 2`\n")
    assert [line.split(" | ")[0] for line in markdown.splitlines()[2:4]] == ["| 3", "| 2"]
    whole = _ls(home, "--format", "markdown").stdout
    assert "Older runs" not in whole and len(whole.splitlines()) == 2 + 3


@pytest.mark.parametrize(
    ("fmt", "said"),
    [
        ("text", "No run is tagged 'nightly'.\n"),
        ("markdown", "No run is tagged 'nightly'.\n"),
        ("json", "[]\n"),
        (
            "csv",
            "run_id,started_at,finished_at,status,label,host,targets,points_planned,points_done,points_failed,"
            "tags,notes,imported\n",
        ),
    ],
)
def test_an_empty_page_says_why_or_holds_nothing(home, fmt, said):
    done = _ls(home, "--tag", "nightly", "--format", fmt)
    assert done.returncode == 0 and done.stdout == said
