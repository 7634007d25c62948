"""Issue 39, observations 1, 5 and 6, as a hostile local user (uid 65534) tried them, with the real fio: every
victim checksummed before and after, every refusal in at most two lines, exit 2 (or 3 for a stopped run).

1. Root's `iolab run job.fio P/work` where P belongs to the attacker: refused up front by the chain check
   (`iolab.pathchain`), whether or not the attacker has swapped `work` for a link yet; and the swap made at
   the worst moment (a `fio` on PATH that lets the attacker swap just before the fill job opens the scratch
   file) never happens, because the run never starts. With that check switched off, the same race is caught
   after the fill by the identity check of what fio wrote (`scratch.written_elsewhere`): exit 3, named.
5. A run that only reads a file creates, renames and removes nothing beside it (its directory's mtime).
6. An IOLAB_HOME that is a link another user owns, or under a group-writable parent, is refused; so are an
   empty, a relative and a control-character one.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from iolab import guards, pathchain  # noqa: F401  (pathchain registers the guard switched off below)
from tests.iolab_cli import assert_clean_error, iolab

OTHER = 65534
SETPRIV = ["setpriv", f"--reuid={OTHER}", f"--regid={OTHER}", "--clear-groups"]
pytestmark = [
    pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed"),
    pytest.mark.skipif(
        os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv to act as uid 65534"
    ),
]
JOB = "[global]\nioengine=psync\nbs=4k\nsize=8m\n[randread]\nrw=randread\n"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def as_attacker(script: str, *args: str) -> None:
    subprocess.run([*SETPRIV, "sh", "-ec", script, "sh", *args], check=True)


@pytest.fixture
def scene() -> Iterator[dict[str, Path]]:
    """Under a fresh 0755 root directory in /tmp (tmp_path's parent is 0700, closed to uid 65534): the
    attacker's `P` holding root's `work`, the attacker's own directory, root's 0600 victim, root's TMPDIR."""
    base = Path(tempfile.mkdtemp(prefix="iolab-trust-", dir="/tmp"))
    base.chmod(0o755)
    parent, evil, tmp = base / "P", base / "evil", base / "T"
    (parent / "work").mkdir(parents=True)
    evil.mkdir()
    tmp.mkdir(mode=0o700)
    for theirs in (parent, evil):
        os.chown(theirs, OTHER, OTHER)
    victim = base / "victim"
    victim.write_bytes(os.urandom(1 << 20))
    victim.chmod(0o600)
    (base / "job.fio").write_text(JOB)
    try:
        yield {"base": base, "P": parent, "work": parent / "work", "evil": evil, "T": tmp, "victim": victim}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _run(scene: dict[str, Path], target: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    job = str(scene["base"] / "job.fio")
    return iolab(
        "run", job, str(target), "--runtime", "2", "--ramp", "0", env={"TMPDIR": str(scene["T"]), **(env or {})}
    )


def test_root_on_a_directory_whose_parent_another_user_owns_is_refused_up_front(scene, iolab_home):
    before = digest(scene["victim"])
    said = assert_clean_error(_run(scene, scene["work"]))
    assert f"{scene['P']} is owned by uid {OTHER}" in said and f"chown 0 {scene['P']}" in said, said
    assert os.listdir(scene["work"]) == [] and digest(scene["victim"]) == before


def test_the_swap_made_before_the_run_is_refused(scene, iolab_home):
    """The attacker already swapped `work` for a link to their directory: the link's owner is named."""
    as_attacker('mv "$1/work" "$1/old" && ln -s "$2" "$1/work"', str(scene["P"]), str(scene["evil"]))
    before = digest(scene["victim"])
    said = assert_clean_error(_run(scene, scene["work"]))
    assert f"{scene['work']} is a link owned by uid {OTHER}" in said, said
    assert os.listdir(scene["evil"]) == [] and digest(scene["victim"]) == before


def _swapping_fio(scene: dict[str, Path], bin_dir: Path) -> Path:
    """A `fio` first on PATH: before the job that opens a scratch file runs, the attacker swaps `work` for a link
    to their directory holding a link of the scratch file's name to root's victim (the race, made certain)."""
    mark = scene["base"] / "swapped"
    bin_dir.mkdir()
    wrapper = bin_dir / "fio"
    wrapper.write_text(
        f"#!{sys.executable}\n"
        "import os, re, subprocess, sys\n"
        "jobs = [a for a in sys.argv[1:] if a.endswith('.fio') and os.path.isfile(a)]\n"
        "names = re.findall(r'^filename=(.*iolab-scratch-.*)$', open(jobs[0]).read(), re.M) if jobs else []\n"
        f"if names and not os.path.exists({str(mark)!r}):\n"
        f"    open({str(mark)!r}, 'w').close()\n"
        f'    subprocess.run({SETPRIV!r} + [\'sh\', \'-ec\', \'mv "$1/work" "$1/old" && ln -s "$3" "$2/$4"'
        ' && ln -s "$2" "$1/work"\', \'sh\', '
        f"{str(scene['P'])!r}, {str(scene['evil'])!r}, {str(scene['victim'])!r}, os.path.basename(names[0])],"
        " check=True)\n"
        f"os.execv({shutil.which('fio')!r}, ['fio', *sys.argv[1:]])\n"
    )
    wrapper.chmod(0o755)
    return mark


def test_the_race_never_starts_with_the_chain_checked(scene, iolab_home):
    mark = _swapping_fio(scene, scene["base"] / "bin")
    before = digest(scene["victim"])
    said = assert_clean_error(_run(scene, scene["work"], {"PATH": f"{scene['base'] / 'bin'}:{os.environ['PATH']}"}))
    assert "owned by uid" in said and not mark.exists(), said  # refused before any fio ran
    assert digest(scene["victim"]) == before


def test_without_the_chain_check_the_race_is_caught_after_the_fill(scene, iolab_home, monkeypatch, capsys):
    """The second line: the chain check switched off (in-process, as the mutation bench does), the attacker's
    swap lands and fio follows it; the lookup of what fio wrote, without links, stops the run, exit 3, named."""
    from iolab.cli import main

    mark = _swapping_fio(scene, scene["base"] / "bin")
    monkeypatch.setenv("PATH", f"{scene['base'] / 'bin'}:{os.environ['PATH']}")
    monkeypatch.setattr(tempfile, "tempdir", str(scene["T"]))
    job = str(scene["base"] / "job.fio")
    monkeypatch.setattr(sys, "argv", ["iolab", "run", job, str(scene["work"]), "--runtime", "2", "--ramp", "0"])
    with guards.switched_off("path-owner-chain"), pytest.raises(SystemExit) as stopped:
        main()
    said = capsys.readouterr().err
    assert stopped.value.code == 3 and mark.exists(), said
    assert f"{scene['work']} is not a directory" in said and "the run stopped" in said, said
    stop = said[said.index("iolab: ") :].strip().splitlines()  # after the progress lines: the stop, one line
    assert len(stop) == 1 and "Traceback" not in said, said


def test_a_run_that_only_reads_creates_nothing_beside_the_file(tmp_path, iolab_home):
    """Observation 5: no `.iolab-odirect-*` probe made and removed beside the user's file (the directory's
    mtime would move); O_DIRECT is asked of the file itself."""
    data = tmp_path / "dir"
    data.mkdir()
    (data / "data.bin").write_bytes(os.urandom(4 << 20))
    (tmp_path / "r.fio").write_text("[r]\nrw=read\nbs=64k\nioengine=psync\n")
    before = os.stat(data).st_mtime_ns, sorted(os.listdir(data)), digest(data / "data.bin")
    proc = iolab("run", str(tmp_path / "r.fio"), str(data / "data.bin"), "--runtime", "1", "--ramp", "0")
    assert proc.returncode == 0, proc.stderr
    assert (os.stat(data).st_mtime_ns, sorted(os.listdir(data)), digest(data / "data.bin")) == before


@pytest.fixture
def open_base() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="iolab-home-", dir="/tmp"))
    base.chmod(0o755)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_a_home_that_is_a_link_another_user_owns_is_refused(open_base):
    mine = open_base / "mine"
    mine.mkdir(mode=0o700)
    theirs = open_base / "theirs"
    theirs.mkdir()
    os.chown(theirs, OTHER, OTHER)
    as_attacker('ln -s "$1" "$2/home"', str(mine), str(theirs))
    said = assert_clean_error(iolab("ls", env={"IOLAB_HOME": str(theirs / "home")}))
    assert f"{theirs} is owned by uid {OTHER}" in said or "link owned by uid" in said, said
    link = open_base / "home"  # a link of theirs in a directory of root's: its owner is what is refused
    link.symlink_to(mine)
    os.chown(link, OTHER, OTHER, follow_symlinks=False)
    said = assert_clean_error(iolab("ls", env={"IOLAB_HOME": str(link)}))
    assert f"{link} is a link owned by uid {OTHER}" in said, said
    assert os.listdir(mine) == []


