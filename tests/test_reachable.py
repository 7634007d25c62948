"""Every function and class in `src/` is named somewhere else in `src/`: code only the tests call is dead code
that the tests keep alive (a report printer no command prints, a statistic no page shows).

A definition counts as reached when its name appears in `src/` outside its own `def`: called, passed,
looked up as an attribute, or named in a string (a dispatch table, `__all__`). Decorated functions are
reached through their decorator's registry (rules, commands, validators) and are not judged. The check is by
name, so a method sharing its name with another reached one passes unseen: it finds the unreached functions
whose names nothing else uses, which is every one the fourth house pass removed but `Store.artifact` and
`Manifest.allows`/`contains` (method names used elsewhere too).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "iolab"
# Deliberately reached from tests only (or from a library), and why.
ALLOWED = {
    "clear_cache": "fio.catalog's cache of fio's answers, emptied by tests that put a fake fio on PATH",
    # a method of a library's protocol, called by the library, not by name in src/
    "process_renderables": "printable's render hook: Rich's RenderHook protocol, called by the Console it is pushed on",
}
_PLAIN_DECORATORS = {"staticmethod", "classmethod", "property"}


def _judged(node: ast.AST) -> bool:
    """A def or class reached only by being named (not through a decorator's registry), and not a dunder."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) or node.name.startswith("__"):
        return False
    return all(isinstance(d, ast.Name) and d.id in _PLAIN_DECORATORS for d in node.decorator_list)


def unreached(files: dict[str, str]) -> list[str]:
    """`path:line name` of each definition in `files` (path -> source) whose name nothing else in them uses."""
    used: set[str] = set()
    defined: list[tuple[str, int, str]] = []
    for path, text in files.items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Name):
                used.add(node.id)
            elif isinstance(node, ast.Attribute):
                used.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                used.update(re.findall(r"[A-Za-z_]\w*", node.value))
            if _judged(node):
                assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                defined.append((path, node.lineno, node.name))
    return [f"{path}:{line} {name}" for path, line, name in defined if name not in used and name not in ALLOWED]


def test_every_definition_in_src_is_reached_from_src() -> None:
    files = {str(p.relative_to(SRC.parent)): p.read_text() for p in sorted(SRC.rglob("*.py"))}
    assert unreached(files) == [], "called by no code in src/: wire it in where a command needs it, or remove it"


def test_a_function_only_a_test_calls_is_found() -> None:
    """The check on a planted case: one function called, one called by nobody, one reached through a string."""
    source = (
        "def used():\n    return 1\n\n"
        "def orphan():\n    return used()\n\n"
        "def named():\n    return 2\n\n"
        "TABLE = {'named': 'named'}\n\n"
        "@register\ndef registered():\n    return 3\n"
    )
    assert unreached({"planted.py": source}) == ["planted.py:4 orphan"]
