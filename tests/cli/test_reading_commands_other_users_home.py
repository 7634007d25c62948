"""Every command that only reads results serves a home another user owns (a colleague's lab, shared to read),
opening it read-only; a command that writes is refused there (issue 41: `bench/mutation.py` found the
`for_reading=True` of `report`, `export`, `diff-env`, `history` and `compare` held by no fast test: the
read-only home was tested end to end only, in a mount namespace). In process, no fio: the home is handed to
another uid with chown, which only root can do."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.test_format_matrix import FIO_JSON
from tests.in_process import iolab

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="handing a home to another uid needs root")

READING = [
    ("ls",),
    ("show", "1"),
    ("report", "1", "2"),
    ("compare", "1", "2"),
    ("history", "--min-runs", "2"),
    ("export", "--format", "csv"),
]


@pytest.fixture(scope="module")
def theirs(tmp_path_factory) -> Path:
    """A home of two imported runs, owned by uid 65534."""
    place = tmp_path_factory.mktemp("theirs")
    home = place / "home"
    for i in range(2):
        output = place / f"out{i}.json"
        output.write_text(FIO_JSON.read_text() + "\n" * (i + 1))
        assert iolab("import", str(output), env={"IOLAB_HOME": str(home)}).returncode == 0
    for path in [home, *home.rglob("*")]:
        os.chown(path, 65534, 65534, follow_symlinks=False)
    return home


@pytest.mark.parametrize("args", READING, ids=[a[0] for a in READING])
def test_a_reading_command_serves_another_users_home(theirs, args):
    done = iolab(*args, env={"IOLAB_HOME": str(theirs)})
    assert done.returncode == 0 and done.stdout, done.stderr
    assert {p.stat().st_uid for p in [theirs, *theirs.rglob("*")]} == {65534}  # nothing made there as root


def test_diff_env_reads_it_too_and_names_what_imported_runs_lack(theirs):
    done = iolab("diff-env", "1", "2", env={"IOLAB_HOME": str(theirs)})  # opened: its refusal is the runs'
    assert (
        done.returncode == 2
        and done.stderr == "iolab: run 1 has no host snapshot (imported, or made before iolab kept snapshots)\n"
    )


def test_a_writing_command_is_refused_there_naming_the_owner(theirs):
    done = iolab("tag", "1", "mine", env={"IOLAB_HOME": str(theirs)})
    assert done.returncode == 2 and "owned by uid 65534" in done.stderr and "Traceback" not in done.stderr
