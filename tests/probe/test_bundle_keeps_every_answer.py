"""Every kind of answer the recording tape gives (probe.tape.KINDS) is given again by the bundle it saved.

A bundle is a tree of files, directories and links; the tape's answers are more kinds than that. A name the
probe could not read (EIO, permission denied, gone between its sighting and its read) was left out of the
bundle, so offline it was "missing" where live it was "unreadable" (and dropped from its directory's
listing); a FIFO or a device became an empty regular file, so offline it read "" where live it read
nothing. Here every kind is built and asked every question, live and on the unpacked bundle (where the kind
comes from a change of the host, each question is asked first, before the change, once for each), and the
answers must be the same, question for question.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.probe.bundle import open_bundle, save_bundle
from iolab.probe.root import Root
from iolab.probe.tape import KINDS, Tape
from iolab.probe.tree import Tree

# A case builds one name in an empty directory and returns it with what the host does after the first question.
Case = Callable[[Path], tuple[Path, Callable[[], None]]]


def _nothing() -> None:
    return None


def _file(d: Path) -> tuple[Path, Callable[[], None]]:
    (d / "f").write_text("x\n")
    return d / "f", _nothing


def _empty_file(d: Path) -> tuple[Path, Callable[[], None]]:
    (d / "f").write_bytes(b"")
    return d / "f", _nothing


def _dir(d: Path) -> tuple[Path, Callable[[], None]]:
    (d / "sub").mkdir()
    (d / "sub" / "inner").write_text("1\n")
    return d / "sub", _nothing


def _link_to_file(d: Path) -> tuple[Path, Callable[[], None]]:
    (d / "f").write_text("y\n")
    os.symlink("f", d / "l")
    return d / "l", _nothing


def _link_to_dir(d: Path) -> tuple[Path, Callable[[], None]]:
    (d / "sub").mkdir()
    os.symlink(d / "sub", d / "l")  # absolute, as /etc/systemd's are
    return d / "l", _nothing


def _dangling_link(d: Path) -> tuple[Path, Callable[[], None]]:
    os.symlink("nowhere", d / "l")
    return d / "l", _nothing


def _missing(d: Path) -> tuple[Path, Callable[[], None]]:
    return d / "absent", _nothing


def _below_a_file(d: Path) -> tuple[Path, Callable[[], None]]:
    (d / "f").write_text("z\n")
    return d / "f" / "child", _nothing


def _link_loop(d: Path) -> tuple[Path, Callable[[], None]]:
    os.symlink("b", d / "a")
    os.symlink("a", d / "b")
    return d / "a", _nothing


def _fifo(d: Path) -> tuple[Path, Callable[[], None]]:
    os.mkfifo(d / "p")
    return d / "p", _nothing


def _socket(d: Path) -> tuple[Path, Callable[[], None]]:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(d / "s"))
    return d / "s", _nothing


def _device(d: Path) -> tuple[Path, Callable[[], None]]:
    os.symlink("/dev/null", d / "dev")
    return d / "dev", _nothing


def _read_fails(d: Path) -> tuple[Path, Callable[[], None]]:
    os.symlink("/proc/self/mem", d / "mem")  # a regular file whose read at offset 0 fails with EIO
    return d / "mem", _nothing


def _gone_after_seen(d: Path) -> tuple[Path, Callable[[], None]]:
    (d / "f").write_text("gone\n")
    return d / "f", (d / "f").unlink


def _replaced_after_seen(d: Path) -> tuple[Path, Callable[[], None]]:
    os.mkfifo(d / "p")

    def _replace() -> None:
        os.remove(d / "p")
        (d / "p").write_text("now a file\n")

    return d / "p", _replace


def _dir_gone_after_seen(d: Path) -> tuple[Path, Callable[[], None]]:
    (d / "sub").mkdir()
    (d / "sub" / "inner").write_text("1\n")

    def _remove() -> None:
        os.remove(d / "sub" / "inner")
        os.rmdir(d / "sub")

    return d / "sub", _remove


def _denied(d: Path) -> tuple[Path, Callable[[], None]]:
    (d / "f").write_text("secret\n")
    os.chmod(d / "f", 0)  # permission denied (only where the test is not root: root reads it anyway)
    return d / "f", _nothing


CASES: dict[str, Case] = {
    "file": _file,
    "empty file": _empty_file,
    "dir": _dir,
    "link to a file": _link_to_file,
    "link to a dir": _link_to_dir,
    "dangling link": _dangling_link,
    "missing": _missing,
    "below a file": _below_a_file,
    "link loop": _link_loop,
    "FIFO": _fifo,
    "socket": _socket,
    "device": _device,
    "read fails (EIO)": _read_fails,
    "gone after seen": _gone_after_seen,
    "FIFO replaced after seen": _replaced_after_seen,
    "dir gone after seen": _dir_gone_after_seen,
    "permission denied": _denied,
}

Question = Callable[[Root, str], object]
QUESTIONS: dict[str, Question] = {
    "exists": lambda root, name: root.exists(name),
    "read_text": lambda root, name: root.read_text(name),
    "listdir": lambda root, name: root.listdir(name),
    "realpath": lambda root, name: root.realpath(name),
    "is_symlink": lambda root, name: root.is_symlink(name),
    "link_name": lambda root, name: root.link_name(name),
    "listdir of its directory": lambda root, name: root.listdir(os.path.dirname(name)),
    "read_text below it": lambda root, name: root.read_text(f"{name}/inner"),
}


def _firsts(change: Callable[[], None]) -> list[tuple[str, ...]]:
    """The questions asked before the host changes: each question, one name each; none where it does not
    change (on a host that does not change, the order cannot change an answer)."""
    return [()] if change is _nothing else [(question,) for question in QUESTIONS]


def _place(path: Path) -> Path:
    path.mkdir(parents=True)
    return path


Asked = list[tuple[str, tuple[str, ...], Callable[[], None]]]


def _ask(root: Root, asked: Asked) -> list[object]:
    """Each name's first questions, then the host's change; then every question of every name."""
    answers: list[object] = []
    for name, first, change in asked:
        answers.extend(QUESTIONS[question](root, name) for question in first)
        change()
    for name, _, _ in asked:
        answers.extend(question(root, name) for question in QUESTIONS.values())
    return answers


def test_live_and_bundle_give_the_same_answer_for_every_kind(tmp_path):
    cases = {label: case for label, case in CASES.items() if label != "permission denied" or os.geteuid() != 0}
    asked: Asked = []
    names: dict[str, str] = {}
    for i, (label, case) in enumerate(cases.items()):
        name, change = case(_place(tmp_path / f"c{i}" / "q0"))  # short: a socket's path is at most 107 bytes
        names[label] = str(name)
        for j, first in enumerate(_firsts(change)):
            if j:
                name, change = case(_place(tmp_path / f"c{i}" / f"q{j}"))
            asked.append((str(name), first, change))
    live = Root("/", record=True)
    live_answers = _ask(live, asked)
    assert live.tape is not None
    kinds = {label: live.tape.see(name).kind for label, name in names.items()}
    assert set(kinds.values()) == set(KINDS), kinds  # every kind the tape can give is among the cases
    save_bundle(live, tmp_path / "b.tar.gz")
    with open_bundle(tmp_path / "b.tar.gz") as saved:
        saved_answers = _ask(saved, [(name, first, _nothing) for name, first, _ in asked])
    where = [(name, q) for name, first, _ in asked for q in first] + [
        (name, q) for name, _, _ in asked for q in QUESTIONS
    ]
    differ = [(w, a, b) for w, a, b in zip(where, live_answers, saved_answers, strict=True) if a != b]
    assert not differ, differ[:10]


@pytest.mark.parametrize("label", ["read fails (EIO)", "gone after seen", "FIFO", "device"])
def test_each_unheld_kind_is_in_its_directory_listing_offline(tmp_path, label):
    """A name the tree cannot hold as what it was (unreadable, a FIFO, a device) is still listed offline."""
    name, change = CASES[label](tmp_path)
    live = Root("/", record=True)
    listed = live.listdir(str(tmp_path))
    change()
    assert live.read_text(str(name)) is None
    save_bundle(live, tmp_path / "b.tar.gz")
    with open_bundle(tmp_path / "b.tar.gz") as saved:
        assert saved.listdir(str(tmp_path)) == listed
        assert saved.exists(str(name)) and saved.read_text(str(name)) is None


def test_a_directory_that_could_not_be_listed_stays_unlisted(tmp_path, monkeypatch):
    """A directory whose listing failed (EACCES for a user, which root never meets: faked here) is listed as
    empty again, live and offline, though a file below it was read and so is in the bundle's tree."""
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "inner").write_text("1\n")
    live = Root("/", record=True)
    assert live.read_text(str(tmp_path / "d" / "inner")) == "1\n"
    listdir = os.listdir

    def denied(path: str | int) -> list[str]:
        named = os.readlink(f"/proc/self/fd/{path}") if isinstance(path, int) else path  # the tree lists by descriptor
        if named == str(tmp_path / "d"):
            raise PermissionError(13, "Permission denied", named)
        return listdir(path)

    monkeypatch.setattr(os, "listdir", denied)
    assert live.listdir(str(tmp_path / "d")) == []
    monkeypatch.undo()
    assert live.listdir(str(tmp_path / "d")) == []  # the first answer, not a second look
    save_bundle(live, tmp_path / "b.tar.gz")
    with open_bundle(tmp_path / "b.tar.gz") as saved:
        assert saved.listdir(str(tmp_path / "d")) == []
        assert saved.read_text(str(tmp_path / "d" / "inner")) == "1\n"


