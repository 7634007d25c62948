"""The write guard tried as a careless or hostile user would: every way around it, on real loop devices.

Each test names the case of the safety issue it covers. The data the run
must not touch is checked by its sha256 before and after.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.iolab_cli import assert_clean_error, iolab
from tests.loopdev import loop_devices, loop_skip_reason

needs_loop = pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
needs_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
FAST = ["--runtime", "1", "--ramp", "0"]


def _digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _tree_digest(directory: Path) -> dict[str, str]:
    return {str(p.relative_to(directory)): _digest(p) for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.fixture
def ext4_loop():
    if shutil.which("mkfs.ext4") is None:
        pytest.skip("mkfs.ext4 is not installed")
    with loop_devices(1, size_mib=32) as (dev,):
        subprocess.run(["mkfs.ext4", "-q", "-F", dev.path], check=True)
        subprocess.run(["sync"], check=True)
        yield dev.path, Path(dev.backing)


@needs_loop
def test_case1_readwrite_alias_counts_as_a_write(ext4_loop, tmp_path):
    dev, backing = ext4_loop
    before = _digest(backing)
    job = tmp_path / "a.fio"
    job.write_text(f"[j]\nreadwrite=write\nbs=1M\nsize=16M\nfilename={dev}\n")
    dry = assert_clean_error(iolab("run", str(job), "--dry-run"))  # a dry run refuses what a run would
    assert "cannot take j" in dry and "--allow-write" in dry and "nothing to run" in dry
    assert "nothing to run" in assert_clean_error(iolab("run", str(job), *FAST))
    for mode in ("write:4k", "randtrim", "trimwrite"):
        job.write_text(f"[j]\nrw={mode}\nbs=1M\nsize=16M\nfilename={dev}\n")
        assert_clean_error(iolab("run", str(job), *FAST))
    assert _digest(backing) == before


@needs_loop
def test_case2_a_newline_inside_a_toml_value_is_refused(ext4_loop, tmp_path):
    dev, backing = ext4_loop
    before = _digest(backing)
    plan = tmp_path / "p.toml"
    plan.write_text(f'[options]\nrw = "write"\nioengine = "psync\\nfilename={dev}"\n')
    err = assert_clean_error(iolab("plan", "check", str(plan)))
    assert "options.ioengine" in err and "\\n" in err
    assert_clean_error(iolab("run", str(plan), str(tmp_path), "--allow-write", *FAST))
    plan.write_text('[options]\nrw = "read"\n"bs\\nfilename" = "4k"\n')
    assert_clean_error(iolab("plan", "check", str(plan)))
    assert _digest(backing) == before


@needs_fio
def test_case3_options_that_name_paths_are_refused(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"f{i}.txt").write_bytes(bytes([i]) * 100_000)
    before = _tree_digest(docs)
    work = tmp_path / "work"
    work.mkdir()
    for line in (
        f"opendir={docs}",
        "filename_format=../docs/f$jobnum.txt",
        f"write_iolog={docs}/f0.txt",
        f"write_bw_log={docs}/f1",
        f"mem=mmap:{docs}/f2.txt",
        "size=${HOME}",
        f"directory={docs}:{work}",
    ):
        job = tmp_path / "j.fio"
        job.write_text(f"[j]\nrw=write\nbs=4k\nsize=64k\n{line}\n")
        assert_clean_error(iolab("run", str(job), str(work), "--allow-write", *FAST))
        assert_clean_error(iolab("plan", "check", str(job)))
    plan = tmp_path / "p.toml"
    plan.write_text(f'[options]\nrw = "write"\nopendir = "{docs}"\n')
    assert "name that directory as a target" in assert_clean_error(iolab("run", str(plan), str(work), *FAST))
    assert _tree_digest(docs) == before


@needs_fio
def test_case8_a_colon_in_the_target_directory_stays_one_path(tmp_path):
    (tmp_path / "a").write_bytes(b"sibling data" * 1000)
    before = _digest(tmp_path / "a")
    target = tmp_path / "a:b"
    target.mkdir()
    plan = tmp_path / "p.toml"
    plan.write_text('[options]\nrw = "randwrite"\nbs = "4k"\nioengine = "psync"\ntime_based = true\n')
    proc = iolab("run", str(plan), str(target), "--size", "16M", *FAST, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _digest(tmp_path / "a") == before
    assert list(target.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == [
        "a",
        "a:b",
        "iolab-home",
        "p.toml",
    ]


@needs_fio
def test_a_semicolon_or_hash_in_the_target_is_refused_where_fio_would_cut_the_path(tmp_path):
    (tmp_path / "a").write_bytes(b"sibling data" * 1000)
    before = _digest(tmp_path / "a")
    for name in ("a;b", "a#b"):
        target = tmp_path / name
        target.mkdir()
        err = assert_clean_error(iolab("run", str(target), "--size", "16M", *FAST, cwd=tmp_path))
        assert "comment" in err
    assert _digest(tmp_path / "a") == before


@needs_fio
def test_case9_a_newline_in_a_target_path_cannot_inject_options(tmp_path):
    marker = tmp_path / "marker"
    evil = tmp_path / f"d\nexec_prerun=touch {marker.name}"
    evil.mkdir()
    err = assert_clean_error(iolab("run", str(evil), "--size", "16M", *FAST, cwd=tmp_path))
    assert "control character" in err
    plan = tmp_path / "p.toml"
    plan.write_text(f'targets = ["{tmp_path}/d\\nexec_prerun=touch {marker.name}"]\n[options]\nrw = "read"\n')
    assert_clean_error(iolab("run", str(plan), *FAST, cwd=tmp_path))
    assert not marker.exists()


@needs_fio
def test_exec_prerun_needs_allow_commands(tmp_path):
    marker = tmp_path / "MARKER"
    data = tmp_path / "data"
    data.write_bytes(b"x" * (1 << 20))
    job = tmp_path / "j.fio"
    job.write_text(f"[j]\nfilename={data}\nrw=read\nbs=4k\nexec_prerun=touch {marker}\n")
    assert "exec_prerun=touch" in iolab("plan", "check", str(job)).stdout
    assert "runs: [j] exec_prerun=touch" in iolab("lint", str(job)).stdout
    linted = json.loads(iolab("lint", str(job), "--json").stdout)
    assert any("exec_prerun=touch" in line for line in linted["runs"]) and isinstance(linted["findings"], list)
    dry = assert_clean_error(iolab("run", str(job), "--dry-run"))  # refused there too, naming the command
    assert "j: exec_prerun=touch" in dry and "--allow-commands" in dry
    err = assert_clean_error(iolab("run", str(job), *FAST))
    assert "--allow-commands" in err and "exec_prerun" in err
    assert not marker.exists()
    assert iolab("run", str(job), "--allow-commands", *FAST).returncode == 0
    assert marker.exists()  # the refusal above was the gate, not a broken job


@needs_fio
def test_options_that_delete_or_trim_are_writes(tmp_path):
    data = tmp_path / "data"
    data.write_bytes(b"y" * (1 << 20))
    before = _digest(data)
    for line in ("unlink=1", "unlink_each_loop=1", "trim_percentage=50\nverify=md5", "file_append=1"):
        job = tmp_path / "j.fio"
        job.write_text(f"[j]\nfilename={data}\nrw=read\nbs=4k\n{line}\n")
        err = assert_clean_error(iolab("run", str(job), *FAST))
        assert "nothing to run" in err
    assert _digest(data) == before


@needs_fio
def test_a_job_never_extends_a_file_it_did_not_create(tmp_path):
    data = tmp_path / "data"
    data.write_bytes(b"z" * (1 << 20))
    before = _digest(data)
    for line in ("size=4M", "offset=512k", "filesize=2M", "nrfiles=3"):
        job = tmp_path / "j.fio"
        job.write_text(f"[j]\nfilename={data}\nrw=read\nbs=4k\n{line}\n")
        err = assert_clean_error(iolab("run", str(job), *FAST))
        assert "extend" in err or "more files" in err
    assert _digest(data) == before and data.stat().st_size == 1 << 20


@needs_fio
def test_engines_iolab_cannot_check_need_allow_commands(tmp_path):
    data = tmp_path / "data"
    data.write_bytes(b"w" * (1 << 20))
    for engine in (f"external:{tmp_path}/evil.so", f"{tmp_path}/evil.so", "falloc"):
        job = tmp_path / "j.fio"
        job.write_text(f"[j]\nfilename={data}\nrw=read\nioengine={engine}\n")
        assert "--allow-commands" in assert_clean_error(iolab("run", str(job), *FAST))
    job.write_text(f"include {tmp_path}/other.fio\n[j]\nfilename={data}\nrw=read\n")
    assert "include" in assert_clean_error(iolab("run", str(job), *FAST))