def test_a_home_under_a_group_writable_parent_is_refused_and_a_linked_home_of_ones_own_is_used(open_base):
    parent = open_base / "lab"
    parent.mkdir()
    parent.chmod(0o775)
    said = assert_clean_error(iolab("ls", env={"IOLAB_HOME": str(parent / "home")}))
    assert f"{parent} is writable by its group" in said and f"chmod go-w {parent}" in said, said
    assert os.listdir(parent) == []
    parent.chmod(0o755)
    (open_base / "link").symlink_to(parent / "home")
    assert iolab("ls", env={"IOLAB_HOME": str(open_base / "link")}).returncode == 0
    assert (parent / "home" / "iolab.db").is_file()


@pytest.mark.parametrize("home", ["", "relative/home", "/tmp/a\nb", "/tmp/\x1b[2J"])
def test_an_empty_relative_or_control_character_home_is_refused(home, tmp_path):
    said = assert_clean_error(iolab("ls", cwd=tmp_path, env={"IOLAB_HOME": home}))
    assert "IOLAB_HOME" in said and "absolute path" in said, said
    assert os.listdir(tmp_path) == []


def test_dry_run_shows_per_path_the_checks_passed_or_why_refused(scene, iolab_home):
    job = str(scene["base"] / "job.fio")
    mine = scene["base"] / "mine"
    mine.mkdir()
    proc = iolab("run", job, str(mine), "--dry-run", env={"TMPDIR": str(scene["T"])})
    assert proc.returncode == 0, proc.stderr
    checks = [line for line in proc.stderr.splitlines() if line.startswith("checks: ")]
    assert [c.split(":")[1].strip() for c in checks] == [
        f"{mine} (its directory)",
        "fio's work directories ($TMPDIR)",
        "IOLAB_HOME",
    ]
    assert all("owner chain ok" in c and "no links followed after the check" in c for c in checks), checks
    said = assert_clean_error(iolab("run", job, str(scene["work"]), "--dry-run", env={"TMPDIR": str(scene["T"])}))
    assert f"{scene['P']} is owned by uid {OTHER}" in said, said
    scene["T"].chmod(0o770)  # a group-writable $TMPDIR: listed as refused, and the dry run exits 2 as the run would
    proc = iolab("run", job, str(mine), "--dry-run", env={"TMPDIR": str(scene["T"])})
    assert (
        proc.returncode == 2 and f"fio's work directories ($TMPDIR): refused: {scene['T']} is writable" in proc.stderr
    )
    assert proc.stderr.strip().splitlines()[-1].startswith("iolab: the run would be refused: "), proc.stderr


