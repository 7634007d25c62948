"""How many wrong versions of iolab's numbers do the unit tests catch? A mutation run over analysis/ and
fio/ parsing (issue 31).

A mutant is the code with one small change of the kind a slip makes: a comparison turned (< into <=,
== into !=), an operator swapped (+ and -, * and /), a constant moved by one, True and False or `and`
and `or` exchanged, a `not` dropped. Each is written into a copy of the package (the worktree is never
touched) and the unit tests of its module run against it (`-x`, first failure ends the run): a failing
test kills the mutant; a mutant every test passes survives, and is either a gap in the tests or a change
that means the same (an equivalent mutant), which docs/benchmarks.md explains.

Mutants are drawn at random with a fixed seed, `--per-module` from each module (all of them with
`--per-module 0`), each module from a generator seeded by the seed and the module's name: the same module
gives the same mutants whatever else changed (one draw shared by every module moved every later module's
mutants when one module gained a line). The score is killed / (killed + survived).
A mutant's tests are timed by their own time, the wall clock less their waits for a CPU (`OwnClock`: on a
host at a load of 15-22 on two CPUs most of 120 s of wall clock was waiting), and a time-out ends every
process they started. A mutant whose tests time out runs once more after the others with a longer budget: its
outcome is that run's; when it times out again it is killed by time-out (an infinite loop is caught) only if the same tests
pass on the unmutated source within that budget, else it is "unjudged" and not killed; the result counts
time-outs apart (`timeouts`). Goal: at least 85%.
Writes bench/results/mutation.json with the score and every survivor (module, line, change).

    .venv/bin/python bench/mutation.py [--per-module 12] [--modules analysis/knee.py,fio/parse.py]

Over the whole of src/ (issue 41): `--whole` draws from every module of the package (views, runner,
safety, probe, compare wiring, ...), and each mutant runs against the fast-tier tests that execute its
line, from a coverage map made once (`--coverage-map FILE`: the fast tier, `pytest -m "not e2e"`, run once
under coverage.py with one dynamic context per test; built when FILE is missing, its test files dealt to
`--coverage-shards` processes side by side). A mutant on a line no
fast test runs survives as "not covered". Test files added or changed since the map was made are run
under coverage on their own and merged in (the map remembers which files it holds). Scores: killed /
(killed + survived), overall and per package, and killed / (mutants - equivalent): bench/mutation_notes.json
says, per survivor (module, change and the line's text), why it survives, and which are equivalent (a
change that means the same); the result lists every survivor with its why.

    .venv/bin/python bench/mutation.py --whole --per-module 1 --coverage-map /tmp/iolab-coverage.json
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy  # noqa: F401  (imported once, before the forks: every mutant's tests use it)
import pytest
from results_file import RESULTS, add_smoke_flag, host, write_result

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "iolab"
# The modules whose numbers users quote: every analysis module, and fio's output parsers.
MODULES = sorted(str(p.relative_to(SRC)) for p in (SRC / "analysis").glob("*.py") if p.name != "__init__.py") + [
    "fio/logs.py",
    "fio/parse.py",
    "fio/status.py",
    "fio/terse.py",
]
# Every module of the package, for `--whole`: what a page shows and what guards a write as much as the numbers.
WHOLE = sorted(str(p.relative_to(SRC)) for p in SRC.rglob("*.py") if p.name not in ("__init__.py", "__main__.py"))
TIMEOUT_S = 120.0
# a mutant whose tests ran past TIMEOUT_S runs once more, after the others, with this long: on a loaded host
# 120 s ends slow tests that would have passed, and every such end counted as a kill
RERUN_TIMEOUT_S = 480.0

SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.And: ast.Or,
    ast.Or: ast.And,
}


@dataclass(frozen=True)
class Mutant:
    module: str
    index: int  # which mutable site of the module, in AST walk order
    line: int
    change: str
    # the first line of the statement holding it (the line coverage.py counts as run), negative when that
    # statement runs at import: a test that happened to import the module first is no reader of it
    statement: int = 0


def _not_computations(tree: ast.AST) -> set[int]:
    """Constants that are no part of a computation: docstrings, and decorators' arguments
    (`@dataclass(frozen=True)`: whether a result may be assigned to, which no code does)."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            found.add(id(body[0].value))
        for decorator in getattr(node, "decorator_list", []):
            found |= {id(n) for n in ast.walk(decorator)}
    return found


