"""The option table (`iolab.models.option_spec`): every option the installed fio has has a row, the rows say
what fio says, every rule derives from them, and an option without a row is refused."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.fio.options import PATH_OPTIONS, TARGET_OPTIONS, checked_option, effects, unknown_options_allowed
from iolab.models.job_options import JobOptions
from iolab.models.option_spec import (
    ALIASES,
    COMMAND,
    ENGINE,
    HARMLESS,
    HOST,
    PATH,
    ROWS,
    SPECS,
    TARGET,
    WRITES,
    canonical,
    default,
    in_seconds,
)


def test_one_row_per_option_and_no_alias_is_a_name():
    assert len(SPECS) == len(ROWS)
    assert not set(ALIASES) & set(SPECS)
    assert len(ALIASES) == sum(len(row.aliases) for row in ROWS)
    assert all(row.why for row in ROWS if row.safety != HARMLESS)


def test_every_rule_reads_the_row():
    """The guard's lists, the aliases, the defaults and the seconds are the rows' and nothing else."""
    assert TARGET_OPTIONS == {row.name for row in ROWS if row.safety == TARGET}
    assert set(PATH_OPTIONS) == {row.name for row in ROWS if row.safety == PATH} - {"mem", "filename_format"}
    assert all(canonical(alias) == row.name for row in ROWS for alias in row.aliases)
    assert JobOptions({}).rw == default("rw") == "read" and JobOptions({}).engine == default("ioengine") == "psync"
    assert in_seconds("timeout") and in_seconds("ramp_time") and not in_seconds("bs")
    writing = [row for row in ROWS if row.safety == WRITES]
    for row in writing:  # each WRITES row makes a job write, saying why
        assert JobOptions({"rw": "read", row.aliases[0] if row.aliases else row.name: "1"}).write_reasons == [
            f"{row.name}=1 {row.why}"
        ]
    for row in ROWS:  # each COMMAND or HOST row (but the engine, judged by name) is a command
        if row.safety in (COMMAND, HOST) and row.check != ENGINE:
            assert effects({row.name: "x"}).commands, row.name


def test_a_row_taken_out_is_gone_from_every_rule(monkeypatch):
    """A fio newer than the table: `unlink` without its row is refused by name (the allowlist), its alias too."""
    monkeypatch.delitem(SPECS, "fill_device")
    for name in ("fill_device", "fill_fs"):
        with pytest.raises(UserError, match="has not classified"):
            checked_option(name, "1", "job")
    monkeypatch.delitem(SPECS, "unlink")
    with pytest.raises(UserError, match="has not classified"):
        checked_option("unlink", "1", "job")


def test_an_unclassified_option_is_refused_by_name_unless_allowed(monkeypatch):
    monkeypatch.delitem(SPECS, "thinktime")
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

    host = {row.name for row in ROWS if row.safety == HOST}
    assert host - {"uid", "gid"} == set(HOST_FILES)  # uid and gid change who fio runs as, no file
