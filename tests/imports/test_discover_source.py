"""Each walked output's path with links resolved (`discover._source`, its points' provenance) is what
`os.path.realpath` of the file says, whatever links lie on the way: a linked folder, a linked file, a link to a
file in another folder, a chain of links, a relative root. The walk resolves each folder once and a file only when
it is a link itself."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from iolab.imports.discover import discover
from iolab.imports.fio_files import read_fio

OUTPUT = Path(__file__).parents[1] / "data" / "fio" / "randread-4jobs.json"


def _archive(root: Path) -> Path:
    real = root / "real" / "deep"
    real.mkdir(parents=True)
    shutil.copy(OUTPUT, real / "a.json")
    (real / "b.json").write_bytes(OUTPUT.read_bytes() + b"\n")
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "c.json").write_bytes(OUTPUT.read_bytes() + b"\n\n")
    walked = root / "walked"
    walked.mkdir()
    (walked / "folder").symlink_to(root / "real")  # a linked folder is a file's name, not walked into
    (walked / "linked.json").symlink_to(elsewhere / "c.json")  # a link to a file in another folder
    (walked / "chain.json").symlink_to(walked / "linked.json")  # a link to a link
    (walked / "relative.json").symlink_to(Path("..") / "real" / "deep" / "b.json")
    (walked / "own.json").write_bytes(OUTPUT.read_bytes() + b"\n\n\n")
    (root / "top").symlink_to(walked)  # the root itself through a link
    return root / "top"


def test_each_source_is_the_files_realpath(tmp_path, monkeypatch):
    top = _archive(tmp_path)
    for root in (str(top), str(top / "folder"), os.path.relpath(top, tmp_path / "real")):
        monkeypatch.chdir(tmp_path / "real")
        found = discover([root])
        assert len(found.candidates) >= 2, root
        for candidate in found.candidates:
            assert candidate.source == os.path.realpath(candidate.path), (root, candidate.path)
            parsed = read_fio(candidate.path, candidate.data, candidate.text, False, False, candidate.source)
            assert parsed.source == read_fio(candidate.path, candidate.data, candidate.text, False, False).source
    sources = {c.source for c in discover([str(top)]).candidates}
    assert str(tmp_path.resolve() / "elsewhere" / "c.json") in sources  # links were there to resolve
    assert str(tmp_path.resolve() / "real" / "deep" / "b.json") in sources