def sites(tree: ast.AST) -> list[tuple[ast.AST, int, str]]:
    """Every place a mutation applies (the node, which operator of a comparison, what would change), in a
    fixed order."""
    skip = _not_computations(tree)
    out: list[tuple[ast.AST, int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            out += [
                (node, i, f"{type(op).__name__} -> {SWAPS[type(op)].__name__}")
                for i, op in enumerate(node.ops)
                if type(op) in SWAPS
            ]
        elif isinstance(node, (ast.BinOp, ast.AugAssign, ast.BoolOp)) and type(node.op) in SWAPS:
            out.append((node, 0, f"{type(node.op).__name__} -> {SWAPS[type(node.op)].__name__}"))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append((node, 0, "not x -> x"))
        elif isinstance(node, ast.Constant) and id(node) not in skip:
            if isinstance(node.value, bool):
                out.append((node, 0, f"{node.value} -> {not node.value}"))
            elif isinstance(node.value, (int, float)):
                out.append((node, 0, f"{node.value!r} -> {node.value + 1!r}"))
    return out


def mutated_source(source: str, index: int) -> str:
    """The module's source with its `index`-th site mutated (comments are lost: the copy is only run)."""
    tree = ast.parse(source)
    node, slot, _ = sites(tree)[index]
    if isinstance(node, ast.Compare):
        node.ops[slot] = SWAPS[type(node.ops[slot])]()
    elif isinstance(node, (ast.BinOp, ast.AugAssign, ast.BoolOp)):
        node.op = SWAPS[type(node.op)]()
    elif isinstance(node, ast.UnaryOp):
        replacement = node.operand
        ast.copy_location(replacement, node)
        _replace(tree, node, replacement)
    elif isinstance(node, ast.Constant):
        value = node.value
        # `sites` holds only bool, int and float constants
        node.value = (not value) if isinstance(value, bool) else value + 1 if isinstance(value, (int, float)) else value
    return ast.unparse(tree)


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
                return
            if isinstance(value, list) and any(v is old for v in value):
                value[[i for i, v in enumerate(value) if v is old][0]] = new
                return


MADE = "__made__"  # the map's own key: when the run that made it started (seconds since the epoch)
BLOBS = "__blobs__"  # and the git blob id of each test file and src module it was made from
DURATIONS = "__durations__"  # and each test's seconds in that run (node id without parameters)
TIERS = ("tests/conftest.py", "tests/tiers.py")  # which tests are fast: when these change, unmapped files may have some


def coverage_map(path: Path, modules: list[str] | None = None, shards: int = 1) -> dict[str, dict[int, list[str]]]:
    """module (relative to src/iolab) -> line -> the fast-tier tests that run that line (pytest node ids,
    `tests/x/test_y.py::test_z`: a mutant runs those tests, not their whole files); read from `path`, or made
    there by running the fast tier once under coverage.py (one dynamic context per test).

    The map is brought up to date by content, not by files' times (a fresh worktree's files are all newer than
    any map): test files whose text changed since it was made run under coverage on their own, and their
    lines replace theirs; so do the tests that ran a module among `modules` whose text changed (its old lines
    no longer name its statements: they are dropped); and when the tiers' definition changed, the test files
    of which the map holds no test (tests may have moved into the fast tier). A map made before it kept blob
    ids is compared with the commit that was HEAD when it was made."""
    made, blobs, out = _read_map(path)
    now = _blobs_now()
    tests, drifted = _to_remap(out, blobs, now, modules or []) if out else (["tests"], [])
    if not tests:
        return out
    started = time.time()
    for module in drifted:
        out[module] = {}
    fresh, times, lost = _run_under_coverage(path, tests, shards)
    _merge(out, fresh, set(tests))
    refreshed = set(now) if tests == ["tests"] else {*tests, *TIERS, *(f"src/iolab/{m}" for m in drifted)}
    refreshed -= lost  # not mapped: the next run maps them again
    blobs = {**blobs, **{name: now[name] for name in refreshed if name in now}}
    times = {**map_durations(path), **times}
    path.write_text(json.dumps({MADE: started, BLOBS: blobs, DURATIONS: times, **out}))
    return out


def map_durations(path: Path) -> dict[str, float]:
    """Each test's seconds in the run that mapped it (node id without parameters: their sum), from the map at
    `path`; none from a map made before they were kept."""
    if not path.is_file():
        return {}
    return dict(json.loads(path.read_text()).get(DURATIONS, {}))


def fastest_first(tests: list[str], durations: dict[str, float]) -> list[str]:
    """`tests` in the order to run them: by their time in the map's run, fastest first (`-x` ends a killed
    mutant's run at the first failure, so the cheap tests that kill come before the slow ones); a test the
    map did not time (a test added since) last, in name order."""
    unknown = max(durations.values(), default=0.0) + 1.0

    def seconds(test: str) -> float:  # a whole file (a module no map line names): the sum of its tests
        inside = [s for name, s in durations.items() if name.startswith(f"{test}::")]
        return durations.get(test, sum(inside) if inside else unknown)

    return sorted(tests, key=lambda test: (seconds(test), test))


def _read_map(path: Path) -> tuple[float, dict[str, str], dict[str, dict[int, list[str]]]]:
    """When a map was made, the blob ids it was made from, and its lines (all empty when there is none)."""
    raw = json.loads(path.read_text()) if path.is_file() else {}
    raw.pop(DURATIONS, None)
    made = float(raw.pop(MADE, path.stat().st_mtime if raw else 0.0))
    blobs = raw.pop(BLOBS, None) or (_blobs_at(made) if raw else {})
    return made, blobs, {module: {int(line): tests for line, tests in lines.items()} for module, lines in raw.items()}


def _to_remap(
    out: dict[str, dict[int, list[str]]], blobs: dict[str, str], now: dict[str, str], modules: list[str]
) -> tuple[list[str], list[str]]:
    """The test files and single tests to run under coverage again (see coverage_map), and the modules among
    `modules` whose text changed since the map was made."""
    changed = {name for name, blob in now.items() if blobs.get(name) != blob}
    stale = _stale_files(out, changed, now)
    drifted = sorted(m for m in modules if f"src/iolab/{m}" in changed and m in out)
    rerun = {test for test in _tests_of_modules(out, drifted) if test.partition("::")[0] not in stale}
    return sorted(stale | rerun), drifted


def _stale_files(out: dict[str, dict[int, list[str]]], changed: set[str], now: dict[str, str]) -> set[str]:
    """The test files whose text changed; and when which tests are fast changed, those the map holds no test of."""
    stale = {name for name in changed if _is_test_file(name)}
    if changed & set(TIERS):
        held = {test.partition("::")[0] for test in _tests_of_modules(out, list(out))}
        stale |= {name for name in now if _is_test_file(name) and name not in held}
    return stale


def _is_test_file(name: str) -> bool:
    return name.startswith("tests/") and Path(name).name.startswith("test_")


def _tests_of_modules(out: dict[str, dict[int, list[str]]], modules: list[str]) -> set[str]:
    return {test for module in modules for tests in out[module].values() for test in tests}


def _blobs_now() -> dict[str, str]:
    """Path (relative to the worktree) -> git blob id of its text now, for every test and src Python file."""
    files = sorted(str(p.relative_to(ROOT)) for d in ("tests", "src/iolab") for p in (ROOT / d).rglob("*.py"))
    done = subprocess.run(
        ["git", "hash-object", "--stdin-paths"], cwd=ROOT, input="\n".join(files), capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    return dict(zip(files, done.stdout.split(), strict=True))


def _blobs_at(made: float) -> dict[str, str]:
    """The blob ids of the commit that was HEAD when a map was made (a map from before blob ids were kept)."""
    commit = subprocess.run(
        ["git", "rev-list", "-1", f"--before=@{int(made)}", "HEAD"], cwd=ROOT, capture_output=True, text=True,
        check=True,
    ).stdout.strip()  # fmt: skip
    listing = subprocess.run(
        ["git", "ls-tree", "-r", commit, "--", "tests", "src/iolab"], cwd=ROOT, capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    return {line.split("\t", 1)[1]: line.split()[2] for line in listing.splitlines() if line.endswith(".py")}


def _merge(out: dict[str, dict[int, list[str]]], fresh: dict[str, dict[int, list[str]]], gone: set[str]) -> None:
    """The lines of the test files (or single tests) in `gone` forgotten from `out`, then the freshly mapped
    lines added."""
    for lines in out.values():
        for line, tests in lines.items():
            lines[line] = [t for t in tests if t.partition("::")[0] not in gone and t not in gone]
    for module, lines in fresh.items():
        for line, files in lines.items():
            mapped = out.setdefault(module, {}).setdefault(line, [])
            mapped[:] = sorted(set(mapped) | set(files))


def _run_under_coverage(
    path: Path, tests: list[str], shards: int = 1
) -> tuple[dict[str, dict[int, list[str]]], dict[str, float], set[str]]:
    """The fast-tier tests among `tests` run once under coverage.py, their files dealt to `shards` processes
    run side by side (the whole fast tier took 12 min and more in one): module -> line -> test files; each
    test's seconds (bench/coverage_contexts.py times them); and the test files of shards killed by a signal,
    whose lines are lost (coverage.py saves a process's data as it exits: one shard of a whole-tier map ended
    so, unseen, and the map held half the tier)."""
    with tempfile.TemporaryDirectory(prefix="iolab-coverage-") as scratch:
        # kept: the whole fast tier's is an hour of work on a busy host (an update's goes beside it)
        rc, data_file = Path(scratch) / "coveragerc", path.with_suffix(".coverage" if tests == ["tests"] else ".update")
        # no dynamic_context here: bench/coverage_contexts.py names each test's context by its node id for the
        # whole of its setup, call and teardown (coverage.py's test_function context reads the stack, so a line
        # run only by a test's fixture was counted as run by no test)
        # patch = subprocess: a fresh interpreter a test starts is measured too, under that test's node id
        # (bench/coverage_contexts.py hands it down), its data file beside this one's, combined after
        # parallel (as patch = subprocess implies): each process, each shard, writes a data file of its own
        rc.write_text(f"[run]\nsource = {SRC}\npatch = subprocess\nparallel = true\n")
        parts = dealt(tests, shards)
        running = [
            subprocess.Popen(
            [
                sys.executable,
                "-m",
                "coverage",
                "run",
                f"--rcfile={rc}",
                f"--data-file={data_file}",
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "coverage_contexts",
                "-m",
                "not e2e",
                *shard,
            ],
            cwd=ROOT,
            env={
                **os.environ,
                "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "bench"), os.environ.get("PYTHONPATH")])),
                "IOLAB_MUTATION_DURATIONS": scratch,
            },
            stdout=subprocess.DEVNULL,
        )
            for shard in parts
        ]  # fmt: skip
        lost = set()
        for process, shard in zip(running, parts, strict=True):
            if process.wait() < 0:  # a failing test still maps the lines it ran; a killed shard maps none
                lost |= {file for test in shard for file in _files_of(test)}
                print(f"a coverage shard was killed by signal {-process.returncode}: {len(shard)} test files not "
                      "mapped (mapped again on the next run)", file=sys.stderr)  # fmt: skip
        subprocess.run(
            [sys.executable, "-m", "coverage", "combine", f"--rcfile={rc}", f"--data-file={data_file}", "-q"],
            cwd=ROOT,
            check=False,
            stdout=subprocess.DEVNULL,
        )  # every process's data file (parallel, one per process) into one
        return _read_lines(data_file), _read_durations(Path(scratch)), lost


def _read_lines(data_file: Path) -> dict[str, dict[int, list[str]]]:
    """module -> line -> the tests that ran it, from a combined coverage.py data file."""
    import coverage

    data = coverage.CoverageData(basename=str(data_file))
    data.read()
    out: dict[str, dict[int, list[str]]] = {}
    for measured in data.measured_files():
        if not measured.startswith(str(SRC)):
            continue
        lines = data.contexts_by_lineno(measured)
        out[str(Path(measured).relative_to(SRC))] = {
            line: sorted({t for c in contexts for t in test_ids(c)}) for line, contexts in lines.items()
        }
    return out


def _read_durations(folder: Path) -> dict[str, float]:
    """Each test's seconds from the files bench/coverage_contexts.py wrote in `folder`, one per process: by node
    id without parameters (the map's ids), the parameters' seconds summed."""
    times: dict[str, float] = {}
    for timed in folder.glob("durations-*.json"):
        for test, seconds in json.loads(timed.read_text()).items():
            bare = re.sub(r"\[.*\]$", "", test)
            times[bare] = times.get(bare, 0.0) + seconds
    return times


def dealt(tests: list[str], shards: int) -> list[list[str]]:
    """`tests` (files, node ids, folders) as lists for `shards` processes side by side: a folder's test files one
    by one, largest first, each to the list holding the fewest bytes so far."""
    if shards <= 1:
        return [tests]
    files = list(dict.fromkeys(file for test in tests for file in _files_of(test)))
    lists: list[list[str]] = [[] for _ in range(min(shards, len(files)))]
    loads = [0] * len(lists)
    for test in sorted(files, key=lambda t: -_size(t)):
        at = loads.index(min(loads))
        lists[at].append(test)
        loads[at] += _size(test)
    return lists


def _files_of(test: str) -> list[str]:
    """A folder's test files (relative to the worktree when inside it), or the test itself."""
    folder = ROOT / test
    if not folder.is_dir():
        return [test]
    return [os.path.relpath(file, ROOT) for file in sorted(folder.rglob("test_*.py"))]


def _size(test: str) -> int:
    path = ROOT / test.partition("::")[0]
    return path.stat().st_size if path.is_file() else 0


def test_ids(context: str) -> list[str]:
    """The pytest node ids of a coverage context (`test_headline.test_x`, `test_y.TestClass.test_z`, or
    `tests.test_oracle.test_x` for a test module in the `tests` package: the test module's name, then the
    test's), in every test file of that name; none for code run at import or collection (no test)."""
    if "::" in context:  # a pytest node id (bench/coverage_contexts.py), its parameters left out
        return [re.sub(r"\[.*\]$", "", context)]
    parts = context.split(".")
    at = next((i for i, part in enumerate(parts) if part.startswith("test_")), len(parts))
    module, test = ".".join(parts[at : at + 1]), ".".join(parts[at + 1 :])
    files = _test_files().get(module, []) if test else []
    if len(files) > 1:  # a name in several folders: the files that define the test
        top = test.partition(".")[0]
        files = [f for f in files if re.search(rf"^\s*(?:async )?(?:def|class) {top}\b", _text(ROOT / f), re.M)]
    return [f"{file}::{test.replace('.', '::')}" for file in files]


_TEST_FILES: dict[str, list[str]] = {}


def _test_files() -> dict[str, list[str]]:
    """Test module name -> the test files of that name (one, or one per folder that has it)."""
    if not _TEST_FILES:
        for path in (ROOT / "tests").rglob("test_*.py"):
            _TEST_FILES.setdefault(path.stem, []).append(str(path.relative_to(ROOT)))
    return _TEST_FILES


def covering_tests(
    covering: dict[str, dict[int, list[str]]], module: str, mutant: Mutant, lines: list[str]
) -> list[str]:
    """The fast tests that run a mutant's line. A line run in a function but by no test (a function called at
    import, as a decorator building the command line is): the test files that import the module. A line only
    run at import has no test's context: for a
    function's default, the tests that run its body; for a constant or a field's default (`NAME = ...`),
    the tests that run the lines of src/ that read NAME; and the test files that import the module."""
    mapped = covering.get(module, {})
    line = abs(mutant.statement) or mutant.line
    # coverage.py counts a statement at the line Python runs it from: a parenthesised `if (` condition that
    # starts on the next line is counted there, not on the `if`'s own line
    tests = existing(mapped.get(line) or mapped.get(mutant.line, []))
    if mutant.statement >= 0 and line in mapped and not mapped[line] and not mapped.get(mutant.line):
        # run, but in no test's context: inside a function called while the package is imported (a decorator
        # building the command line): the test files that import the module
        return tests_of(module)
    if mutant.statement >= 0 or line not in mapped:
        return tests
    # and the test files that import the module: a test that reads the value itself (`LatencyCurve().fractions`)
    # runs no line of src/ naming it, so only its import says it reads it
    readers = existing(sorted(_import_readers(covering, mapped, line, lines)))
    return sorted(set(tests) | set(readers) | set(tests_of(module)) | set(existing(_entry_tests(covering, module))))


def _entry_tests(covering: dict[str, dict[int, list[str]]], module: str) -> list[str]:
    """The tests that drive a module's package through its `__init__` (iolab.cli.main), when that imports the
    module: what the module declares at import (a command group's `no_args_is_help`, an option's `hidden`)
    is read there, through the command tree, by no line of the module itself."""
    package, _, name = module.rpartition("/")
    init = f"{package}/__init__.py"
    if not package or not (SRC / init).is_file():
        return []
    stem = name.removesuffix(".py")
    dotted = f"iolab.{package.replace('/', '.')}"
    if not re.search(rf"^from {dotted} import [^\n]*\b{stem}\b|^import {dotted}\.{stem}\b", _text(SRC / init), re.M):
        return []
    return sorted({t for tests in covering.get(init, {}).values() for t in tests})


def _import_readers(
    covering: dict[str, dict[int, list[str]]], mapped: dict[int, list[str]], line: int, lines: list[str]
) -> set[str]:
    """The tests that read what a line run at import made: a function's default is read when its body runs,
    a constant or a field's default where src/ names it."""
    if lines[line - 1].lstrip().startswith(("def ", "async def ")):
        body = _body(lines, line)
        return {t for at, run in mapped.items() if line < at <= body for t in run}
    owner = _field_owner(lines, line)
    if owner is not None:
        return _field_readers(covering, mapped, lines, owner, line)
    return _assigned_readers(covering, lines[line - 1])


def _field_owner(lines: list[str], line: int) -> tuple[str, int, int] | None:
    """The class (name, first and last line) whose body assigns at `line` (a dataclass field's default,
    `repeat: int = 1`), or None when that line is no statement of a class body."""
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, ast.ClassDef) and any(
            isinstance(s, (ast.Assign, ast.AnnAssign)) and s.lineno == line for s in node.body
        ):
            return node.name, node.lineno, node.end_lineno or node.lineno
    return None


def _field_readers(
    covering: dict[str, dict[int, list[str]]],
    mapped: dict[int, list[str]],
    lines: list[str],
    owner: tuple[str, int, int],
    line: int,
) -> set[str]:
    """The tests that read a class field's default. The generated `__init__` that takes it has no line of
    source, and the field's bare name is no guide (Plan.repeat and Point.repeat are one word, 163 tests
    read one or the other, beyond any cap, so Plan.repeat's default ran against none of them): first the
    tests that run the class's own lines naming the field (`__post_init__` reading `self.repeat` runs at
    every construction), then the tests of the lines of src/ that make the class (`Plan(`), then those
    reading the attribute anywhere (`.repeat`); each group is added while the whole stays within the cap,
    the first one always (cut to the cap, in order)."""
    assigned = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=]*)?=", lines[line - 1])
    if not assigned:
        return set()
    name, (cls, first, last) = assigned.group(1), owner
    own = {
        t
        for at, run in mapped.items()
        if first <= at <= last and at != line and re.search(rf"\bself\.{name}\b", lines[at - 1])
        for t in run
    }
    groups = [own, _readers(covering, rf"{cls}\(", bare=False), _readers(covering, rf"\.{name}", bare=False)]
    found: set[str] = set(sorted(groups[0])[:MAX_READERS])
    for group in groups[1:]:
        if len(found | group) > MAX_READERS:
            break
        found |= group
    return found


def _assigned_readers(covering: dict[str, dict[int, list[str]]], text: str) -> set[str]:
    """The tests that read what a line assigns (`NAME = 1`, `exit_code = 2`, `writable: bool = False`); none
    for a name too short or too common to say who reads it."""
    assigned = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*(?::[^=]*)?=", text)
    names = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", assigned.group(1)) if assigned else []
    readers = {t for name in names if len(name) >= 5 for t in _readers(covering, name)}
    return readers if len(readers) <= MAX_READERS else set()


MAX_READERS = 80


def _body(lines: list[str], line: int) -> int:
    """The last line of the function whose `def` is at `line` (the first line after it indented no deeper
    than the def, less one)."""
    indent = len(lines[line - 1]) - len(lines[line - 1].lstrip())
    end = line
    for at in range(line, len(lines)):
        text = lines[at]
        if text.strip() and len(text) - len(text.lstrip()) <= indent and not text.lstrip().startswith(")"):
            break
        end = at + 1
    return end


def _readers(covering: dict[str, dict[int, list[str]]], name: str, bare: bool = True) -> set[str]:
    """The tests that run a line of src/ (other than its definition) naming `name` (a regular expression,
    matched as a whole word when `bare`)."""
    found: set[str] = set()
    pattern = rf"\b{name}\b" if bare else name
    for module, lines in covering.items():
        text = _text(SRC / module).splitlines()
        for line, tests in lines.items():
            source = text[line - 1] if 0 < line <= len(text) else ""
            if re.search(pattern, source) and not (bare and re.match(rf"^\s*{name}\s*[:=]", source)):
                found |= set(tests)
    return found


def existing(tests: list[str]) -> list[str]:
    """The node ids among `tests` whose file still defines their test (a map outlives renamed tests)."""
    kept = []
    for test in tests:
        file, _, name = test.partition("::")
        path = ROOT / file
        top = name.partition("::")[0]
        if path.is_file() and re.search(rf"^\s*(?:async )?(?:def|class) {top}\b", _text(path), re.M):
            kept.append(test)
    return kept


@functools.cache
def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def tests_of(module: str) -> list[str]:
    """The test files that exercise a module: tests/PACKAGE/test_NAME*.py and every test file that imports
    it (`-m "not e2e"` keeps the unit tests among them); with none, every test of its package."""
    parts = module.split("/")
    package, stem = (parts[0] if len(parts) > 1 else ""), parts[-1].removesuffix(".py")
    dotted = module.removesuffix(".py").replace("/", ".")
    parent = ("iolab." + dotted).rpartition(".")[0]
    imports = re.compile(rf"iolab\.{dotted}\b|from {parent} import [^\n]*\b{stem}\b")
    own = {p for p in (ROOT / "tests" / package).glob(f"test_{stem}*.py")}
    own |= {p for p in (ROOT / "tests").rglob("test_*.py") if imports.search(p.read_text(encoding="utf-8"))}
    return sorted(str(p.relative_to(ROOT)) for p in own) or [f"tests/{package}"]


def run_tests(tree: Path, tests: list[str], timeout_s: float = TIMEOUT_S, deadline: float = 0.0) -> str:
    """'killed', 'survived' or 'timeout' for the package copy at `tree`, its unit tests run in a forked child
    of this process: pytest and numpy are imported once, here, and iolab never is (each child imports the
    mutated copy, its parent put first on sys.path), which makes a mutant about 4x cheaper than a fresh
    pytest process. `timeout_s` is of the tests' own time (`watch`), not the wall clock's; past `deadline`
    (monotonic, 0: none) the tests are ended and OutOfTime raised."""
    pid = os.fork()
    if pid == 0:  # the child: run the tests, report by exit status only
        code = 70
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's stop (`_stop_on_term`) is not the child's
            code = _child(tree, tests)
        finally:
            os._exit(code)
    status = watch(pid, timeout_s, deadline=deadline)
    if status is None:
        return "timeout"
    code = os.waitstatus_to_exitcode(status)
    if code == NOT_COLLECTED:  # a test module raised at its import against the mutant: the suite fails on it
        return "killed"
    if code == 5:  # no unit test selected (the module's tests are all end to end): nothing can kill it
        return "survived"
    if code == 4 and not imports(tree):  # the mutant breaks `import iolab`: every user would see it fail
        return "killed"
    if code in (3, 4, 70):  # internal or usage error: the mutant's doing, or the run's (`run_module` tells)
        raise RunBroken(f"pytest could not run {tests} against the mutant (exit {code})")
    return "survived" if code == 0 else "killed"


# the child's exit status when a test module could not be collected (it raised at import, calling the mutated
# code: `CASES = build()` at a test file's top). pytest says 2 for that when given the file, but 4 ("found no
# collectors", a usage error) when given its tests' node ids, as a coverage map's mutant is: that stopped the
# bench, or cost a second run on the unmutated source, instead of counting the failure the mutant caused
NOT_COLLECTED = 72


class CollectionWatch:
    """A pytest plugin: whether any collector failed (a test module that raised at its import)."""

    def __init__(self) -> None:
        self.failed = False

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self.failed = self.failed or report.failed


def _child(tree: Path, tests: list[str]) -> int:
    """In the forked child: the tests run against the copy at `tree`; pytest's exit status, or NOT_COLLECTED."""
    os.setpgid(0, 0)  # a group of its own: a time-out ends every process its tests started (`watch`)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    sys.path.insert(0, str(tree.parent))
    # and every fresh interpreter a test starts (`sys.executable -c ...`) imports the copy too: it would
    # read the worktree's iolab (the editable install), and a mutant there could never be caught
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree.parent), os.environ.get("PYTHONPATH")]))
    os.chdir(ROOT)
    watcher = CollectionWatch()
    code = int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", "-m", "not e2e", *tests], plugins=[watcher]))
    return NOT_COLLECTED if watcher.failed and code in (2, 4) else code


