"""Root running any command (`run`, `clean`, `import`, and the reading ones: `ls`, `show`, `report`, `history`,
`doctor`) from a Python another user could change is refused in two lines, exit 2, before the command does anything
(`programs.check_root_python`, root-python-owner): their module imported as the command goes on, or their
interpreter at the next run, would run as root. Help is held too: a word that reads as help can be an option's value;
a user who is not root runs their own Python as themselves. Uid 65534's directory on
the module path stands for a venv of theirs; none of their files is run here."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from iolab import guards, programs
from iolab.errors import UserError
from tests.in_process import assert_clean_error, iolab
from tests.other_user import public_dir

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: a directory of uid 65534 on root's path")
OUTPUT = Path(__file__).parents[1] / "data" / "fio" / "randread-4jobs.json"


@pytest.fixture
def theirs_on_the_path(monkeypatch) -> Iterator[Path]:
    """uid 65534's directory, last on the module path (as a site-packages of their venv would be)."""
    with public_dir("iolab-root-python-") as top:
        monkeypatch.setattr(sys, "path", [*sys.path, str(top / "theirs")])
        yield top / "theirs"


COMMANDS = [
    ["import", str(OUTPUT)],
    ["clean"],
    ["run", "--dry-run"],
    ["agent"],
    ["ls"],
    ["show", "1"],
    ["report", "1"],
    ["history"],
    ["doctor"],
    ["note", "1", "--", "--help"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_any_command_as_root_from_a_path_another_user_can_change_is_refused(
    theirs_on_the_path, tmp_path, monkeypatch, command
):
    """Each refused before it does anything: the store it would read or write is not even made."""
    monkeypatch.setenv("IOLAB_HOME", str(tmp_path / "home"))
    said = assert_clean_error(iolab(*command))
    assert str(theirs_on_the_path) in said and "owned by uid 65534" in said
    assert not (tmp_path / "home").exists()


def test_every_other_write_checks_it_too(theirs_on_the_path, tmp_path, monkeypatch):
    """Commands that write without a check of their own (tag, note, report -o, --png) are held to it where they
    write: by a private file write and by a store opened for writing."""
    from iolab.private import write_private
    from iolab.store.db import open_store

    monkeypatch.setenv("IOLAB_HOME", str(tmp_path / "home"))
    for write in (lambda: write_private(tmp_path / "report.md", "x"), lambda: open_store()):
        with pytest.raises(UserError, match="owned by uid 65534"):
            write()
    assert not (tmp_path / "report.md").exists() and not (tmp_path / "home").exists()
    assert iolab("tag", "1", "baseline").returncode == 2


def test_switched_off_the_import_runs_from_their_path(theirs_on_the_path, tmp_path):
    with guards.switched_off("root-python-owner"):
        done = iolab("import", str(OUTPUT))
    assert done.returncode == 0, done.stderr


def test_a_word_that_reads_as_help_does_not_pass_it_and_a_user_who_is_not_root_is_not_held(
    theirs_on_the_path, monkeypatch
):
    """No word of the command line lets a command past the check: "-h" as an option's value (`doctor --json -h`
    is not help to click where an option takes it) ran the command unchecked when help was let through by its
    words; help itself is held too (it costs ~2 ms, and this Python is still theirs)."""
    for words in (["import", "--help"], ["ls", "-h"], ["--help"], ["agent", "--fio", "-h"]):
        said = assert_clean_error(iolab(*words))
        assert "owned by uid 65534" in said, words
    monkeypatch.setattr(programs.os, "geteuid", lambda: 1000)
    assert programs.root_python_refusal() is None
