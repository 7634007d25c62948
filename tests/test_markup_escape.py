"""Text from outside iolab never reaches Rich's markup parser unescaped.

A target path, a job or host name, an option, fio's or a server's error line, a note: any of them may hold
`[` and `]`. Printed inside a markup string, `[/]` raised MarkupError and `iolab run "/tmp/a[/]b"` ended in
a traceback after its first point; `[red]` would restyle the line. So every value put into a printed
f-string with markup on goes through `escape()` (or the call says `markup=False`), unless it is one of
iolab's own numbers. This walks the AST of src/ and fails on any other; the planted calls below show it
finds one. (Its limit: a bare variable passed to print is not checked; those calls say markup=False.)
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "iolab"
PRINTS = frozenset({"print", "log"})
# iolab's own numbers and Rich style names from its own tables: nothing a user or a device can put text into
NUMBERS = frozenset({"index", "total", "run_id", "number", "id", "skipped", "cpus_online", "style", "label", "likely"})
NUMERIC_FORMAT = frozenset("dfegn%")


def _safe(value: ast.expr, spec: ast.expr | None) -> bool:
    if spec is not None and isinstance(spec, ast.JoinedStr):
        text = "".join(str(v.value) for v in spec.values if isinstance(v, ast.Constant))
        if text and text[-1] in NUMERIC_FORMAT:
            return True  # formatted as a number
    if isinstance(value, ast.Call):
        name = value.func.id if isinstance(value.func, ast.Name) else getattr(value.func, "attr", "")
        return name in ("escape", "len")
    if isinstance(value, ast.Subscript):
        return isinstance(value.value, ast.Name) and value.value.id in ("counts", "ids")
    if isinstance(value, ast.Name):
        return value.id in NUMBERS
    if isinstance(value, ast.Attribute):
        return value.attr in NUMBERS
    return False


def unescaped(source: str, filename: str) -> list[str]:
    """`file:line value` for each value a markup print interpolates without escaping it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in PRINTS):
            continue
        if any(
            k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False for k in node.keywords
        ):
            continue
        for arg in node.args:
            for part in ast.walk(arg):
                if isinstance(part, ast.FormattedValue) and not _safe(part.value, part.format_spec):
                    found.append(f"{filename}:{node.lineno} {ast.unparse(part.value)}")
    return found


def test_no_outside_text_reaches_rich_markup_unescaped():
    found = [x for path in sorted(SRC.rglob("*.py")) for x in unescaped(path.read_text(encoding="utf-8"), path.name)]
    assert not found, f"escape() these, or print with markup=False: {found}"


def test_the_walk_finds_a_planted_unescaped_value():
    planted = (
        'console.print(f"  [{index}/{total}] {point.name} on {point.target.path}")\n'
        'console.print(f"[yellow]note:[/yellow] {escape(note)} {len(x)} {rate:.1f}")\n'
        'console.print(f"{verb} {path}", markup=False)\n'
        'err.print(f"[red]failed:[/red] {error}")\n'
    )
    assert unescaped(planted, "p.py") == ["p.py:1 point.name", "p.py:1 point.target.path", "p.py:4 error"]