POLL_S = 0.05  # how often a child's end is looked for
TICK_S = 0.5  # how often its tests' own time is brought up to date (a look through /proc: a few ms)


def watch(pid: int, budget_s: float, tick_s: float = TICK_S, deadline: float = 0.0) -> int | None:
    """The wait status of the forked child `pid` (the leader of its own process group), or None when its tests
    ran past `budget_s` of their own time (`OwnClock`): then the child and every process of its group are
    killed, so no test's subprocess outlives its run to load the host for the next mutant (a child killed
    alone left them running). Leaving early (Ctrl-C, SIGTERM) kills them too, and so does the run's
    `deadline` (monotonic; 0: none), which raises OutOfTime: a budget that waited for the mutant in flight
    ran up to 480 s past itself."""
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # as the child does: whichever comes first, the group is there before a kill
    clock, ticked = OwnClock(pid), 0.0
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            if deadline and time.monotonic() > deadline:
                raise OutOfTime
            if time.monotonic() - ticked >= tick_s:
                ticked = time.monotonic()
                if clock.tick() > budget_s:
                    break
            time.sleep(POLL_S)
    except BaseException:
        _end_group(pid)
        raise
    _end_group(pid)
    return None


def _end_group(pid: int) -> None:
    """The unreaped child `pid` and every process of its group killed (its pid is the group's id, not yet free
    for another process), and the child reaped."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


class OwnClock:
    """The seconds a process tree has run or slept, not counting the time it waited for a CPU: the wall clock,
    less in each interval between ticks the longest wait on a run queue of any one of its threads (Linux's
    /proc/<pid>/task/<tid>/schedstat; without it, the wall clock). A budget of wall-clock seconds measured
    the host: at a load of 14-16 on two CPUs a mutant's tests spent 55-75% of their time waiting for a CPU
    (store/db.py's mutant of seed 53007: 79 s, 14 s of them running and 43 s waiting; 102 s, 16 s and 57 s in a
    fresh interpreter, so not the fork's doing), and 120 s ended tests that pass in seconds on a quiet host.
    The longest wait, not their sum: two processes waiting at once lose the time once. A wait is counted when
    it ends (the kernel adds it as the thread gets its CPU), so an interval may lose more than its own length:
    that is time the intervals before counted."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.waited = run_queue_waits(root)  # thread id -> its run-queue wait so far (ns)
        self.last = time.monotonic()
        self.own = 0.0

    def tick(self) -> float:
        """The tree's own time until now."""
        now = time.monotonic()
        waits = run_queue_waits(self.root)
        longest = max((wait - self.waited.get(tid, 0) for tid, wait in waits.items()), default=0)
        self.waited.update(waits)
        self.own += now - self.last - longest / 1e9
        self.last = now
        return self.own


def run_queue_waits(root: int) -> dict[int, int]:
    """Thread id -> nanoseconds it has waited on a run queue, for every thread of `root` and its descendants."""
    waits = {}
    for pid in descendants(root):
        with contextlib.suppress(OSError, ValueError):  # it ended meanwhile; a kernel without schedstat
            for tid in os.listdir(f"/proc/{pid}/task"):
                waits[int(tid)] = int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[1])
    return waits


