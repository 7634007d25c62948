"""A bundle's tape.json says what kind each name was; the tree beneath is then read by name, and the OS follows
any link on the way. A tape that calls a name a directory (or missing, unreadable, a FIFO) where the tree holds a
link out of it made offline probing read the host's own files (found in review, for a `--root` tree holding a tape: `/proc/sys` called a
directory, a link to a host directory on disk, `read_text("/proc/sys/secret")` returned the host file). Whatever kind the
tape claims, at whichever component the link sits, no question to the root reaches outside the tree: it is
refused in one line or answered from the tree."""

from __future__ import annotations

import itertools
import json
import tarfile

import pytest

from iolab.errors import UserError
from iolab.probe.bundle import open_bundle
from iolab.probe.root import Root

SECRET = "host-secret-7f3a"
CLAIMS = {
    "dirs": lambda name: {"dirs": ["/", "/proc", name]},
    "missing": lambda name: {"dirs": ["/", "/proc"], "missing": [name]},
    "unreadable": lambda name: {"dirs": ["/", "/proc"], "unreadable": [name]},
    "a file seen": lambda name: {"dirs": ["/", "/proc"], "others": {name: "file"}},
    "another kind": lambda name: {"dirs": ["/", "/proc"], "others": {name: "other"}},
}


def _answers(claim: dict) -> dict:
    empty = {"dirs": [], "unreadable": [], "missing": [], "listings": {}, "links": {}, "others": {}}
    return empty | claim


def _tree(tmp_path, claim: str, link_at: str):
    """A captured tree whose /proc/sys is a link to a host directory holding SECRET (or, `link_at` "leaf", whose
    /proc/sys/x is a link to the host's secret file), and a tape claiming that name is of kind `claim`."""
    host = tmp_path / "host"
    host.mkdir()
    (host / "x").write_text(SECRET)
    tree = tmp_path / "tree"
    (tree / "iolab").mkdir(parents=True)
    (tree / "proc").mkdir()
    if link_at == "component":
        (tree / "proc" / "sys").symlink_to(host)
        name = "/proc/sys"
    else:
        (tree / "proc" / "sys").mkdir()
        (tree / "proc" / "sys" / "x").symlink_to(host / "x")
        name = "/proc/sys/x"
    claimed = CLAIMS[claim](name)
    if link_at == "leaf":
        claimed["dirs"] = [*claimed["dirs"], "/proc/sys"]
    (tree / "iolab" / "tape.json").write_text(json.dumps(_answers(claimed)))
    return tree


def _questions(root: Root) -> list[object]:
    return [
        root.read_text("/proc/sys/x"),
        root.read_value("/proc/sys/x"),
        root.listdir("/proc/sys"),
        root.realpath("/proc/sys/x"),
        root.link_name("/proc/sys/x"),
    ]


@pytest.mark.parametrize(("claim", "link_at"), list(itertools.product(CLAIMS, ("component", "leaf"))))
def test_no_claim_of_the_tape_reads_through_a_link_out_of_the_tree(tmp_path, claim, link_at):
    tree = _tree(tmp_path, claim, link_at)
    try:
        answers = _questions(Root(tree))
    except UserError as refused:
        assert "capture it again" in str(refused) and "\n" not in str(refused)
        return
    assert SECRET not in repr(answers)
    assert str(tmp_path / "host") not in repr(answers)


@pytest.mark.parametrize("claim", list(CLAIMS))
def test_a_bundle_whose_tape_hides_a_link_out_is_refused_in_a_line(tmp_path, claim):
    """Packed as a bundle the same tree is refused whole (tarfile's "data" filter takes no link out of the
    tree); either refusal is one line that says to capture it again."""
    tree = _tree(tmp_path, claim, "component")
    bundle = tmp_path / "b.tar.gz"
    with tarfile.open(bundle, "w:gz") as tar:
        for part in ("iolab", "proc"):
            tar.add(tree / part, part)
    with pytest.raises(UserError, match="capture it again") as refused:
        with open_bundle(bundle) as root:
            _questions(root)
    assert "\n" not in str(refused.value) and SECRET not in str(refused.value)
