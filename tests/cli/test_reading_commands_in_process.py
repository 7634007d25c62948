"""Every command that prints, run in process as a user types it: with no output option it prints the text
table (not JSON), and every command that only reads works on a home it may not write (a colleague's lab,
read-only media) the same as on its own, while a command that writes is refused there in one line.

The commands are read from the command tree (`tests/cli/test_format_matrix.py`'s PRINTING), so a command
added later is held here at once."""

from __future__ import annotations

import json
import os

import pytest

from tests.cli.test_format_matrix import ARGUMENT_WORDS, OPTION_WORDS, PRINTING, _params
from tests.cli.test_format_matrix_in_process import two_imports
from tests.in_process import iolab

COMMANDS = [path for path in PRINTING if path != ("run",)]
# the commands that only read the store (probe, doctor and lint read the host or a job file, not the store)
READING = [path for path in COMMANDS if path[0] not in ("probe", "doctor", "lint")]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A home of two imports of one real fio output, each with this host's snapshot; a job file for `lint`."""
    return two_imports(tmp_path_factory.mktemp("reading"))


def _argv(lab, path: tuple[str, ...]) -> list[str]:  # type: ignore[no-untyped-def]
    words = [w for p in _params(path) if p.param_type_name == "argument" for w in ARGUMENT_WORDS[p.name]]
    return [*path, *(w.format(job=lab / "job.fio", data=lab) for w in words), *OPTION_WORDS.get(path, [])]


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def test_the_reading_commands_are_most_of_them():
    assert {("show",), ("report",), ("compare",), ("history",), ("export",), ("ls",), ("diff-env",)} <= set(READING)


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_a_command_given_no_format_prints_its_text(path, lab):
    """... or, for `export` (which has no text), refuses in one line naming the formats it writes."""
    done = iolab(*_argv(lab, path), env={"IOLAB_HOME": str(lab / "home")}, cwd=lab)
    if path == ("export",):
        assert done.returncode == 2 and not done.stdout, done.stdout[:300]
        assert done.stderr.strip().endswith("has no text form: give --format json or csv or prometheus"), done.stderr
        return
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() and not _is_json(done.stdout), done.stdout[:300]


@pytest.mark.parametrize("path", READING, ids=" ".join)
def test_a_reading_command_reads_a_home_others_may_write_as_its_own(path, lab):
    """Such a home is refused for writing (anyone could have planted its rows); reading it deletes nothing, so
    it opens read-only and prints what the same home prints when private."""
    env = {"IOLAB_HOME": str(lab / "home")}
    argv = [*_argv(lab, path), "--format", "json"]
    private = iolab(*argv, env=env, cwd=lab)
    os.chmod(lab / "home", 0o777)
    try:
        shared = iolab(*argv, env=env, cwd=lab)
        refused = iolab("tag", "1", "seen", env=env, cwd=lab)
    finally:
        os.chmod(lab / "home", 0o700)
    assert private.returncode == 0 and shared.returncode == 0, shared.stderr
    assert json.loads(shared.stdout) == json.loads(private.stdout)
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
