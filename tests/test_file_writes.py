"""Every file iolab writes goes through `iolab.private.write_private`: a temporary name made with
O_CREAT|O_EXCL|O_NOFOLLOW in the destination's directory, renamed into place, so a link planted at the
destination is replaced, never followed (issue 30, item 6).

`iolab report --png DIR` once wrote through a symlink planted in DIR under a picture's name: matplotlib's
savefig(path) opened the path as given. The class is "a write that opens the destination by its name";
this test parses every module under src/iolab with `ast` and fails on any such call outside ALLOWED, the
functions that must open a path themselves, each with its reason. A planted violation of every kind is
shown to fail.
"""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "iolab"

# "module path:qualified function" -> why it opens a path for writing itself.
ALLOWED: dict[str, str] = {
    "private.py:write_private": "the one writer: mkstemp (O_EXCL|O_NOFOLLOW) in the destination's directory, rename",
    "store/db.py:open_store": "SQLite opens the database in IOLAB_HOME, checked to be the user's alone (ownership)",
    "store/db.py:_read_only_store": "SQLite opens the database read-only (mode=ro)",
    "store/db.py:_keep_reserve": "the reserve file in IOLAB_HOME, created exclusively ('xb')",
    "store/db.py:_private_database": "the database created O_EXCL|O_NOFOLLOW before SQLite opens it",
    "private.py:_temporary": "write_private's temporary name, O_CREAT|O_EXCL|O_NOFOLLOW in the held directory",
    "pathchain.py:create_file": "scratch files and the O_DIRECT probe: O_CREAT|O_EXCL|O_NOFOLLOW in a checked, held "
    "directory",
    "runner/scratch.py:create_file": "through pathchain.create_file; a plain create only with the "
    "scratch-exclusive-create guard switched off (the mutation bench), the unsafe create the guard refuses",
    "runner/locks.py:TargetLocks.acquire": "lock files under IOLAB_HOME/locks, opened O_NOFOLLOW",
    "runner/host_settings.py:write_setting": "a host setting written into /sys, an existing kernel file",
    "runner/measure.py:Measurer._drop_caches": "/proc/sys/vm/drop_caches, a kernel file",
    "runner/blank.py:held": "a block device the user allowed writes to, held O_EXCL for the run (nothing written)",
}

WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"}
PATH_COPIES = {
    ("shutil", "copy"),
    ("shutil", "copy2"),
    ("shutil", "copyfile"),
    ("shutil", "copytree"),
    ("shutil", "move"),
    ("os", "replace"),
    ("os", "rename"),
    ("os", "link"),
    ("os", "symlink"),
    ("os", "mknod"),
    ("os", "truncate"),
    ("tempfile", "mkstemp"),
    ("tempfile", "NamedTemporaryFile"),
    ("sqlite3", "connect"),
}
ARCHIVES = {("tarfile", "open"), ("zipfile", "ZipFile"), ("gzip", "open"), ("bz2", "open"), ("lzma", "open")}
BY_NAME = {"write_text", "write_bytes", "touch", "symlink_to", "hardlink_to"}


def _mode(call: ast.Call, position: int) -> str | None:
    """The mode argument as text ("r" when absent), None when it is not a constant (so it may write)."""
    node = next((k.value for k in call.keywords if k.arg == "mode"), None)
    if node is None and len(call.args) > position:
        node = call.args[position]
    if node is None:
        return "r"
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _writes(mode: str | None) -> bool:
    return mode is None or any(c in mode.split(":")[0] for c in "wax+")


def _dotted(node: ast.AST) -> tuple[str, str] | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id, node.attr
    return None


def _buffers(tree: ast.AST) -> set[str]:
    """Names bound to an in-memory buffer (io.BytesIO/StringIO): savefig into one writes no file."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            if _dotted(node.value.func) in {("io", "BytesIO"), ("io", "StringIO")}:
                found |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return found


def why_it_writes(call: ast.Call, buffers: set[str]) -> str:
    """What kind of file write `call` is, by the destination's name; "" when it writes no file by name."""
    func, dotted = call.func, _dotted(call.func)
    if isinstance(func, ast.Name) and func.id == "open" and _writes(_mode(call, 1)):
        return "open() for writing"
    if dotted == ("os", "open") and len(call.args) > 1:
        flags = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "") for n in ast.walk(call.args[1])}
        if flags & WRITE_FLAGS or not flags & {"O_RDONLY", "O_PATH"}:  # O_PATH: no I/O at all (a pin)
            return "os.open() for writing"
    if dotted in PATH_COPIES:
        return f"{dotted[0]}.{dotted[1]}()"
    if dotted in ARCHIVES and not any(k.arg == "fileobj" for k in call.keywords):
        if _writes(_mode(call, 1)):
            return f"{dotted[0]}.{dotted[1]}() for writing"
    if isinstance(func, ast.Attribute):
        if func.attr in BY_NAME:
            return f".{func.attr}()"
        if func.attr == "open" and dotted not in ARCHIVES | {("os", "open")} and _writes(_mode(call, 0)):
            return ".open() for writing"
        if func.attr == "savefig":
            first = call.args[0] if call.args else None
            if not (isinstance(first, ast.Name) and first.id in buffers):
                return "savefig() to a path"
    return ""