def test_every_field_of_the_tape_but_the_bytes_is_kept():
    """A field added to the tape is an answer a bundle must keep too (`Tape.answers`), or offline it is lost."""
    tape = Tape(Tree("/", "/", captured=False))
    kept = {f.name for f in dataclasses.fields(tape)} - {"tree", "own", "files", "replayed"}  # where, not what
    assert set(tape.answers()) == kept


@pytest.mark.parametrize(
    "text",
    [
        "[1]",
        "{}",
        '{"dirs": 3, "unreadable": [], "missing": [], "listings": {}, "links": {}, "others": {}}',
        '{"dirs": [], "unreadable": [], "missing": [], "listings": {"/a": 3}, "links": {}, "others": {}}',
        "{",
    ],
)
def test_a_tape_not_written_by_the_probe_is_refused_in_a_line(tmp_path, text):
    (tmp_path / "iolab").mkdir()
    (tmp_path / "iolab" / "tape.json").write_text(text)
    with pytest.raises(UserError, match="is not a probe's tape"):
        Root(tmp_path)
    with tarfile.open(tmp_path / "b.tar.gz", "w:gz") as tar:
        tar.add(tmp_path / "iolab", "iolab")
    with pytest.raises(
        UserError, match=f"^/iolab/tape.json in bundle {tmp_path / 'b.tar.gz'} is not a probe's"
    ) as refused:
        with open_bundle(tmp_path / "b.tar.gz"):
            pass
    assert "iolab-bundle" not in str(refused.value) and "/tmp/" not in str(refused.value).replace(str(tmp_path), "")
