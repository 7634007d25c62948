"""fio options are read in one place: `JobOptions` (models/job_options.py) interprets option strings.

A job's options are strings under fio's names or their aliases (`readwrite=` is `rw=`), with fio's
suffixes and defaults; a reader that looks one up by hand (`point.options.get("rw")`, `job.get("bs")`)
misses the alias, the default or the suffix, and shows `?` or reads `4g` as 0 bytes. Every module under
src/iolab is parsed with `ast`, and a raw read is refused anywhere outside the reader:

- any lookup in a mapping named `options` (`x.options.get(k)`, `options[k]`, `k in section.options`):
  the name iolab gives every option mapping;
- `.get(...)`, `[...]` or `in` on a value named `job`: the name iolab gives a `JobOptions` or a doctor
  `JobView`, whose `text`, `given`, `size`, `seconds`, `flag` and properties read an option as fio does.

Writing options (`options["direct"] = "0"`, `setdefault`, `update`) and walking them whole (`items()`,
`dict(options)`) are not reads of one option and pass.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

# The reader and its vocabulary, and the one writer that must check the strings exactly as fio reads them.
EXEMPT = {
    "iolab/models/job_options.py": "the reader",
    "iolab/models/option_values.py": "the reader's vocabulary: fio's aliases, suffixes and defaults",
    "iolab/fio/jobfile.py": "writes a job's strings as they are and refuses what fio must not see, name by name",
}
MAPPINGS = frozenset({"options"})
JOBS = frozenset({"job"})


@dataclass(frozen=True)
class RawRead:
    path: str
    line: int
    code: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.code}"


def _name(node: ast.expr) -> str | None:
    """The last name of an expression: `point.options` -> "options", `job` -> "job"."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _looked_up(node: ast.AST) -> ast.expr | None:
    """The mapping one key is looked up in, if `node` is such a lookup: `m.get(k)`, `m[k]` read, `k in m`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return node.func.value
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        return node.value
    if isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In | ast.NotIn) and len(node.ops) == 1:
        return node.comparators[0]
    return None


def raw_reads(source: str, path: str) -> list[RawRead]:
    """Every raw option read in one module's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        mapping = _looked_up(node)
        if mapping is not None and _name(mapping) in MAPPINGS | JOBS:
            found.append(RawRead(path, node.lineno, ast.unparse(node)))
    return found


def test_options_are_read_only_through_job_options() -> None:
    found = []
    for path in sorted((SRC / "iolab").rglob("*.py")):
        module = path.relative_to(SRC).as_posix()
        if module not in EXEMPT:
            found += raw_reads(path.read_text(encoding="utf-8"), module)
    assert not found, "read these through JobOptions (`text`, `given`, `size`...):\n" + "\n".join(map(str, found))


def test_a_planted_raw_read_fails() -> None:
    """The check finds each kind of raw read, and lets writes and JobOptions' own readers pass."""
    planted = """
def shape(point, section, job, options):
    rw = point.options.get("rw", "?")
    size = options["size"]
    shared = "offset_increment" not in section.options
    verify = job.get("verify")
    depth = job["iodepth"]
    options["direct"] = "0"
    options.setdefault("size", "1g")
    return job.rw, job.text("bs"), job.given("verify"), job.size("size"), dict(options)
"""
    found = raw_reads(planted, "planted.py")
    assert [read.line for read in found] == [3, 4, 5, 6, 7]
    assert str(found[0]) == "planted.py:3: point.options.get('rw', '?')"
