"""A support bundle (probe.bundle, probe.tape) holds what the snapshot read, at the moment it read it: a file
rewritten, a link re-pointed or a device added after the probe looked is not in the bundle, and a snapshot
of the unpacked bundle is the live snapshot, field for field. (A bundle that read the host again while
saving listed a loop device live that was gone offline when another process removed it meanwhile.)"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

from iolab.probe.bundle import open_bundle, save_bundle
from iolab.probe.root import Root
from iolab.probe.snapshot import take_snapshot


def _members(bundle: Path) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(bundle) as tar:
        return {m.name: m for m in tar.getmembers()}


def test_what_changes_after_the_probe_read_it_is_not_in_the_bundle(tmp_path):
    (tmp_path / "block").mkdir()
    (tmp_path / "devices" / "a").mkdir(parents=True)
    (tmp_path / "devices" / "b").mkdir()
    (tmp_path / "devices" / "a" / "size").write_text("8\n")
    os.symlink("../devices/a", tmp_path / "block" / "loop0")
    live = Root("/", record=True)
    assert live.listdir(str(tmp_path / "block")) == ["loop0"]
    assert live.read_text(str(tmp_path / "block" / "loop0" / "size")) == "8\n"
    assert live.realpath(str(tmp_path / "block" / "loop0")) == str(tmp_path / "devices" / "a")
    (tmp_path / "devices" / "a" / "size").write_text("16\n")  # the host changes after the probe looked
    os.remove(tmp_path / "block" / "loop0")
    os.symlink("../devices/b", tmp_path / "block" / "loop0")
    os.symlink("../devices/b", tmp_path / "block" / "loop1")
    assert live.read_text(str(tmp_path / "block" / "loop0" / "size")) == "8\n"  # the probe's answer holds too
    assert live.listdir(str(tmp_path / "block")) == ["loop0"]
    save_bundle(live, tmp_path / "b.tar.gz")
    members = _members(tmp_path / "b.tar.gz")
    block = str(tmp_path / "block").lstrip("/")
    assert members[f"{block}/loop0"].linkname == "../devices/a" and f"{block}/loop1" not in members
    with open_bundle(tmp_path / "b.tar.gz") as saved:
        assert saved.listdir(str(tmp_path / "block")) == ["loop0"]
        assert saved.read_text(str(tmp_path / "block" / "loop0" / "size")) == "8\n"


def test_a_snapshot_of_the_bundle_is_the_live_snapshot(tmp_path):
    live = Root("/", record=True)
    snapshot = take_snapshot(live, [])
    save_bundle(live, tmp_path / "host.tar.gz")
    with open_bundle(tmp_path / "host.tar.gz") as saved:
        offline = take_snapshot(saved, [])
    assert offline.to_dict() == snapshot.to_dict()


def test_only_a_regular_file_the_probe_reads_is_read(tmp_path):
    """Resolving or testing a name reads nothing: a mount's source is a block device (`realpath("/dev/sda1")`
    must not read a disk), a FIFO with no writer would block the probe and /dev/zero never ends. A FIFO asked
    for its text is None, at once; each is in the bundle as a name, empty."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "data").write_bytes(b"x" * 4096)
    script = f"""
import sys
from iolab.probe.bundle import save_bundle
from iolab.probe.root import Root
live = Root("/", record=True)
fifo, data = {str(tmp_path / "fifo")!r}, {str(tmp_path / "data")!r}
assert live.exists(fifo) and live.exists("/dev/zero") and live.exists(data)
assert live.realpath("/dev/zero") == "/dev/zero" and live.realpath(data) == data
assert live.read_text(fifo) is None
assert live.tape.files == {{}}, sorted(live.tape.files)
save_bundle(live, {str(tmp_path / "b.tar.gz")!r})
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-1500:]
    members = _members(tmp_path / "b.tar.gz")
    assert members["dev/zero"].size == 0 and members[str(tmp_path / "fifo").lstrip("/")].size == 0


def test_a_name_only_seen_is_answered_again_as_first_seen(tmp_path):
    """A name the probe only tested (a file, a FIFO) keeps the tape's first answer when asked again after it
    is gone, as everything the tape read does; the bundle and the live answers then agree on it."""
    (tmp_path / "seen").write_text("x\n")
    os.mkfifo(tmp_path / "pipe")
    live = Root("/", record=True)
    assert live.exists(str(tmp_path / "seen")) and live.exists(str(tmp_path / "pipe"))
    os.remove(tmp_path / "seen")
    os.remove(tmp_path / "pipe")
    assert live.exists(str(tmp_path / "seen")) and live.exists(str(tmp_path / "pipe"))
    assert live.read_text(str(tmp_path / "seen")) is None  # there when seen, its bytes never read
    save_bundle(live, tmp_path / "b.tar.gz")
    with open_bundle(tmp_path / "b.tar.gz") as saved:
        assert saved.exists(str(tmp_path / "pipe"))
