"""What the command line tells its user, in process (`tests.in_process`, no fio): the help a bare `iolab`
prints, the pages `ls --before` takes, what tagging one run says, who may drive a served socket, and the
OS's reason when --png cannot be made (issue 41's mutation survivors in cli/)."""

from __future__ import annotations

import json

import pytest

from iolab.cli import agent
from iolab.cli.report import write_pngs
from iolab.errors import UserError
from iolab.store.db import open_store
from tests.in_process import assert_clean_error, iolab


def test_a_bare_iolab_prints_its_help_listing_the_commands():
    shown = iolab()
    text = shown.stdout + shown.stderr
    assert "Missing command" not in text and "Error" not in text
    assert "Usage: iolab" in text and " run " in text and " ls " in text


def _runs(home, count: int) -> list[int]:
    store = open_store(home)
    ids = [store.create_run(f"r{i}", "iolab run plan.toml", ["/mnt/x"], "fio-3.33") for i in range(count)]
    store.close()
    return ids


def test_ls_before_pages_back_down_to_the_first_run_and_refuses_zero(iolab_home):
    ids = _runs(iolab_home, 3)
    for before in (1, 2, 3, 4):
        listed = iolab("ls", "--before", str(before), "--json")
        assert listed.returncode == 0, listed.stderr
        assert [r["id"] for r in json.loads(listed.stdout)] == [i for i in reversed(ids) if i < before]
    assert "--before" in assert_clean_error(iolab("ls", "--before", "0"))


def test_tagging_one_run_prints_that_runs_tags(iolab_home):
    (first, _) = _runs(iolab_home, 2)
    assert iolab("tag", str(first), "baseline").stdout.strip() == f"run {first}: baseline"
    assert iolab("tag", str(first), "before").stdout.strip() == f"run {first}: baseline, before"
    assert iolab("tag", str(first), "before", "baseline", "--remove").stdout.strip() == f"run {first}: no tags"


@pytest.mark.parametrize("euid", [0, 1000])
def test_a_served_socket_names_who_can_drive_it(monkeypatch, euid):
    monkeypatch.setattr(agent.os, "geteuid", lambda: euid)
    monkeypatch.setattr(agent, "_user", lambda: "alice")
    assert agent._who() == ("root" if euid == 0 else "alice and root")


def test_a_png_directory_that_cannot_be_made_names_the_os_reason_and_the_fix(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(UserError) as refused:
        write_pngs([], blocker / "charts", [])
    assert (
        str(refused.value)
        == f"cannot create {blocker / 'charts'} for the PNG charts: Not a directory; choose another --png"
    )
