"""The option allowlist: every option the installed fio has is classified, and an unclassified one is refused."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from iolab.errors import UserError
from iolab.fio import option_table
from iolab.fio.option_table import COMMAND, HOST, OPTION_CLASSES, PATH, WRITES
from iolab.fio.options import (
    COMMAND_OPTIONS,
    DATA_ENGINES,
    PATH_OPTIONS,
    SYSTEM_OPTIONS,
    checked_option,
    unknown_options_allowed,
)
from iolab.models.job_options import WRITING_OPTIONS
from iolab.models.option_values import METADATA_ENGINES

_NAME = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*:", re.MULTILINE)


def _fio_names(*args: str) -> set[str]:
    out = subprocess.run(["fio", *args], capture_output=True, text=True, timeout=30, check=False).stdout
    return set(_NAME.findall(out))


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_every_option_of_the_installed_fio_is_classified():
    """A fio that grows an option fails here until the option is classified (an allowlist, not a denylist)."""
    names = _fio_names("--cmdhelp=all")
    assert len(names) > 150  # fio 3.33 lists 217; a parse that found nothing must not pass
    for engine in sorted(DATA_ENGINES | METADATA_ENGINES):
        names |= _fio_names(f"--enghelp={engine}") - {"IO engine"}
    missing = sorted(n for n in names if n not in OPTION_CLASSES)
    assert not missing, f"classify these in iolab/fio/option_table.py: {missing}"


def test_the_table_agrees_with_the_guard_s_own_lists():
    classes = {name: kind for name, (kind, _) in OPTION_CLASSES.items()}
    assert {n for n, k in classes.items() if k == WRITES} == set(WRITING_OPTIONS)
    assert all(classes[n] == COMMAND for n in COMMAND_OPTIONS)
    assert all(classes[n] == HOST for n in SYSTEM_OPTIONS)
    assert all(classes[n] == PATH for n in PATH_OPTIONS if n in classes)
    assert all(why for kind, why in OPTION_CLASSES.values() if kind != "harmless")


def test_an_unclassified_option_is_refused_by_name_unless_allowed(monkeypatch):
    monkeypatch.setattr(option_table, "OPTION_CLASSES", {k: v for k, v in OPTION_CLASSES.items() if k != "thinktime"})
    with pytest.raises(UserError, match="not classified|has not classified"):
        checked_option("thinktime", "10", "job")
    with unknown_options_allowed(True):
        assert checked_option("thinktime", "10", "job") == ("thinktime", "10")
    with pytest.raises(UserError, match="has not classified"):
        checked_option("thinktime", "10", "job")  # only for the block


@pytest.mark.parametrize("name", ["name", "profile", "verify_state_load", "replay_redirect", "wait_for"])
def test_options_that_name_paths_or_jobs_are_refused(name):
    with pytest.raises(UserError, match="does not pass"):
        checked_option(name, "x", "job")


def test_every_host_changing_option_s_files_are_in_the_manifest():
    """The generative test found fio writing /sys/block/vda/queue/scheduler for `ioscheduler=` (allowed with
    --allow-commands) outside the manifest: each HOST option that makes fio write a host file names it."""
    from iolab.runner.manifest import HOST_FILES

    host = {name for name, (kind, _) in OPTION_CLASSES.items() if kind == HOST}
    assert host - {"uid", "gid"} == set(HOST_FILES)  # uid and gid change who fio runs as, no file
