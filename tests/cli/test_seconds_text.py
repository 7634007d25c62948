"""fio's text for a number of seconds comes from one function, `fio.options.seconds_value`.

Python's own renderings go wrong for fio: `f"{1209600:g}s"` is `1.2096e+06s`, which fio reads as 1 s, and
`f"{2.5}s"` is cut to 2 s. Two checks over every module of src/iolab (parsed, not grepped):

- no f-string is a number glued to a time unit (`{x}s`, `{x}ms`, `{x}us`) outside `seconds_value`: iolab's
  words for people put a space before the unit (`52 s`), fio's text does not;
- every value written under one of fio's time options (`runtime`, `ramp_time`, ... as a dict key, a
  subscript or a keyword) is `seconds_value(...)` or a value read from elsewhere, never text made on the spot.
"""

from __future__ import annotations

import ast
from pathlib import Path

from iolab.fio.options import seconds_value
from iolab.models.option_spec import ALIASES, SPECS, in_seconds

SRC = Path(__file__).resolve().parents[2] / "src" / "iolab"
HOME = ("fio/options.py", "seconds_value")
TIME_KEYS = {name for name in SPECS if in_seconds(name)} | {
    alias for alias, name in ALIASES.items() if in_seconds(name)
}
MADE_TEXT = (ast.JoinedStr, ast.BinOp)  # f"...", "%ds" % n, str(n) + "s"


def _functions(tree: ast.Module) -> dict[ast.AST, str]:
    """Each node inside a function, with the name of the outermost function it is in: one pass over the tree
    (walking each function again visited a nested function's nodes once per function around it)."""
    owner: dict[ast.AST, str] = {}
    pending: list[tuple[ast.AST, str | None]] = [(tree, None)]
    while pending:
        node, name = pending.pop()
        if name is None and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name = node.name
        if name is not None:
            owner[node] = name
        pending += [(child, name) for child in ast.iter_child_nodes(node)]
    return owner


def _glued(node: ast.JoinedStr) -> bool:
    """A number glued to a time unit: a formatted value followed at once by s, ms or us."""
    for before, after in zip(node.values, node.values[1:], strict=False):
        if isinstance(before, ast.FormattedValue) and isinstance(after, ast.Constant):
            text = str(after.value)
            if text in ("s", "ms", "us") or text.startswith(("s ", "ms ", "us ", "s,", "ms,", "s)", "ms)")):
                return True
    return False


def _made_text(value: ast.AST) -> bool:
    """Text made on the spot: an f-string, a % or + expression, or str()/format()/.format() of something."""
    if isinstance(value, MADE_TEXT):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        return (isinstance(func, ast.Name) and func.id in ("str", "format", "repr")) or (
            isinstance(func, ast.Attribute) and func.attr == "format"
        )
    return False


def _time_writes(tree: ast.Module) -> list[tuple[int, ast.AST]]:
    """(line, value) of every value put under a time option's name."""
    found: list[tuple[int, ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value in TIME_KEYS:
                    found.append((node.lineno, value))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.slice, ast.Constant)
                    and target.slice.value in TIME_KEYS
                ):
                    found.append((node.lineno, node.value))
        elif isinstance(node, ast.Call):
            found += [(node.lineno, kw.value) for kw in node.keywords if kw.arg in TIME_KEYS]
    return found


def offences(root: Path = SRC) -> list[str]:
    """Every rendering of seconds for fio outside `seconds_value`, as `path:line: code`."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(), str(path))
        owner = _functions(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr) and _glued(node) and (relative, owner.get(node)) != HOME:
                found.append(f"{relative}:{node.lineno}: {ast.unparse(node)}")
        for line, value in _time_writes(tree):
            if _made_text(value):
                found.append(f"{relative}:{line}: {ast.unparse(value)}")
    return found


def test_seconds_become_fio_text_in_one_function_only():
    assert offences() == []


def test_the_check_finds_each_way_of_rendering_seconds_elsewhere(tmp_path):
    """A test of the test: each planted rendering is named, and the function itself is not."""
    planted = {
        "stop.py": 'def f(rule, options):\n    options["runtime"] = f"{rule.max_s:g}s"\n',
        "preset.py": "def g(runtime):\n    return {'ramp_time': str(runtime)}\n",
        "alias.py": "def h(o, n):\n    o['timeout'] = '%ds' % n\n",  # fio's alias of runtime
        "keyword.py": "def k(n):\n    return dict(runtime=f'{n}ms')\n",
        "glued.py": "def m(n):\n    return f'{n}us'\n",
        "human.py": "def p(n):\n    return f'{n} s'\n",  # a person's words: left alone
    }
    for name, text in planted.items():
        (tmp_path / name).write_text(text)
    named = {line.split(":")[0] for line in offences(tmp_path)}
    assert named == {"stop.py", "preset.py", "alias.py", "keyword.py", "glued.py"}


def test_seconds_value_is_text_fio_reads_exactly():
    assert seconds_value(2592000) == "2592000s"  # not 2.592e+06s, which fio cuts to 2 s
    assert seconds_value(2.5) == "2500ms"
    assert seconds_value(60.0) == "60s"