def descendants(root: int) -> list[int]:
    """`root` and every process below it (by their parents in /proc/<pid>/stat)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = Path(f"/proc/{name}/stat").read_text()
                children.setdefault(int(stat.rpartition(")")[2].split()[1]), []).append(int(name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


class RunBroken(Exception):
    """pytest stopped with an internal error or crashed (a session hook raised, a fixture broke pytest
    itself): a mutant can do that, and so can a wrong run."""


def imports(tree: Path) -> bool:
    """Whether every module of the package copy at `tree` imports (pytest exits 4 when a conftest's import of
    iolab fails: a mutant that breaks the import is caught, not a run gone wrong)."""
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import iolab, pkgutil; [__import__(m.name) for m in pkgutil.walk_packages([{str(tree)!r}], 'iolab.')]",
        ],
        env={**os.environ, "PYTHONPATH": str(tree.parent)},
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


def check_copy_is_used(tree: Path) -> None:
    """The tests must import the mutated copy, not the worktree (an editable install could win)."""
    probe = subprocess.run(
        [sys.executable, "-c", "import iolab; print(iolab.__file__)"],
        env={**os.environ, "PYTHONPATH": str(tree.parent)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not probe.startswith(str(tree)):
        raise SystemExit(f"the tests would import {probe}, not the mutated copy under {tree}")


NOTES = Path(__file__).parent / "mutation_notes.json"


def draw(module: str, source: str, seed: int, per_module: int) -> list[Mutant]:
    """The module's mutants: `per_module` of its sites (all with 0), drawn by a generator of its own."""
    tree = ast.parse(source)
    found = sites(tree)
    rng = random.Random(f"{seed}:{module}")
    chosen = sorted(rng.sample(range(len(found)), min(per_module or len(found), len(found))))
    starts = _statements(tree)
    return [
        Mutant(module, i, line := getattr(found[i][0], "lineno", 0), found[i][2], starts.get(id(found[i][0]), line))
        for i in chosen
    ]


