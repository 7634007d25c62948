"""Every process iolab starts is started by `iolab.programs`, which finds its program once and checks who could
have put it there (program-owner-chain): no other module of iolab may call anything that starts a process or looks
a program up on PATH. A module that did (`subprocess.run(["fio", ...])`) would run whatever `fio` comes first on
root's PATH, unchecked, and the generative test catches that only for the calls its cases reach; this test
reads every module (`ast`), so it catches the ones no case reaches too.

What counts as starting a process: subprocess's run, Popen, call, check_call, check_output, getoutput and
getstatusoutput; os.system, os.popen, os.exec*, os.spawn*, os.posix_spawn*; asyncio's create_subprocess_*;
pty.spawn; and shutil.which (a lookup on PATH that programs.find does, checked). Each is found however it is
reached: `import subprocess as sp`, `from os import execv as go`, `getattr(os, "system")`, or named without a
call (`functools.partial(subprocess.run, ...)`, a callback); a name in a type annotation (`proc:
subprocess.Popen`) starts nothing and is left alone.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "iolab"
MODULES = ("subprocess", "os", "asyncio", "asyncio.subprocess", "pty", "shutil", "posix")
STARTS = re.compile(
    r"^(?:subprocess\.(?:run|Popen|call|check_call|check_output|getoutput|getstatusoutput)"
    r"|(?:os|posix)\.(?:system|popen|exec\w*|spawn\w*|posix_spawn\w*|startfile)"
    r"|asyncio\.(?:subprocess\.)?create_subprocess_\w+|pty\.spawn|shutil\.which)$"
)
# module (relative to src/iolab) -> the calls it may make, and why
ALLOWED = {
    "programs.py": ({"shutil.which", "subprocess.run", "subprocess.Popen"}, "the one place programs start"),
    "fio/supervisor.py": (
        {"os.execv"},
        "fio's keeper, a standard-library script (no iolab import): it execs the absolute path iolab checked",
    ),
}


def process_starts(source: str) -> list[tuple[int, str]]:
    """(line, what) of each place in `source` that starts a process or looks a program up (see above)."""
    names: dict[str, str] = {}  # each local name an import binds: {"sp": "subprocess", "go": "os.execv"}
    annotations: list[ast.AST] = []
    candidates: list[ast.AST] = []
    for node in ast.walk(ast.parse(source)):  # one pass: the whole tree is read once (235 modules, ~1 s of CPU)
        if isinstance(node, ast.Import):
            names.update(
                {a.asname or a.name.split(".")[0]: a.name if a.asname else a.name.split(".")[0] for a in node.names}
            )
        elif isinstance(node, ast.ImportFrom):
            if node.module and node.level == 0:
                names.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
            candidates.append(node)
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
        elif isinstance(node, ast.arg) and node.annotation is not None:
            annotations.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            annotations.append(node.returns)
        elif isinstance(node, ast.Attribute | ast.Call):
            candidates.append(node)
    typed = {id(inner) for root in annotations for inner in ast.walk(root)}  # a type starts nothing
    found = set()
    for node in candidates:
        what = None if id(node) in typed else _started(node, names)
        if what and (STARTS.match(what) or what.endswith(".*")):
            found.add((node.lineno, what))  # type: ignore[attr-defined]
    return sorted(found)


def _started(node: ast.AST, names: dict[str, str]) -> str | None:
    """The dotted name `node` refers to, imports resolved ("subprocess.run"), when it is one of the process
    modules' names; `getattr(os, "system")` and `from subprocess import *` too."""
    if isinstance(node, ast.ImportFrom) and node.module in MODULES and any(a.name == "*" for a in node.names):
        return f"{node.module}.*"
    if isinstance(node, ast.ImportFrom) and node.module in MODULES:
        # `from os import execv` binds the name: reported where it is imported, whether or not it is called
        return next((f"{node.module}.{a.name}" for a in node.names if STARTS.match(f"{node.module}.{a.name}")), None)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
    ):
        base = _dotted(node.args[0], names)
        return f"{base}.{node.args[1].value}" if base else None
    if isinstance(node, ast.Attribute):
        return _dotted(node, names)
    return None


def _dotted(node: ast.AST, names: dict[str, str]) -> str | None:
    """`a.b.c` with `a` resolved through the imports, or None when `a` is not an imported name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in names:
        return None
    return ".".join([names[node.id], *reversed(parts)])


@functools.cache
def _module_starts() -> dict[str, list[tuple[int, str]]]:
    return {
        str(path.relative_to(SOURCE)): starts
        for path in sorted(SOURCE.rglob("*.py"))
        if (starts := process_starts(path.read_text()))
    }


def test_no_module_but_programs_starts_a_process():
    unexpected = {
        module: [f"line {line}: {what}" for line, what in starts if what not in ALLOWED.get(module, (set(), ""))[0]]
        for module, starts in _module_starts().items()
    }
    assert not {m: s for m, s in unexpected.items() if s}, "start it through iolab.programs (run, start)"


def test_every_allowance_is_still_used():
    """An allowance left after its call is gone would let the next one in unseen."""
    used = {module: {what for _, what in starts} for module, starts in _module_starts().items()}
    for module, (allowed, _why) in ALLOWED.items():
        assert allowed <= used.get(module, set()), f"{module}: allowed but no longer made: {allowed - used[module]}"


@pytest.mark.parametrize(
    "source, what",
    [
        ('import subprocess\nsubprocess.run(["fio", "--version"], check=False)\n', "subprocess.run"),
        ("import subprocess as sp\nsp.Popen(['fio'])\n", "subprocess.Popen"),
        ("from subprocess import check_output as co\nco(['fio'])\n", "subprocess.check_output"),
        ("import os\nos.system('fio')\n", "os.system"),
        ("import os\nos.execvp('fio', ['fio'])\n", "os.execvp"),
        ("import os\nos.posix_spawnp('fio', ['fio'], {})\n", "os.posix_spawnp"),
        ("import os\nos.spawnlp(os.P_WAIT, 'fio', 'fio')\n", "os.spawnlp"),
        ("import os\ngetattr(os, 'system')('fio')\n", "os.system"),
        ("import asyncio\nasyncio.create_subprocess_exec('fio')\n", "asyncio.create_subprocess_exec"),
        ("import pty\npty.spawn(['fio'])\n", "pty.spawn"),
        ("import shutil\nshutil.which('fio')\n", "shutil.which"),
        ("import functools, subprocess\nfunctools.partial(subprocess.call, ['fio'])\n", "subprocess.call"),
        ("from os import *\n", "os.*"),  # binds os.system and os.exec* unseen
        ("from subprocess import *\n", "subprocess.*"),
    ],
)
def test_each_way_to_start_a_process_is_found(source, what):
    assert what in [w for _, w in process_starts(source)]


def test_annotations_and_constants_start_nothing():
    source = (
        "import subprocess\n"
        "def f(proc: subprocess.Popen) -> subprocess.CompletedProcess:\n"
        "    p: subprocess.Popen[bytes] | None = None\n"
        "    return subprocess.DEVNULL, subprocess.TimeoutExpired\n"
    )
    assert process_starts(source) == []
