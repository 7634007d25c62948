"""Each command's options at their defaults, in process (issue 41: `bench/mutation.py` found option defaults
flipped with no fast test failing, because the fast tests always gave the option: `doctor` and `ls` were run
with --json only, `clean` with nothing to remove, `--rules-md` read for its start). A command run without an
option must do what its help says the default does, and with it the other thing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from iolab.doctor import rules_markdown
from iolab.store.db import open_store
from tests.cli.test_format_matrix import FIO_JSON
from tests.in_process import iolab
from tests.runner.test_workdirs import _killed_run

SYSROOT = Path(__file__).resolve().parents[1] / "data" / "sysroots" / "vm-amd"


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("command", ["doctor", "probe"])
def test_a_host_command_prints_text_unless_asked_for_json(command):
    text = iolab(command, "--root", str(SYSROOT))
    as_json = iolab(command, "--root", str(SYSROOT), "--json")
    assert text.returncode == as_json.returncode == 0, text.stderr + as_json.stderr
    assert not _is_json(text.stdout) and text.stdout.strip()
    assert _is_json(as_json.stdout)


def test_ls_prints_its_table_unless_asked_for_json(tmp_path):
    env = {"IOLAB_HOME": str(tmp_path / "home")}
    assert iolab("import", str(FIO_JSON), env=env).returncode == 0
    text, as_json = iolab("ls", env=env), iolab("ls", "--json", env=env)
    assert text.returncode == as_json.returncode == 0
    assert not _is_json(text.stdout) and [run["id"] for run in json.loads(as_json.stdout)] == [1]


def test_the_rule_catalogue_is_printed_exactly_as_docs_rules_md_is_made_from_it():
    shown = iolab("doctor", "--rules-md")
    assert shown.returncode == 0 and shown.stdout == rules_markdown()


def test_clean_removes_a_killed_runs_scratch_and_with_dry_run_only_lists_it(tmp_path, iolab_home):
    store = open_store()
    run = _killed_run(store)
    left = tmp_path / "iolab-scratch-0a1b2c.dat"
    scratch_id = store.record_scratch(run, str(left), "file")
    left.write_bytes(b"\0" * 4096)
    info = os.lstat(left)
    store.scratch_created(scratch_id, info.st_dev, info.st_ino)
    store.close()
    dry = iolab("clean", "--dry-run")
    assert dry.returncode == 0 and dry.stdout == f"would remove {left}\n" and left.exists()
    done = iolab("clean")
    assert done.returncode == 0 and done.stdout == f"removed {left}\n" and not left.exists()
    again = iolab("clean")
    assert again.stdout == "nothing to clean: no scratch or host settings left by killed runs\n"