def _statements(tree: ast.AST) -> dict[int, int]:
    """id(node) -> the first line of the innermost statement holding it (a multi-line call's argument is
    run when its statement is: coverage.py counts the statement's first line), negative when that statement
    is run at import (no function holds it: a constant, a class body, a default)."""
    found: dict[int, int] = {}

    def visit(node: ast.AST, line: int, imported: bool) -> None:
        for child in ast.iter_child_nodes(node):
            body = (
                getattr(node, "body", None)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                else None
            )
            inside = body is child or (isinstance(body, list) and any(b is child for b in body))
            # a lambda's body runs when it is called, and coverage.py counts that call on the lambda's own line
            # (a lambda in a module-level table was given the table's first line, run only at import)
            own = child.lineno if isinstance(child, ast.stmt) else (getattr(node, "lineno", line) if inside else line)
            runs_at_import = imported and not inside
            found[id(child)] = -own if runs_at_import else own
            visit(child, own, runs_at_import)

    visit(tree, 0, True)
    return found


def notes() -> dict[tuple[str, str, str], dict]:
    """(module, change, the line's text) -> {"equivalent": bool, "why": str}, from bench/mutation_notes.json."""
    if not NOTES.is_file():
        return {}
    return {(n["module"], n["change"], n["code"]): n for n in json.loads(NOTES.read_text())}


