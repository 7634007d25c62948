"""tests/loopdev.py: throttles through cgroup v1 blkio or v2 io.max, and skips per test, never per module.

Modules that skipped whole on a host without cgroup v1 blkio took their CLI-error tests and a dry run
with them, though those need no throttle. The helpers that make a throttle or a loop device now skip
the test that asks for one; no module may skip on those reasons as a whole.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests import loopdev

TESTS = Path(__file__).resolve().parent
HOST_REASONS = {"throttle_skip_reason"}


def _module_skips(path: Path) -> list[str]:
    """The host-reason calls in a module's `pytestmark` (a whole-module skip)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in tree.body:
        targets = [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
        if "pytestmark" in targets:
            found += [n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    return sorted(HOST_REASONS & set(found))


def test_no_module_skips_whole_for_want_of_a_throttle():
    whole = {str(p.relative_to(TESTS)): r for p in TESTS.rglob("test_*.py") if (r := _module_skips(p))}
    assert not whole, f"skip per test (loopdev.blkio_cgroup does it): {whole}"


def test_the_module_scan_sees_a_whole_module_skip(tmp_path):
    module = tmp_path / "test_x.py"
    module.write_text("pytestmark = pytest.mark.skipif(throttle_skip_reason() is not None, reason='x')\n")
    assert _module_skips(module) == ["throttle_skip_reason"]


def test_a_throttle_asked_for_where_there_is_none_skips_that_test(monkeypatch):
    monkeypatch.setattr(loopdev, "throttle_skip_reason", lambda: "no throttle on this host")
    with pytest.raises(pytest.skip.Exception, match="no throttle on this host"), loopdev.blkio_cgroup():
        pass


def test_loop_devices_asked_for_where_there_are_none_skip_that_test(monkeypatch):
    monkeypatch.setattr(loopdev, "loop_skip_reason", lambda: "needs root")
    with pytest.raises(pytest.skip.Exception, match="needs root"), loopdev.loop_devices(1):
        pass


def test_read_limits_in_each_cgroup_version():
    assert loopdev.read_limit("7:3", 100 << 20, v2=False) == "7:3 104857600\n"
    assert loopdev.read_limit("7:3", 100 << 20, v2=True) == "7:3 rbps=104857600\n"
    assert loopdev.read_limit("7:3", 0, v2=False) == "7:3 0\n"
    assert loopdev.read_limit("7:3", 0, v2=True) == "7:3 rbps=max\n"


def test_a_cgroup2_mount_counts_only_with_its_io_controller(tmp_path):
    with_io, without = tmp_path / "v2", tmp_path / "hybrid"
    for root, controllers in ((with_io, "cpuset cpu io memory pids"), (without, "hugetlb")):
        root.mkdir()
        (root / "cgroup.controllers").write_text(controllers + "\n")
    mounts = tmp_path / "mounts"
    mounts.write_text(f"cgroup2 {without} cgroup2 rw 0 0\ncgroup {tmp_path} cgroup rw,blkio 0 0\n")
    assert loopdev.cgroup2_io_root(str(mounts)) is None
    mounts.write_text(f"cgroup2 {without} cgroup2 rw 0 0\ncgroup2 {with_io} cgroup2 rw 0 0\n")
    assert loopdev.cgroup2_io_root(str(mounts)) == with_io


@pytest.mark.skipif(loopdev.cgroup2_io_root() is None, reason="no cgroup v2 mount with its io controller here")
def test_io_max_caps_a_loop_device_for_real(tmp_path):
    """Where v2's io controller is available (not on a host that mounts blkio as v1), io.max throttles."""
    import json
    import subprocess

    with loopdev.loop_devices(1, size_mib=64) as (dev,), loopdev.blkio_cgroup() as cgroup:
        if not cgroup.v2:
            pytest.skip("this host throttles with cgroup v1 blkio")
        cgroup.set_read_bps(dev.major_minor, 20 << 20)
        out = tmp_path / "fio.json"
        proc = cgroup.popen(loopdev.fio_read_argv([dev], 3, str(out)), stderr=subprocess.PIPE)
        proc.wait(timeout=60)
        bw = json.loads(out.read_text())["jobs"][0]["read"]["bw_bytes"]
        assert bw == pytest.approx(20 << 20, rel=0.1)
