"""fio options are read in one place: `JobOptions` (models/job_options.py) interprets option strings.

A job's options are strings under fio's names or their aliases (`readwrite=` is `rw=`, `nr_files=` is
`nrfiles=`), with fio's suffixes and defaults; a reader that looks one up by hand (`opts.get("rw")`,
`params["bs"]`) misses the alias, the default or the suffix, and shows `?` or reads `4g` as 0 bytes.
Every module under src/iolab is parsed with `ast`, and two kinds of raw read are refused outside the
modules allowed below:

- a lookup whose key is a string literal naming a fio option or alias (a row of the option table,
  `iolab.models.option_spec`), whatever the mapping is called: `x.get("rw")`, `m["bs"]`,
  `getattr(p, "options")["size"]`, `"nr_files" in m`. Options iolab refuses whatever their value (`name`,
  `opendir`, ... : `OptionSpec.refused`) never reach a job's options, so a key named like them (a JSON
  `name`) is something else and passes;
- any lookup in a mapping named `options`, or on a value named `job` (a `JobOptions` or a doctor
  `JobView`, whose `text`, `given`, `size`, `seconds`, `flag` and properties read an option as fio does),
  whatever the key.

Writing options (`options["direct"] = "0"`, `setdefault`, `update`, `pop`), walking them whole
(`items()`, `dict(options)`) and asking whether a name is among literal names (`"rw" in ("rw", "bs")`)
are not reads of one option and pass.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from iolab.models.option_spec import ROWS

SRC = Path(__file__).resolve().parent.parent / "src"

# Modules that read option strings by name, and why they may.
EXEMPT = {
    "iolab/models/option_spec.py": "the table itself",
    "iolab/models/job_options.py": "the reader",
    "iolab/fio/jobfile.py": "the renderer: refuses what fio must not see, by the names it writes",
}
# Modules whose literal keys are named like a fio option but are not one, each key by itself: fio's JSON
# (a direction's `runtime` in ms, a job's `steadystate` object and its `ss`), another tool's flags, and
# iolab's own settings named after fio's. Anything else named like an option in these modules is flagged.
NOT_OPTIONS: dict[str, dict[str, str]] = {
    "iolab/fio/parse.py": {"runtime": "fio's JSON", "steadystate": "fio's JSON", "ss": "fio's JSON"},
    "iolab/fio/validate.py": {"steadystate": "fio's JSON"},
    "iolab/fio/status.py": {"runtime": "fio's JSON status block"},
    "iolab/cluster/cluster.py": {"runtime": "fio's JSON of a client's job"},
    "iolab/runner/request.py": {"runtime": "PresetSettings: --runtime in seconds, iolab's, not fio's string"},
    "iolab/tools/ior.py": {"direct": "IOR's own flags (-B)"},
}
# fio's option names and aliases that can stand in a job's options.
OPTION_NAMES = frozenset(name for row in ROWS if not row.refused for name in (row.name, *row.aliases))
MAPPINGS = frozenset({"options"})
JOBS = frozenset({"job"})


@dataclass(frozen=True)
class RawRead:
    path: str
    line: int
    code: str
    key: str | None = None  # the literal key, when it is one

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.code}"


def _name(node: ast.expr) -> str | None:
    """The last name of an expression: `point.options` -> "options", `job` -> "job"."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _lookup(node: ast.AST) -> tuple[ast.expr, ast.expr] | None:
    """(mapping, key) if `node` looks one key up: `m.get(k)`, `m[k]` read, `k in m` (not `k in (a, b)`)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        return node.func.value, node.args[0]
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        return node.value, node.slice
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In | ast.NotIn):
        among = node.comparators[0]
        if not isinstance(among, ast.Tuple | ast.List | ast.Set):
            return among, node.left
    return None


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def raw_reads(source: str, path: str) -> list[RawRead]:
    """Every raw option read in one module's source (its allowed keys, `NOT_OPTIONS`, pass)."""
    allowed = NOT_OPTIONS.get(path, {})
    found = []
    for node in ast.walk(ast.parse(source)):
        lookup = _lookup(node)
        if lookup is None:
            continue
        mapping, key = lookup
        literal = _literal(key)
        if (literal in OPTION_NAMES and literal not in allowed) or _name(mapping) in MAPPINGS | JOBS:
            found.append(RawRead(path, node.lineno, ast.unparse(node), literal))
    return sorted(found, key=lambda read: read.line)


def reads_under(root: Path) -> list[RawRead]:
    """The raw reads of every module under `root` (a tree holding `iolab/`), but the exempt modules'."""
    found = []
    for path in sorted((root / "iolab").rglob("*.py")):
        module = path.relative_to(root).as_posix()
        if module not in EXEMPT:
            found += raw_reads(path.read_text(encoding="utf-8"), module)
    return found


def test_options_are_read_only_through_job_options() -> None:
    found = reads_under(SRC)
    assert not found, "read these through JobOptions (`text`, `given`, `size`...):\n" + "\n".join(map(str, found))


def test_every_allowance_is_still_needed() -> None:
    """An allowed key no module reads any more is taken out, so the allow-list stays as narrow as the code."""
    for module, keys in NOT_OPTIONS.items():
        tree = ast.parse((SRC / module).read_text(encoding="utf-8"))
        literals = {_literal(lookup[1]) for node in ast.walk(tree) if (lookup := _lookup(node)) is not None}
        assert set(keys) <= literals, (module, set(keys) - literals)
        assert set(keys) <= OPTION_NAMES, "allow only keys the check would flag"
    assert all((SRC / module).is_file() for module in EXEMPT)


PLANTED = """
def shape(point, params, section, cfg, row, data, job):
    opts = point.options
    mode = opts.get("rw", "?")
    size = params["bs"]
    whole = getattr(point, "options")["size"]
    files = "nr_files" in section.by_name
    legacy = cfg.get("readwrite")
    spread = "offset_increment" not in row
    depth = job.text("iodepth"), job["numjobs"]
    other = point.options[row]
    params["direct"] = "0"
    params.setdefault("size", "1g")
    params.pop("ramp_time", None)
    label = data["name"], data.get("hostname")
    among = "rw" in ("rw", "bs")
    return job.rw, job.given("verify"), dict(params), mode, size, whole, files, legacy, spread, depth, other
"""


def test_a_planted_raw_read_is_found_whatever_the_variable_is_called(tmp_path: Path) -> None:
    """The check finds a literal option key through any name (an alias too), and any key in `options` or
    `job`; writes, a refused option's name, another key and a membership among literals pass."""
    module = tmp_path / "iolab" / "views" / "planted.py"
    module.parent.mkdir(parents=True)
    module.write_text(PLANTED, encoding="utf-8")
    found = reads_under(tmp_path)
    assert [read.line for read in found] == [4, 5, 6, 7, 8, 9, 10, 11]
    assert str(found[0]) == "iolab/views/planted.py:4: opts.get('rw', '?')"
    assert [read.key for read in found] == [
        "rw",
        "bs",
        "size",
        "nr_files",
        "readwrite",
        "offset_increment",
        "numjobs",
        None,
    ]


def test_an_allowance_is_one_key_of_one_module() -> None:
    """fio/parse.py may read fio's JSON `runtime`, not `bs`; ior.py may read its flag `direct`, not `rw`."""
    source = 'def f(part, flags):\n    return part.get("runtime"), part["bs"], flags["direct"], flags["rw"]\n'
    assert [read.key for read in raw_reads(source, "iolab/fio/parse.py")] == ["bs", "direct", "rw"]
    assert [read.key for read in raw_reads(source, "iolab/tools/ior.py")] == ["runtime", "bs", "rw"]