def stale_notes(entries: list[dict], src: Path | None = None) -> list[dict]:
    """The notes no mutant can match any more: their module is gone, or no line of it with the note's text
    holds a site of the note's change (the line was rewritten, or its mutation moved). A note is matched by
    (module, change, line text) only, so a stale one is never read again and says nothing; kept, it made
    the notes look like they explained survivors they did not."""
    src = src or SRC
    by_module: dict[str, list[dict]] = {}
    for entry in entries:
        by_module.setdefault(entry["module"], []).append(entry)
    stale = [n for module, noted in by_module.items() for n in _unmatched(src / module, noted)]
    return [e for e in entries if any(e is s for s in stale)]


def _unmatched(path: Path, noted: list[dict]) -> list[dict]:
    """The notes of one module (at `path`) that no site of it matches; all of them when it is gone."""
    if not path.is_file():
        return noted
    found = _changes_on(path.read_text(encoding="utf-8"), {n["code"] for n in noted})
    return [n for n in noted if (n["code"], n["change"]) not in found]


def _changes_on(source: str, texts: set[str]) -> set[tuple[str, str]]:
    """(a line's stripped text, a change a site on it makes) for the lines of the module whose text is among
    `texts`: the key a mutant's outcome carries (`code`, `change`). Only the top-level statements holding
    such a line are looked through (a whole module's sites, for each of 150 modules, took seconds)."""
    lines = source.splitlines()
    wanted = {at for at, text in enumerate(lines, 1) if text.strip() in texts}
    if not wanted:
        return set()
    tree = ast.parse(source)
    tree.body = [s for s in tree.body if any(s.lineno <= at <= (s.end_lineno or s.lineno) for at in wanted)]
    return {
        (lines[line - 1].strip(), change)
        for node, _, change in sites(tree)
        if (line := getattr(node, "lineno", 0)) in wanted
    }


