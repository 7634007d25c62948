"""`scripts/complexity` (run by `make check`, which is where src/ itself is held to it) fails on a function
above CC 25, naming it."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "complexity"


def _gate() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("complexity_gate", str(SCRIPT))
    spec = importlib.util.spec_from_loader("complexity_gate", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _branches(name: str, count: int) -> str:
    """A function of cyclomatic complexity `count` + 1: one `if` per branch."""
    body = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(count))
    return f"def {name}(x):\n{body}    return -1\n"


def test_a_function_over_the_limit_is_named(tmp_path: Path) -> None:
    gate = _gate()
    (tmp_path / "iolab").mkdir()
    fine = _branches("fine", gate.LIMIT - 1)  # CC 25: allowed
    (tmp_path / "iolab" / "planted.py").write_text(fine + _branches("grown", gate.LIMIT))
    assert gate.problems(tmp_path) == [
        f"iolab/planted.py:{len(fine.splitlines()) + 1} grown has cyclomatic complexity {gate.LIMIT + 1} (limit 25)"
    ]


def test_a_method_over_the_limit_is_named_once(tmp_path: Path) -> None:
    gate = _gate()
    (tmp_path / "iolab").mkdir()
    method = "\n".join("    " + line for line in _branches("grown", gate.LIMIT).splitlines())
    (tmp_path / "iolab" / "planted.py").write_text(f"class C:\n{method.replace('(x)', '(self, x)')}\n")
    assert gate.problems(tmp_path) == [
        f"iolab/planted.py:2 C.grown has cyclomatic complexity {gate.LIMIT + 1} (limit 25)"
    ]