def test_root_reading_a_file_in_a_directory_another_user_owns_is_refused(scene, iolab_home):
    """A read-only file target in uid 65534's directory: fio opens it by name, and finding it shorter than the
    job (their swap after iolab's checks) lays it out again, `unlink` then `open(O_CREAT|O_TRUNC)` by name, which
    follows a link they plant between the two onto root's file. Refused up front, as a directory target is."""
    data = scene["evil"] / "data.bin"
    as_attacker('head -c 1048576 /dev/urandom > "$1"', str(data))
    before = digest(scene["victim"]), sorted(os.listdir(scene["evil"]))
    said = assert_clean_error(_run(scene, data))
    assert f"{scene['evil']} is owned by uid {OTHER}" in said, said
    assert (digest(scene["victim"]), sorted(os.listdir(scene["evil"]))) == before


def test_without_the_chain_check_fio_lays_out_again_in_their_directory(scene, iolab_home, monkeypatch, capsys):
    """The first half of that race, made certain: just before fio runs, uid 65534 swaps their 1 MiB file for a
    link to root's shorter victim; fio (as root) removes their link and creates a file of root's in their
    directory by name. The second half (the link planted again between fio's unlink and its open) is a race of
    microseconds, left to the refusal above."""
    from iolab.cli import main

    data = scene["evil"] / "data.bin"
    as_attacker('head -c 1048576 /dev/urandom > "$1"', str(data))
    short = scene["base"] / "short"
    short.write_bytes(os.urandom(64 << 10))
    bin_dir = scene["base"] / "bin"
    bin_dir.mkdir()
    (bin_dir / "fio").write_text(
        f"#!{sys.executable}\nimport os, subprocess, sys\n"
        "if any(a.endswith('.fio') for a in sys.argv[1:]):\n"
        f"    subprocess.run({SETPRIV!r} + ['sh', '-c', 'ln -sfn \"$1\" \"$2\"', 'sh', {str(short)!r}, {str(data)!r}])\n"
        f"os.execv({shutil.which('fio')!r}, ['fio', *sys.argv[1:]])\n"
    )
    (bin_dir / "fio").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setattr(tempfile, "tempdir", str(scene["T"]))
    (scene["base"] / "r.fio").write_text("[r]\nrw=read\nbs=64k\nioengine=psync\n")
    argv = ["iolab", "run", str(scene["base"] / "r.fio"), str(data), "--runtime", "1", "--ramp", "0", "--no-report"]
    monkeypatch.setattr(sys, "argv", argv)
    with guards.switched_off("path-owner-chain"), pytest.raises(SystemExit):
        main()
    capsys.readouterr()
    assert not data.is_symlink() and data.stat().st_uid == 0, "fio did not lay the file out again"