def violations(source: str, module: str) -> list[str]:
    """`module:function:line what` for each file write by name in `source` that ALLOWED does not list."""
    tree = ast.parse(source)
    buffers = _buffers(tree)
    found: list[str] = []

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                visit(child, [*scope, child.name])
                continue
            if isinstance(child, ast.Call):
                what = why_it_writes(child, buffers)
                where = f"{module}:{'.'.join(scope) or '<module>'}"
                if what and where not in ALLOWED:
                    found.append(f"{where}:{child.lineno} {what}")
            visit(child, scope)

    visit(tree, [])
    return found


def test_src_writes_files_only_through_write_private():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        module = path.relative_to(SRC).as_posix()
        found += violations(path.read_text(encoding="utf-8"), module)
    assert not found, "files written by name, not through iolab.private.write_private:\n" + "\n".join(found)


def test_every_allowed_function_still_exists_and_writes():
    """An entry whose function was renamed or stopped writing would silently allow a new one."""
    for key in ALLOWED:
        module, function = key.split(":")
        tree = ast.parse((SRC / module).read_text(encoding="utf-8"))
        node: ast.AST | None = tree
        for name in function.split("."):
            assert node is not None, key
            node = next(
                (
                    n
                    for n in ast.iter_child_nodes(node)
                    if isinstance(n, ast.FunctionDef | ast.ClassDef) and n.name == name
                ),
                None,
            )
        assert node is not None, f"{key} is no longer there: remove it from ALLOWED"
        calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
        assert any(why_it_writes(c, _buffers(tree)) for c in calls), f"{key} writes no file: remove it from ALLOWED"


PLANTED = [
    ('def f(p):\n    open(p, "w").write("x")\n', "open() for writing"),
    ('def f(p):\n    open(p, mode="ab")\n', "open() for writing"),
    ("def f(p, m):\n    open(p, m)\n", "open() for writing"),
    ("import os\ndef f(p):\n    os.open(p, os.O_WRONLY | os.O_CREAT)\n", "os.open() for writing"),
    ("import os\ndef f(p):\n    os.open(p, os.O_PATH | os.O_RDWR)\n", "os.open() for writing"),
    ('def f(p):\n    p.write_text("x")\n', ".write_text()"),
    ('def f(p):\n    p.write_bytes(b"x")\n', ".write_bytes()"),
    ('def f(p):\n    p.open("w")\n', ".open() for writing"),
    ("def f(fig, p):\n    fig.savefig(p)\n", "savefig() to a path"),
    ('import tarfile\ndef f(p):\n    tarfile.open(p, "w:gz")\n', "tarfile.open() for writing"),
    ("import shutil\ndef f(a, b):\n    shutil.copy(a, b)\n", "shutil.copy()"),
    ("import os\ndef f(a, b):\n    os.replace(a, b)\n", "os.replace()"),
    ("import tempfile\ndef f():\n    tempfile.NamedTemporaryFile()\n", "tempfile.NamedTemporaryFile()"),
    ("class C:\n    def save(self, p):\n        p.touch()\n", ".touch()"),
]


@pytest.mark.parametrize(("source", "what"), PLANTED)
def test_a_planted_write_is_caught(source, what):
    found = violations(source, "report/planted.py")
    assert len(found) == 1 and found[0].endswith(what), found


def test_the_old_png_writer_is_caught_and_reads_and_buffers_are_not():
    old = "def save_png(fig, path):\n    fig.savefig(path, format='png', dpi=100)\n"
    assert violations(old, "report/charts.py") == ["report/charts.py:save_png:2 savefig() to a path"]
    fine = (
        "import io, os, tarfile\n"
        "def f(p, fig):\n"
        "    open(p).read(); open(p, 'rb'); p.open(); os.open(p, os.O_RDONLY); os.open(p, os.O_PATH)\n"
        "    buffer = io.BytesIO(); fig.savefig(buffer)\n"
        "    tarfile.open(p, 'r:*'); tarfile.open(fileobj=buffer, mode='w:gz')\n"
    )
    assert violations(fine, "report/fine.py") == []


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_report_png_replaces_a_planted_link_and_leaves_its_victim(tmp_path):
    """The issue's case: a symlink in the --png directory under a picture's name, pointing at a file."""
    from tests.iolab_cli import iolab

    job = tmp_path / "one.fio"
    job.write_text("[j]\nioengine=psync\nrw=randread\nbs=4k\nsize=1M\ntime_based=1\nruntime=1\n")
    target = tmp_path / "dir"
    target.mkdir()
    assert iolab("run", str(job), str(target), "--size", "1M", "--runtime", "1", "--ramp", "0").returncode == 0
    first = tmp_path / "first"
    proc = iolab("report", "1", "--png", str(first))
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in first.iterdir())
    assert names, "no charts to plant a link under"
    victim = tmp_path / "victim.dat"
    victim.write_bytes(os.urandom(1 << 16))
    before = hashlib.sha256(victim.read_bytes()).hexdigest()
    pictures = tmp_path / "pictures"
    pictures.mkdir()
    for name in names:
        (pictures / name).symlink_to(victim)
    proc = iolab("report", "1", "--png", str(pictures))
    assert proc.returncode == 0, proc.stderr
    assert hashlib.sha256(victim.read_bytes()).hexdigest() == before
    for name in names:
        picture = pictures / name
        assert not picture.is_symlink() and picture.read_bytes().startswith(b"\x89PNG"), name
