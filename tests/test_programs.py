"""Programs iolab runs are found on PATH by `iolab.programs.find` and refused where another user could have put
them (`program-owner-chain`): a `fio` uid 65534 plants first on root's PATH, run as root, would append to a
root-only file; `iolab run --dry-run` (which asks fio for its options) must refuse in two lines, exit 2, and
the file keep its checksum. Uid 65534 is a forked child that drops to it. Switched off, the planted fio runs:
`planted-program` of tests/safety_attacks.py."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest

from iolab import programs
from iolab.errors import UserError
from iolab.fio import catalog
from tests.in_process import assert_clean_error, iolab
from tests.other_user import as_other_user, public_dir

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: uid 65534 acts as the other user")


@pytest.fixture
def public() -> Iterator[Path]:
    """A root directory in /tmp uid 65534 can reach (tmp_path's parents are 0700), holding a directory of theirs."""
    with public_dir("iolab-programs-") as top:
        yield top


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    secret = tmp_path / "root-only"
    secret.write_bytes(os.urandom(4096))
    secret.chmod(0o600)
    return secret


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _plant(bindir: Path, name: str, victim: Path) -> None:
    """uid 65534's `name` in `bindir`: run as root, it appends to `victim`."""

    def write() -> None:
        program = bindir / name
        program.write_text(f'#!/bin/sh\nprintf planted >> "{victim}"\nexit 1\n')
        program.chmod(0o755)

    as_other_user(write)


def _bindir(public: Path, where: str) -> Path:
    if where == "their directory":
        return public / "theirs"
    bindir = public / "bin"
    bindir.mkdir()
    bindir.chmod(0o777 if where == "open to all" else 0o1777)
    return bindir


@pytest.mark.parametrize("where", ["their directory", "open to all", "their file in a sticky directory"])
def test_a_fio_another_user_put_first_on_path_is_refused_and_never_run(public, tmp_path, victim, where):
    bindir = _bindir(public, where)
    _plant(bindir, "fio", victim)
    before = _digest(victim)
    job = tmp_path / "r.fio"
    job.write_text("[r]\nrw=read\nsize=64k\n")
    target = tmp_path / "data"
    target.write_bytes(bytes(64 << 10))
    with mock.patch.dict(os.environ, {"PATH": f"{bindir}:{os.environ['PATH']}"}):
        catalog.clear_cache()
        try:
            said = assert_clean_error(iolab("run", "--dry-run", str(job), str(target)))
        finally:
            catalog.clear_cache()
    assert len(said.strip().splitlines()) == 2, said
    assert f"{bindir}/fio" in said and "another user could change what iolab runs there" in said
    assert f"take {bindir} off PATH" in said
    assert _digest(victim) == before


def test_a_probe_command_another_user_put_on_path_is_refused(public, victim):
    _plant(public / "theirs", "nvme", victim)
    before = _digest(victim)
    with mock.patch.dict(os.environ, {"PATH": f"{public / 'theirs'}:{os.environ['PATH']}"}):
        with pytest.raises(UserError, match="is owned by uid 65534"):
            programs.command(["nvme", "list"])
    assert _digest(victim) == before


def test_a_program_in_directories_of_roots_is_run_by_its_resolved_path(tmp_path):
    """A link in root's directory to the system's fio is resolved once: what runs is the file checked."""
    system = shutil.which("fio")
    assert system is not None
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "fio").symlink_to(system)
    with mock.patch.dict(os.environ, {"PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"}):
        assert programs.find("fio") == os.path.realpath(system)
        assert programs.command(["fio", "--version"]) == [os.path.realpath(system), "--version"]
    assert programs.find("no-such-program-anywhere") is None
    assert programs.command(["no-such-program-anywhere", "x"]) == ["no-such-program-anywhere", "x"]