def sweep_notes(path: Path = NOTES) -> list[dict]:
    """Drop the stale notes from `path` (bench/mutation_notes.json); the ones dropped."""
    entries = json.loads(path.read_text())
    stale = stale_notes(entries)
    if stale:
        kept = [e for e in entries if e not in stale]
        path.write_text(json.dumps(kept, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return stale


class Journal:
    """Each mutant's outcome, appended as one JSON line to a file the moment it is judged: a run stopped early
    (its budget, a kill, the host's deadline) keeps every mutant it judged, and a run again with the same seed
    and draw skips them (a mutant is known by module, site, change and the digest of its module's source, so
    a module changed since is run again). The first line names the draw; a journal of another draw is
    refused, not mixed in. A later line of a mutant replaces an earlier one (a time-out settled after)."""

    def __init__(self, path: Path | None, draw: dict) -> None:
        self.path = path
        self.judged: dict[tuple, dict] = {}
        if path is None:
            return
        lines = _json_lines(path) if path.is_file() else []
        if lines and lines[0] != {"journal": draw}:
            raise SystemExit(f"{path} holds another draw ({lines[0]}); remove it, or pass another --out")
        if not lines:
            path.write_text(json.dumps({"journal": draw}) + "\n", encoding="utf-8")
        self.judged = {_key(o): o for o in lines[1:]}

    def get(self, module: str, mutant: Mutant, digest: str) -> dict | None:
        return self.judged.get((module, mutant.index, mutant.change, digest))

    def record(self, outcome: dict) -> None:
        self.judged[_key(outcome)] = outcome
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(outcome) + "\n")


def _key(outcome: dict) -> tuple:
    return outcome["module"], outcome["index"], outcome["change"], outcome.get("source")


def _json_lines(path: Path) -> list[dict]:
    """The objects of a JSON-lines file; a line cut short (the run killed as it wrote) left out."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        with contextlib.suppress(ValueError):
            found.append(json.loads(line))
    return found


class OutOfTime(Exception):
    """The run's budget ran out (or it was asked to stop) while a mutant's tests ran: they were ended, and
    that mutant is not judged."""


@dataclass
class Setting:
    """What every mutant of one run is run with: the coverage map (None: each module's test files), the
    monotonic time the run stops at (0: none), the kills of a previous result to reuse, the journal, and each
    test's seconds in the map's run (to run the fast ones first)."""

    covering: dict | None = None
    deadline: float = 0.0
    killed: dict[tuple, dict] = field(default_factory=dict)
    journal: Journal = field(default_factory=lambda: Journal(None, {}))
    durations: dict[str, float] = field(default_factory=dict)


def run_module(tree: Path, module: str, mutants: list[Mutant], setting: Setting, outcomes: list[dict]) -> None:
    """Each mutant of one module written into the copy at `tree`, its tests run and its outcome appended to
    `outcomes` (and the journal); the copy restored after, also when the budget ends it (OutOfTime).
    A mutant killed before on this very source of its module (`setting.killed`, a previous result) is not run
    again: tests added since cannot let it live; nor is one the journal already judged."""
    source = (SRC / module).read_text(encoding="utf-8")
    lines = source.splitlines()
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    try:
        for mutant in mutants:
            judged = setting.journal.get(module, mutant, digest)
            if judged is not None:
                outcomes.append(judged)
                continue
            before = setting.killed.get((module, mutant.index, mutant.change, digest))
            if before is not None:
                outcomes.append({**before, "reused": True})
                setting.journal.record(outcomes[-1])
                continue
            tests = _tests_for(setting, module, mutant, lines)
            (tree / module).write_text(mutated_source(source, mutant.index), encoding="utf-8")
            outcome = _outcome(tree, module, source, tests, deadline=setting.deadline) if tests else "not covered"
            code = lines[mutant.line - 1].strip() if 0 < mutant.line <= len(lines) else ""
            outcomes.append({**asdict(mutant), "code": code, "source": digest, "outcome": outcome, "tests": tests})
            setting.journal.record(outcomes[-1])
            print(f"{outcome:8s} {module}:{mutant.line} {mutant.change}", flush=True)
    finally:
        (tree / module).write_text(source, encoding="utf-8")


def _tests_for(setting: Setting, module: str, mutant: Mutant, lines: list[str]) -> list[str]:
    """The tests a mutant runs against, fastest first by the map's times."""
    if setting.covering is None:
        return tests_of(module)
    return fastest_first(covering_tests(setting.covering, module, mutant, lines), setting.durations)


def _outcome(
    tree: Path, module: str, source: str, tests: list[str], timeout_s: float = TIMEOUT_S, deadline: float = 0.0
) -> str:
    """The mutant's outcome. A run pytest itself could not finish is run again on the module's own source:
    when the same tests pass there, the mutant broke the run (every user of the suite would see it), killed;
    when they do not, the run is wrong and the bench stops (the copy is left as it was). Past `deadline`
    (monotonic; 0: none) its tests are ended and OutOfTime raised."""
    try:
        return run_tests(tree, tests, timeout_s, deadline=deadline)
    except RunBroken as broken:
        (tree / module).write_text(source, encoding="utf-8")
        with contextlib.suppress(RunBroken):  # broken there too: a traceback told no more than this message
            if run_tests(tree, tests, timeout_s, deadline=deadline) == "survived":
                return "killed"
        raise SystemExit(f"{broken}; they fail on the unmutated source too") from None


def previously_killed(path: Path) -> dict[tuple, dict]:
    """(module, index, change, source digest) -> the outcome, for each mutant a previous run killed."""
    outcomes = json.loads(path.read_text())["outcomes"]
    return {
        (o["module"], o["index"], o["change"], o.get("source")): {k: v for k, v in o.items() if k != "reused"}
        for o in outcomes
        if o["outcome"] == "killed" or (o["outcome"] == "timeout" and "rerun" in o)
    }


def settle_timeouts(tree: Path, outcomes: list[dict], setting: Setting | None = None) -> None:
    """Each mutant whose tests timed out runs once more, with RERUN_TIMEOUT_S (after the others: the host may
    be quieter, and one slow mutant does not hold the rest). Its outcome is that run's when it finishes;
    when it times out again, the same tests run on the unmutated source with the same budget: a kill by
    time-out ("timeout") only when they pass there within it, else "unjudged" (the host is too slow to say,
    counted as not killed). `rerun` keeps what the second run said; the journal, the settled outcome. A time-out
    the run's budget leaves unsettled stays without `rerun`: not yet judged (`summary`)."""
    setting = setting or Setting()
    for o in outcomes:
        if o["outcome"] != "timeout" or "rerun" in o:
            continue
        source = (SRC / o["module"]).read_text(encoding="utf-8")
        (tree / o["module"]).write_text(mutated_source(source, o["index"]), encoding="utf-8")
        try:
            again = _outcome(tree, o["module"], source, o["tests"], RERUN_TIMEOUT_S, setting.deadline)
            if again == "timeout":
                (tree / o["module"]).write_text(source, encoding="utf-8")
                plain = _outcome(tree, o["module"], source, o["tests"], RERUN_TIMEOUT_S, setting.deadline)
                again = "timeout" if plain == "survived" else "unjudged"
        finally:
            (tree / o["module"]).write_text(source, encoding="utf-8")
        o.update(outcome=again, rerun=again)
        setting.journal.record(o)
        print(f"{again:8s} {o['module']}:{o['line']} {o['change']} (run again after a time-out)", flush=True)


def _survivor(outcome: dict, known: dict[tuple[str, str, str], dict]) -> dict:
    note = known.get((outcome["module"], outcome["change"], outcome["code"]), {})
    return {k: outcome[k] for k in ("module", "line", "change", "code", "index", "outcome")} | {
        "equivalent": bool(note.get("equivalent")),
        "why": note.get("why", UNJUDGED if outcome["outcome"] == "unjudged" else "not yet explained"),
    }


UNJUDGED = f"its tests ran past {RERUN_TIMEOUT_S:.0f} s twice, and did not pass within that on the unmutated source"


def _by_package(outcomes: list[dict]) -> dict[str, dict[str, int]]:
    packages: dict[str, dict[str, int]] = {}
    for o in outcomes:
        counts = packages.setdefault(o["module"].split("/")[0], {"killed": 0, "mutants": 0, "by_timeout": 0})
        counts["killed"] += o["outcome"] in ("killed", "timeout")
        counts["by_timeout"] += o["outcome"] == "timeout"
        counts["mutants"] += 1
    return dict(sorted(packages.items()))


def _unsettled(outcome: dict) -> bool:
    """Timed out once, and the run stopped before running it again: not yet judged."""
    return outcome["outcome"] == "timeout" and "rerun" not in outcome


def timeouts(outcomes: list[dict]) -> dict[str, int]:
    """The time-outs apart: how many mutants timed out at first, and what their second run said (killed or
    survived when it finished; "timeout", a kill by time-out; "unjudged", not killed)."""
    again = [o["rerun"] for o in outcomes if "rerun" in o]
    return {"first_run": len(again)} | {
        kind: again.count(kind) for kind in ("killed", "survived", "timeout", "unjudged")
    }


def summary(outcomes: list[dict]) -> dict:
    """The scores, per package too, and every survivor with why it survives (bench/mutation_notes.json), of
    the judged mutants; a time-out the run stopped before running again is counted apart, nowhere else."""
    judged = [o for o in outcomes if not _unsettled(o)]
    return {**_scores(judged), "unsettled_timeouts": len(outcomes) - len(judged)}


def _scores(outcomes: list[dict]) -> dict:
    known = notes()
    killed = sum(o["outcome"] in ("killed", "timeout") for o in outcomes)
    survivors = [_survivor(o, known) for o in outcomes if o["outcome"] in ("survived", "not covered", "unjudged")]
    equivalent = sum(s["equivalent"] for s in survivors)
    real = len(outcomes) - equivalent
    return {
        "mutants": len(outcomes),
        "killed": killed,
        "score": killed / len(outcomes) if outcomes else float("nan"),
        "equivalent": equivalent,
        # only the fast tier runs (the coverage map is the fast tier's): this is the fast tier's score
        "score_non_equivalent": killed / real if real else float("nan"),
        "goal": 0.9,
        "modules_reached": len({o["module"] for o in outcomes}),
        "by_package": _by_package(outcomes),
        "not_covered": sum(o["outcome"] == "not covered" for o in outcomes),
        "timeouts": timeouts(outcomes),
        "survivors": survivors,
    }


def run_all(modules: list[str], seed: int, per_module: int, setting: Setting) -> tuple[list[dict], bool]:
    """Every module's mutants, against a copy of the package made here (the worktree is never touched); and
    whether the run was stopped before it judged them all (its budget, or SIGTERM/Ctrl-C): what it judged
    until then is the result, and the journal keeps it for a run again."""
    outcomes: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="iolab-mutation-") as scratch:
        tree = Path(scratch) / "iolab"
        shutil.copytree(SRC, tree, ignore=shutil.ignore_patterns("__pycache__"))
        check_copy_is_used(tree)
        try:
            for module in modules:
                if setting.deadline and time.monotonic() > setting.deadline:
                    raise OutOfTime
                source = (SRC / module).read_text(encoding="utf-8")
                run_module(tree, module, draw(module, source, seed, per_module), setting, outcomes)
            settle_timeouts(tree, outcomes, setting)
        except (OutOfTime, KeyboardInterrupt):
            return outcomes, True
    return outcomes, False


def merged(paths: list[Path]) -> tuple[list[str], list[dict]]:
    """The modules and outcomes of results made side by side (`--modules`, one part each) or one after another
    (a `--rerun` of a part's survivors after it): a later file's outcome of a mutant replaces an earlier one's,
    unless it only reused that kill."""
    parts = [json.loads(path.read_text()) for path in paths]
    found: dict[tuple[str, int], dict] = {}
    for part in parts:
        for o in part["outcomes"]:
            key = (o["module"], o["index"])
            if key not in found or not o.get("reused"):
                found[key] = o
    modules = list(dict.fromkeys(m for part in parts for m in part["modules"]))
    return modules, sorted(found.values(), key=lambda o: (modules.index(o["module"]), o["index"]))


def expanded(names: list[str], src: Path | None = None) -> list[str]:
    """`--modules` as modules: a folder (`analysis/`, `fio`) stands for each module under it, as `--whole`
    draws them (`__init__.py` left out); a module stands for itself."""
    src = src or SRC
    out: list[str] = []
    for name in (n.strip() for n in names if n.strip()):
        folder = src / name.rstrip("/")
        if folder.is_dir():
            out += sorted(
                str(p.relative_to(src)) for p in folder.rglob("*.py") if p.name not in ("__init__.py", "__main__.py")
            )
        elif (src / name).is_file():
            out.append(name)
        else:
            raise SystemExit(f"--modules: no module or folder {name!r} under src/iolab")
    return list(dict.fromkeys(out))


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-module", type=int, default=12, help="mutants drawn from each module (0: all)")
    parser.add_argument("--modules", help="comma-separated, relative to src/iolab (default: analysis/ and parsing)")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--budget-s", type=float, default=0.0, help="stop drawing mutants after this long (0: none)")
    parser.add_argument("--whole", action="store_true", help="every module of src/iolab, not only the numbers'")
    parser.add_argument("--coverage-map", type=Path, help="run each mutant's covering fast tests (made if missing)")
    parser.add_argument("--coverage-shards", type=int, default=1, help="processes making the map side by side")
    parser.add_argument("--out", type=Path, help="where the result goes (default bench/results/mutation*.json)")
    parser.add_argument("--rerun", type=Path, help="a previous result: its killed mutants (same source) are kept")
    parser.add_argument("--merge", type=Path, nargs="+", help="results of parts of one run (--modules): one result")
    parser.add_argument(
        "--sweep-notes", action="store_true", help="drop the notes whose module or line no longer exists, and stop"
    )
    add_smoke_flag(parser)
    return parser.parse_args()


def spread(modules: list[str]) -> list[str]:
    """`modules` dealt round the packages (analysis/, cli/, runner/, ... and the top level), one of each in
    turn, each package's in their own order: a run its budget stops has judged some of every package, not
    all of the first few in name order."""
    by_package: dict[str, list[str]] = {}
    for module in modules:
        by_package.setdefault(module.partition("/")[0] if "/" in module else "", []).append(module)
    rounds = max((len(group) for group in by_package.values()), default=0)
    return [group[i] for i in range(rounds) for group in by_package.values() if i < len(group)]


def _outcomes(args: argparse.Namespace, started: float) -> tuple[list[str], list[dict], bool]:
    """The modules, every mutant's outcome (run here, or merged from parts run side by side), and whether the
    run stopped before it judged them all."""
    if args.merge:  # the parts ran side by side, each on its own modules: their outcomes are the run's
        return (*merged(args.merge), False)
    modules = expanded(args.modules.split(",")) if args.modules else (WHOLE if args.whole else MODULES)
    covering = coverage_map(args.coverage_map, modules, args.coverage_shards) if args.coverage_map else None
    if args.smoke:
        modules, args.per_module = ["analysis/knee.py"], 2
    setting = Setting(
        covering=covering,
        deadline=started + args.budget_s if args.budget_s else 0.0,
        killed=previously_killed(args.rerun) if args.rerun else {},
        journal=Journal(
            None if args.smoke else _journal_path(args), {"seed": args.seed, "per_module": args.per_module}
        ),
        durations=map_durations(args.coverage_map) if args.coverage_map else {},
    )
    return (modules, *run_all(spread(modules), args.seed, args.per_module, setting))


def _out_path(args: argparse.Namespace) -> Path:
    return args.out or RESULTS / ("mutation_whole.json" if args.whole else "mutation.json")


def _journal_path(args: argparse.Namespace) -> Path:
    """Beside the result: `mutation_whole.json`'s journal is `mutation_whole.jsonl`."""
    return _out_path(args).with_suffix(".jsonl")


def _stop_on_term(signum: int, frame: object) -> None:
    """SIGTERM stops the run as Ctrl-C does: the mutant in flight ended, what was judged written."""
    raise KeyboardInterrupt


def main() -> None:
    args = _arguments()
    if args.sweep_notes:
        for note in sweep_notes():
            print(f"dropped {note['module']}: {note['change']} on {note['code']!r}")
        return
    signal.signal(signal.SIGTERM, _stop_on_term)
    started = time.monotonic()
    modules, outcomes, stopped = _outcomes(args, started)
    result = summary(outcomes)
    print(
        f"{result['killed']} of {result['mutants']} mutants killed: {result['score']:.1%}; "
        f"{result['equivalent']} equivalent; of the rest {result['score_non_equivalent']:.1%} (goal 90%); "
        f"time-outs: {result['timeouts']}" + ("; stopped before the end (the journal keeps it)" if stopped else "")
    )
    write_result(
        _out_path(args),
        "mutation",
        {
            "host": host(),
            "seed": args.seed,
            "sampling": "per module: random.Random(f'{seed}:{module}')",
            "per_module": args.per_module,
            "modules": modules,
            # False: the budget or a stop ended the run; modules_reached says how far (a run again resumes)
            "complete": not stopped,
            **result,
            "coverage_map": args.coverage_map is not None,
            "reused_kills": sum(bool(o.get("reused")) for o in outcomes),
            "outcomes": outcomes,
            "wall_s": time.monotonic() - started,
        },
        smoke=args.smoke,
    )
    if not stopped and not args.smoke and not args.merge:
        _journal_path(args).unlink(missing_ok=True)  # the result holds it all: a run again starts afresh


if __name__ == "__main__":
    main()
