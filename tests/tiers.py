"""Which tier a test is in, from what the test itself uses (tests/conftest.py marks it).

A test is end to end when the code it runs before its first assertion can reach something real: fio (a
`which("fio")` skip guard, `requires_fio`), the iolab command in a fresh process (`python -m iolab`, or the
script beside the interpreter: `with_name("iolab")`, `.parent / "iolab"`), loop devices, Chromium, sshd, or the report tests' stores of real runs. What
it runs is read from the code: the test's function and decorators, its class, the module's `pytestmark`,
every fixture it asks for (named in pytest's closure of them), and whatever module-level function, constant
or helper those name, followed into the helper modules of tests/ (`from tests.iolab_cli import iolab`).
Docstrings, comments and strings are never uses: a fast test in a file whose docstring says "fio" (or whose
neighbour runs fio) stays in the fast tier; the file used to be marked whole on any of its words.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# Names (of a fixture, a helper, a marker, a module) that stand for something real.
REAL_NAMES = re.compile(r"^(requires_fio|stored_runs)$|loopdev|chromium|sshd")


def _is(node: ast.AST, text: str) -> bool:
    return isinstance(node, ast.Constant) and node.value == text


def _real(name: str) -> bool:
    return bool(REAL_NAMES.search(name))


def _real_call(node: ast.Call) -> bool:
    """`which("fio")`, `with_name("iolab")`."""
    if not node.args or not isinstance(node.args[0], ast.Constant):
        return False
    called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    return (called, node.args[0].value) in {("which", "fio"), ("with_name", "iolab")}


def _script_beside_the_interpreter(node: ast.BinOp) -> bool:
    """`Path(sys.executable).parent / "iolab"`."""
    left = node.left
    return (
        isinstance(node.op, ast.Div)
        and isinstance(left, ast.Attribute)
        and left.attr == "parent"
        and _is(node.right, "iolab")
    )


# What makes a node of each kind a use (any other kind is none).
USES: dict[type, Callable[[Any], bool]] = {
    ast.Name: lambda node: _real(node.id),
    ast.Attribute: lambda node: _real(node.attr),
    ast.arg: lambda node: _real(node.arg),
    ast.ImportFrom: lambda node: _real((node.module or "").rpartition(".")[2]),
    ast.Call: _real_call,
    ast.BinOp: _script_beside_the_interpreter,
    ast.List: lambda node: _command_line(node.elts),
    ast.Tuple: lambda node: _command_line(node.elts),
}


def _uses_something_real(node: ast.AST) -> bool:
    """Whether this node itself is a use: a real name, `which("fio")`, `with_name("iolab")`, the script beside
    the interpreter, or a command line starting the iolab command or a bench in a fresh interpreter."""
    use = USES.get(type(node))
    return use is not None and use(node)


def _command_line(elements: list[ast.expr]) -> bool:
    """A fresh interpreter started on iolab's command or a bench: `-m iolab`, a script under bench/ (named
    through BENCH), or `-c` code that calls iolab.cli's main (code built at run time, a test's own script,
    is not read; nor is a module of src/ run as a script, such as the supervisor)."""
    words = [e.value if isinstance(e, ast.Constant) else None for e in elements]
    if any(words[i : i + 2] == ["-m", "iolab"] for i in range(len(words))):
        return True
    starts = next((i for i, e in enumerate(elements) if isinstance(e, ast.Attribute) and e.attr == "executable"), None)
    return starts is not None and _interpreter_runs_iolab(elements[starts + 1 :], words[starts + 1 :])


def _interpreter_runs_iolab(after: list[ast.expr], words: list[object]) -> bool:
    """What follows `sys.executable` on a command line: `-c` code calling iolab.cli, or a bench script."""
    if not after:
        return False
    if words[0] == "-c":
        return len(words) > 1 and isinstance(words[1], str) and "iolab.cli" in words[1]
    return any(isinstance(n, ast.Name) and n.id == "BENCH" for n in ast.walk(after[0]))


_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


class _Module:
    """One Python file of tests/: its top-level definitions by name, and where its imported names come from."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tree = ast.parse(path.read_text(encoding="utf-8"))
        self.defined: dict[str, list[ast.AST]] = {}
        self.imported: dict[str, tuple[str, str]] = {}  # local name -> (tests module, its name there)
        for statement in self.tree.body:
            for name in _names_bound(statement):
                self.defined.setdefault(name, []).append(statement)
            if isinstance(statement, ast.ImportFrom) and (statement.module or "").startswith("tests"):
                for alias in statement.names:
                    self.imported[alias.asname or alias.name] = (statement.module or "", alias.name)

    @cached_property
    def by_name(self) -> dict[str, list[_Definition]]:
        """Every function and class, nested ones too, in the order of a walk; read once, when first asked."""
        found: dict[str, list[_Definition]] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, _Definition):
                found.setdefault(node.name, []).append(node)
        return found

    def node_at(self, name: str, line: int) -> ast.AST | None:
        """The function or class called `name` whose definition spans `line` (a method of a test class too)."""
        for node in self.by_name.get(name, []):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first <= line <= (node.end_lineno or node.lineno):
                return node
        return None


