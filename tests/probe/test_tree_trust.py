"""A captured tree root reads (`iolab doctor --root DIR`, `iolab probe --root DIR`, a bundle's unpacked copy) may
lie where another user can write. The tape used to check each name (is it a link?) and then read it by its path
from the tree's top, so the OS looked every directory on the way up again: uid 65534, owning the tree, swapped
`proc` for a link to a root-only directory between the check and the read, and root's snapshot printed the
root-only file (as its /proc/cmdline) and the names in a root-only directory (as its IOMMU units).

Two things now stand in the way (`iolab.probe.tree`): a tree another user owns or may write (a directory from /
down to it, or one inside it that is read) is refused in two lines, exit 2 (`input-owner-chain`); and every look
inside a tree walks from a descriptor of its top, one component at a time, O_NOFOLLOW, reading only a regular
file (O_NONBLOCK, bounded) and never resolving a path again (`tree-no-follow`). The attacks here are uid
65534's own (a forked child that drops to it), timed by a hook at the moment the tape has decided a directory
is no link; the root-only files are checksummed before and after, and their bytes and names looked for in
everything root printed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest

from iolab import guards
from iolab.errors import UserError
from iolab.probe import Root, take_snapshot
from iolab.probe.tape import Tape
from tests.other_user import OTHER, as_other_user

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: uid 65534 acts as the other user")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Place:
    """A directory in /tmp uid 65534 can reach: root's secrets (0700) and uid 65534's home holding their tree."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self.secret = top / "secret"
        self.home = top / "home"
        self.word = secrets.token_hex(8)  # what root-only files hold, looked for in everything printed
        self.secret.mkdir(mode=0o700)
        (self.secret / "cmdline").write_text(f"root-only {self.word}\n")
        (self.secret / "cmdline").chmod(0o600)
        (self.secret / "iommu").mkdir()
        (self.secret / "iommu" / f"private-{self.word}").write_text("")
        self.home.mkdir()
        os.chown(self.home, OTHER, OTHER)
        as_other_user(lambda: _tree(self.home / "tree"))
        self.digests = self.checksums()

    @property
    def tree(self) -> Path:
        return self.home / "tree"

    def checksums(self) -> dict[str, str]:
        return {str(p): _digest(p) for p in self.secret.rglob("*") if p.is_file()}


def _tree(tree: Path) -> None:
    """A small captured host: its command line and one IOMMU unit."""
    (tree / "proc").mkdir(parents=True)
    (tree / "proc" / "cmdline").write_text("quiet\n")
    (tree / "sys" / "class" / "iommu" / "dmar0").mkdir(parents=True)


@pytest.fixture
def place() -> Iterator[Place]:
    top = Path(tempfile.mkdtemp(prefix="iolab-tree-trust-", dir="/tmp"))
    top.chmod(0o755)  # tmp_path's parents are 0700: uid 65534 could not reach its home there
    try:
        yield Place(top)
    finally:
        import shutil

        shutil.rmtree(top, ignore_errors=True)


def _swap_when_checked(place: Place, below: str, component: str) -> mock._patch:
    """Once the tape's walk to `below` has decided every directory above it is no link (as it is about to look
    at `below` itself), uid 65534 swaps the tree's `component` (a directory above `below`) for a link to the
    root-only directory beside the tree: the moment between check and read."""
    real = Tape._link
    done: list[str] = []

    def swap_then_link(tape: Tape, looked: str) -> str | None:
        if looked == below and not done:
            done.append(below)
            where = place.tree / component

            def swap() -> None:
                where.rename(where.with_name(where.name + ".kept"))
                where.symlink_to(place.secret)

            as_other_user(swap)
        return real(tape, looked)

    return mock.patch.object(Tape, "_link", swap_then_link)


def _printed(root: Root) -> str:
    return json.dumps(take_snapshot(root).to_dict())


def test_a_tree_another_user_owns_is_refused_in_two_lines(place):
    with pytest.raises(UserError) as refused:
        Root(place.tree)
    message = str(refused.value)
    assert len(message.splitlines()) == 2 and f"uid {OTHER}" in message and "Fix:" in message
    assert place.word not in message and place.checksums() == place.digests


@pytest.mark.parametrize(("below", "component"), [("/proc/cmdline", "proc"), ("/sys/class/iommu", "sys/class")])
def test_a_directory_swapped_for_a_link_after_its_check_is_never_followed(place, below, component):
    """With the owner rule switched off, as if the tree were root's and root's own process swapped it: the
    walk from the tree's descriptor meets the link and goes no further (refused, or not read)."""
    with guards.switched_off("input-owner-chain"), _swap_when_checked(place, below, component):
        try:
            printed = _printed(Root(place.tree))
        except UserError as refused:
            printed = str(refused)
            assert len(printed.splitlines()) <= 2 and "capture it again" in printed
    assert place.word not in printed, "a root-only file or name read through uid 65534's link"
    assert os.path.islink(place.tree / component), "the attack did not happen"
    assert place.checksums() == place.digests


