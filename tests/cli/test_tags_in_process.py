"""`iolab tag` and `iolab note` as a user sees them, in process: what one run carries after a change, how many
runs a change reached (all named up to ten, the first and last beyond), the old form's mistake refused with
the command meant, and a tag the old form put on a run taken off with --remove."""

from __future__ import annotations

import pytest

from tests.cli.test_format_matrix import FIO_JSON
from tests.in_process import iolab

RUNS = 12  # one past the ten runs a line names one by one, and one more for the tests of one run


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    place = tmp_path_factory.mktemp("tags")
    for i in range(RUNS):
        output = place / f"out{i}.json"
        output.write_text(FIO_JSON.read_text() + "\n" * (i + 1))
        assert iolab("import", str(output), env={"IOLAB_HOME": str(place / "home")}).returncode == 0
    return place / "home"


def _said(home, *args: str) -> str:  # type: ignore[no-untyped-def]
    done = iolab(*args, env={"IOLAB_HOME": str(home)})
    assert done.returncode == 0, done.stderr
    return done.stdout


def _refused(home, *args: str) -> str:  # type: ignore[no-untyped-def]
    done = iolab(*args, env={"IOLAB_HOME": str(home)})
    assert done.returncode == 2 and not done.stdout, (done.stdout, done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    return done.stderr.strip()


def test_tagging_one_run_says_every_tag_it_now_carries(home):
    assert _said(home, "tag", "12", "later") == "run 12: later\n"
    assert _said(home, "tag", "12", "base") == "run 12: base, later\n"
    assert _said(home, "tag", "--remove", "12", "base", "later") == "run 12: no tags\n"


def test_a_change_to_up_to_ten_runs_names_each_and_to_more_the_first_and_last(home):
    assert _said(home, "tag", "1-10", "ten") == "ten added to 10 runs (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)\n"
    assert _said(home, "tag", "1-11", "all") == "all added to 11 runs (1 ... 11)\n"
    assert _said(home, "tag", "--remove", "2,4", "ten", "all") == "ten, all removed from 2 runs (2, 4)\n"
    assert _said(home, "note", "5", "after BIOS 2.1") == "note added to run 5\n"
    assert _said(home, "note", "5-11", "new kernel") == "note added to 7 runs (5, 6, 7, 8, 9, 10, 11)\n"


def test_a_tag_written_like_runs_is_refused_with_the_command_meant(home):
    said = _refused(home, "tag", "4-5", "1", "q")
    assert said.endswith(
        "'1' is written like runs, not a tag: give every run in the first argument, e.g. `iolab tag 4-5,1 q`"
    ), said
    assert _refused(home, "tag", "6", "7", "8").endswith("e.g. `iolab tag 6,7,8 TAG`")
    assert _said(home, "ls", "--tag", "q", "--json") == "[]\n"  # nothing was tagged by the refusals


def test_a_tag_written_like_runs_comes_off_with_remove(home):
    """The old form put such tags on runs; removing them is the way out, so --remove takes them (here the run
    has no such tag, and says so: the tag was looked for, not refused for its form)."""
    assert _refused(home, "tag", "--remove", "12", "7") == "iolab: run 12 has no tag '7'; its tags: none"