def _names_bound(statement: ast.stmt) -> list[str]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).partition(".")[0] for a in statement.names]
    return []


@cache
def _module(path: Path) -> _Module | None:
    try:
        return _Module(path)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None


def _module_file(dotted: str) -> Path | None:
    base = ROOT / Path(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _code(node: ast.AST) -> list[ast.AST]:
    """The nodes of a definition, its docstrings left out (what a docstring says is not what the code uses).
    One pass: a node is met before its children, so its docstring is known before the walk reaches it."""
    skip = set()
    out: list[ast.AST] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in skip:
            continue
        out.append(current)
        body = getattr(current, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            skip.add(id(body[0]))
        stack.extend(ast.iter_child_nodes(current))
    return out


@cache
def reaches_something_real(path: Path, name: str, line: int = 0) -> bool:
    """Whether the definition `name` of the file at `path` (at `line` when given: a method, a fixture's
    function) reaches something real, through the module-level names and the tests/ helpers it uses."""
    module = _module(path)
    if module is None:
        return False
    start = module.node_at(name, line) if line else None
    walk = _Walk()
    walk.pending = [(module, start)] if start is not None else [(module, d) for d in module.defined.get(name, [])]
    return walk.reaches()


class _Walk:
    """The code a test runs, walked definition by definition. A name bound inside a function (a parameter, a
    local) is not the module's; a name in a module-level table is followed only where the table calls it; a
    class's methods are walked once something names them (`case.world()`), its dunders at once."""

    def __init__(self) -> None:
        self.pending: list[tuple[_Module, ast.AST]] = []
        self.seen: set[tuple[Path, int]] = set()
        self.attributes: set[str] = set()
        self.methods: dict[str, list[tuple[_Module, ast.AST]]] = {}

    def reaches(self) -> bool:
        while self.pending:
            module, node = self.pending.pop()
            if (module.path, id(node)) in self.seen:
                continue
            self.seen.add((module.path, id(node)))
            if isinstance(node, ast.ClassDef):
                self._class(module, node)
            elif self._walk(module, node):
                return True
        return False

    def _class(self, module: _Module, node: ast.ClassDef) -> None:
        for statement in node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and not statement.name.startswith("__"):
                if statement.name in self.attributes:
                    self.pending.append((module, statement))
                else:
                    self.methods.setdefault(statement.name, []).append((module, statement))
            else:
                self.pending.append((module, statement))
        self.pending += [(module, d) for d in [*node.decorator_list, *node.bases]]

    def _walk(self, module: _Module, node: ast.AST) -> bool:
        uses = _uses(node)
        if uses.real:
            return True
        for attribute in uses.attributes:
            self.attributes.add(attribute)
            self.pending += self.methods.pop(attribute, [])
        for name in uses.names:
            self.pending += _definitions(module, name)
        return False


@dataclass(frozen=True)
class _Uses:
    """What one definition's own code does, read once (the modules are cached, so are their nodes): whether it
    is itself a use, else the attributes and the names not bound inside it that it follows on to."""

    real: bool
    attributes: tuple[str, ...] = ()
    names: tuple[str, ...] = ()


@cache
def _uses(node: ast.AST) -> _Uses:
    """Read once per node: a test's walk meets the same helpers and fixtures as every other test's walk."""
    code = _code(node)  # a docstring holds no call and binds no name: its nodes are not needed below either
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        code = _called_only(code)
    if any(_uses_something_real(inner) for inner in code):
        return _Uses(real=True)
    local = _bound_inside(node, code)
    attributes = [inner.attr for inner in code if isinstance(inner, ast.Attribute)]
    names = [inner.id for inner in code if isinstance(inner, ast.Name) and inner.id not in local]
    return _Uses(False, tuple(dict.fromkeys(attributes)), tuple(dict.fromkeys(names)))


def _called_only(code: list[ast.AST]) -> list[ast.AST]:
    """A module-level table's nodes but the names it holds without calling them: a table's entry is run by
    whoever calls it from the table, not by reading the table."""
    called = {id(c.func) for c in code if isinstance(c, ast.Call)}
    return [inner for inner in code if not isinstance(inner, ast.Name) or id(inner) in called]


def _bound_inside(node: ast.AST, code: list[ast.AST]) -> set[str]:
    """The names a function binds itself (parameters, assignments): not the module's names of that spelling."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    arguments = node.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    bound = {a.arg for a in every if a is not None}
    return bound | {n.id for n in code if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


@cache
def _definitions(module: _Module, name: str) -> tuple[tuple[_Module, ast.AST], ...]:
    """Where a name used in `module` is defined: at its top level, or in the tests/ module it imports it from."""
    if name in module.imported:
        dotted, original = module.imported[name]
        file = _module_file(dotted)
        source = _module(file) if file is not None else None
        if source is None:
            return ()
        return tuple((source, d) for d in source.defined.get(original, []))
    return tuple((module, d) for d in module.defined.get(name, []))


def is_end_to_end(path: Path, function: str, line: int, cls: str | None, fixtures: list[tuple[Path, str, int]]) -> bool:
    """Whether a test (its function at `line` of the file at `path`, in class `cls`, asking for `fixtures`:
    each fixture's file, function name and line) reaches something real (see above)."""
    if reaches_something_real(path, function, line) or reaches_something_real(path, "pytestmark"):
        return True
    if cls is not None and reaches_something_real(path, cls):
        return True
    return any(
        REAL_NAMES.search(name) or REAL_NAMES.search(file.stem) or reaches_something_real(file, name, at)
        for file, name, at in fixtures
    )  # a fixture of tests/report/stored_runs.py (or loopdev.py, chromium.py) is real by where it lives


class Verdicts:
    """`is_end_to_end`'s answers, kept for the next collection of the same tests/ source.

    `make test` collects the whole suite once while the lint runs, then once on each pytest-xdist worker, and
    each collection read the same ~500 files' code for the same 7,000 answers (about 5 s of CPU each, on a
    2-CPU host where the workers' collections run side by side before any test starts). The file is named by a
    hash of every .py file under tests/ (the only code the answers read), so an edit anywhere there makes a new
    one; an answer not in it is worked out here and saved with the rest."""

    def __init__(self, directory: Path = ROOT / "tests" / "__pycache__", root: Path = ROOT) -> None:
        digest = hashlib.sha256()
        for file in sorted((root / "tests").rglob("*.py")):
            digest.update(file.relative_to(root).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
        self.directory = directory
        self.path = directory / f"tiers-{digest.hexdigest()[:20]}.json"
        try:
            known = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
        self.known: dict[str, bool] = known if isinstance(known, dict) else {}
        self.added = False

    def is_end_to_end(
        self, path: Path, function: str, line: int, cls: str | None, fixtures: list[tuple[Path, str, int]]
    ) -> bool:
        key = json.dumps([str(path), function, line, cls, [[str(f), name, at] for f, name, at in fixtures]])
        if not isinstance(self.known.get(key), bool):
            self.known[key] = is_end_to_end(path, function, line, cls, fixtures)
            self.added = True
        return self.known[key]

    def save(self) -> None:
        """Written whole under another name, then renamed: a worker reading it meanwhile sees the old file or
        the new one. The files of older sources go."""
        if not self.added:
            return
        try:
            self.directory.mkdir(exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=self.directory, prefix=".tiers-")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(self.known, out)
            os.replace(temporary, self.path)
            for old in self.directory.glob("tiers-*.json"):
                if old != self.path:
                    old.unlink(missing_ok=True)
        except OSError:  # a read-only checkout: every collection works the answers out, as before
            return
        self.added = False
