"""Root importing another user's results folder reads only what is in it: a link there to a root-only fio output
(its job names, host and command line would be stored and reported as the user's) is skipped as "a link another
user could change", whoever made the link, and a log link is not read either (`imports.discover`: each folder
held by a descriptor, each file opened from it without following a link). Uid 65534 is a forked child."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from iolab import guards
from iolab.fio.logs import read_logs
from iolab.imports.discover import discover
from tests.other_user import as_other_user, public_dir

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: uid 65534 acts as the other user")
OUTPUT = Path(__file__).parents[1] / "data" / "fio" / "randread-4jobs.json"
SECRET = "root-only-job-3f9c"


@pytest.fixture
def public() -> Iterator[Path]:
    """Root's 0755 directory in /tmp (uid 65534 can reach it), with a folder of theirs and a root-only one."""
    with public_dir("iolab-import-trust-") as top:
        (top / "private").mkdir(mode=0o700)
        (top / "private" / "run.json").write_text(OUTPUT.read_text().replace('"randread"', f'"{SECRET}"'))
        (top / "private" / "run_bw.1.log").write_text("1000, 4096, 0, 4096, 0\n")
        yield top


def test_a_link_in_another_users_folder_to_a_root_only_output_is_not_read(public):
    theirs = public / "theirs"
    secret = public / "private" / "run.json"
    before = secret.read_bytes()
    as_other_user(lambda: (theirs / "out.json").symlink_to(secret))
    os.symlink(secret, theirs / "roots-link.json")  # root's link, but uid 65534 could swap it: skipped too
    (theirs / "mine.json").write_bytes(OUTPUT.read_bytes())
    found = discover([str(theirs)])
    assert [c.path.name for c in found.candidates] == ["mine.json"]
    assert sorted(Path(p).name for p in found.skipped["a link another user could change"]) == [
        "out.json",
        "roots-link.json",
    ]
    assert all(SECRET not in c.text for c in found.candidates)
    assert secret.read_bytes() == before


def test_a_log_link_is_not_read(public):
    theirs = public / "theirs"
    as_other_user(lambda: (theirs / "out_bw.1.log").symlink_to(public / "private" / "run_bw.1.log"))
    assert read_logs(theirs, "out") == []


def test_a_hard_link_in_another_users_folder_to_a_root_only_output_or_log_is_not_read(public):
    """A hard link is another name of the same file: `O_NOFOLLOW` does not see it. Uid 65534 may make one to a file
    they cannot read wherever `fs.protected_hardlinks` is 0; root makes it here (the kernel lets root link anything),
    so the test needs no change to that setting."""
    theirs = public / "theirs"
    private = public / "private"
    before = (private / "run.json").read_bytes()
    os.link(private / "run.json", theirs / "out.json")
    os.link(private / "run_bw.1.log", theirs / "mine_bw.1.log")
    (theirs / "mine.json").write_bytes(OUTPUT.read_bytes())
    found = discover([str(theirs)])
    assert [c.path.name for c in found.candidates] == ["mine.json"]
    assert [Path(p).name for p in found.skipped["a hard link someone else could have made"]] == ["out.json"]
    assert read_logs(theirs, "mine") == []
    assert (private / "run.json").read_bytes() == before
    with guards.switched_off("import-hard-links"):  # the check is what stops it
        assert SECRET in "".join(c.text for c in discover([str(theirs)]).candidates)
        assert read_logs(theirs, "mine") != []


def test_a_users_own_file_with_two_names_in_their_folder_is_read(public):
    theirs = public / "theirs"
    as_other_user(lambda: (theirs / "run.json").write_bytes(OUTPUT.read_bytes()))
    as_other_user(lambda: os.link(theirs / "run.json", theirs / "copy.json"))
    assert sorted(c.path.name for c in discover([str(theirs)]).candidates) == ["copy.json", "run.json"]


def test_a_hard_link_in_a_sticky_folder_anyone_may_write_is_not_read(public):
    """Root's /tmp-like folder (1777): the root-only output's owner is the folder's, but anyone may add a name."""
    shared = public / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    os.link(public / "private" / "run.json", shared / "out.json")
    found = discover([str(shared)])
    assert found.candidates == [] and [
        Path(p).name for p in found.skipped["a hard link someone else could have made"]
    ] == ["out.json"]