def test_with_both_off_the_swap_leaks(place):
    """The attack is real: with both guards off, root prints the root-only file's bytes."""
    with guards.switched_off("input-owner-chain", "tree-no-follow"), _swap_when_checked(place, "/proc/cmdline", "proc"):
        assert place.word in _printed(Root(place.tree))


def test_a_file_swapped_for_a_fifo_is_not_waited_on(place):
    """uid 65534 swaps /proc/cmdline for a FIFO after it was checked: read as unreadable, never blocked on."""
    real = Tape._link

    def link_then_fifo(tape: Tape, looked: str) -> str | None:
        answer = real(tape, looked)
        if looked == "/proc/cmdline" and not (place.tree / "proc" / "cmdline.kept").exists():
            target = place.tree / "proc" / "cmdline"

            def fifo() -> None:
                target.rename(target.with_name("cmdline.kept"))
                os.mkfifo(target)

            as_other_user(fifo)
        return answer

    with guards.switched_off("input-owner-chain"), mock.patch.object(Tape, "_link", link_then_fifo):
        snap = take_snapshot(Root(place.tree))
    assert snap.cmdline is None
    assert stat.S_ISFIFO(os.lstat(place.tree / "proc" / "cmdline").st_mode)


def _bundle(path: Path) -> Path:
    """A small bundle holding /proc/cmdline."""
    import io
    import tarfile

    with tarfile.open(path, "w:gz") as tar:
        data = b"quiet\n"
        info = tarfile.TarInfo("proc/cmdline")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path


def _unpack_into_swap(place: Place, victim: Path) -> mock._patch:
    """Just before tarfile unpacks into the bundle's temporary directory, uid 65534 (whose $TMPDIR it is)
    renames that directory away and puts a link to root's `victim` at its name."""
    import tarfile

    real = tarfile.TarFile.extractall

    def swap_then_extract(tar, path, *args, **kwargs):  # type: ignore[no-untyped-def]
        made = Path(path)

        def swap() -> None:
            made.rename(made.with_name(made.name + ".kept"))
            made.symlink_to(victim)

        as_other_user(swap)
        return real(tar, path, *args, **kwargs)

    return mock.patch.object(tarfile.TarFile, "extractall", swap_then_extract)


def test_a_bundle_is_never_unpacked_in_a_tmpdir_another_user_can_change(place, monkeypatch):
    """`iolab doctor --from BUNDLE` as root with $TMPDIR uid 65534's: refused before anything is unpacked, in
    two lines; the same swap with the chain check switched off writes the bundle into root's directory."""
    from iolab.probe.bundle import open_bundle

    victim = place.top / "root-dir"
    (victim / "proc").mkdir(parents=True, mode=0o700)
    (victim / "proc" / "cmdline").write_text(f"root's own {place.word}\n")
    before = _digest(victim / "proc" / "cmdline")
    bundle = _bundle(place.top / "b.tar.gz")
    monkeypatch.setenv("TMPDIR", str(place.home))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    with _unpack_into_swap(place, victim), pytest.raises(UserError) as refused:
        with open_bundle(bundle):
            pass
    assert len(str(refused.value).splitlines()) == 2 and f"uid {OTHER}" in str(refused.value)
    assert _digest(victim / "proc" / "cmdline") == before
    with guards.switched_off("path-owner-chain"), _unpack_into_swap(place, victim):
        with contextlib.suppress(OSError), open_bundle(bundle):  # removing the temporary directory: now a link
            pass
    assert _digest(victim / "proc" / "cmdline") != before, "the attack is real: the chain check is what stops it"


def test_a_fifo_or_a_bomb_given_as_a_bundle_is_refused_in_a_line(tmp_path, monkeypatch):
    from iolab.probe import bundle as bundles

    os.mkfifo(tmp_path / "fifo.tar.gz")
    with pytest.raises(UserError, match="not found"):
        with bundles.open_bundle(tmp_path / "fifo.tar.gz"):
            pass
    monkeypatch.setattr(bundles, "MAX_UNPACKED", 3)
    with pytest.raises(UserError, match="unpacks to more than") as refused:
        with bundles.open_bundle(_bundle(tmp_path / "b.tar.gz")):
            pass
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("tape", "statvfs"),
    [("[" * 100_000, None), (None, "[1]"), (None, '{"/": {"size_bytes": "x"}}'), (None, '{"/": {"size_bytes": null}}')],
)
def test_a_tree_whose_kept_answers_are_hostile_json_is_refused_or_read_as_missing(tmp_path, tape, statvfs):
    """A bundle's iolab/tape.json and iolab/statvfs.json are its author's text: nested past the parser's depth, or
    of the wrong shape, they are refused in a line ("capture it again") or read as not captured, never a traceback."""
    (tmp_path / "iolab").mkdir()
    (tmp_path / "proc").mkdir()
    for name, text in (("tape.json", tape), ("statvfs.json", statvfs)):
        if text is not None:
            (tmp_path / "iolab" / name).write_text(text)
    try:
        root = Root(tmp_path)
    except UserError as refused:
        assert "capture it again" in str(refused) and "\n" not in str(refused)
        return
    assert root.statvfs("/") is None
