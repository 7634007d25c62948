"""Imports follow the pipeline (ARCHITECTURE.md): a stage imports only the stages it is allowed to know.

Every module under src/iolab is parsed with `ast`; every import counts, at the top of a module or
inside a function (a lazy import keeps start-up fast, it does not make a dependency go away).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

BASE = frozenset(
    {
        "iolab",
        "errors",
        "private",
        "textfile",
        "numbers",
        "guards",
        "pathchain",
        "acl",
        "mounted",
        "programs",
        "printable",
    }
)

# What each stage may import besides itself. "iolab" is the package root (`__version__`); errors, private
# and textfile are the base utilities. A stage not in this table fails the test until it is given a row.
ALLOWED: dict[str, frozenset[str]] = {
    # base utilities: an error type, private files (held to root-python-owner: programs), bounded reads of a
    # user's input; they know no stage
    "iolab": frozenset(),
    "errors": frozenset(),
    "private": frozenset({"pathchain", "guards", "programs"}),
    "textfile": frozenset({"errors", "guards"}),
    # one bounded parser for the numbers of a user's input (int64, finite doubles)
    "numbers": frozenset({"errors"}),
    # the registry of every guard that stands between iolab and someone's data (iolab.guards)
    "guards": frozenset(),
    # paths no other user can steer: every ancestor of what iolab writes checked, then walked without links
    "pathchain": frozenset({"errors", "guards", "acl", "mounted"}),
    # who a file's POSIX access ACL lets write (read for pathchain's rule)
    "acl": frozenset(),
    # mounts on which another user decides what a directory's owner and mode say (read for pathchain's rule)
    "mounted": frozenset(),
    # the programs iolab runs, found on PATH once and held to pathchain's rule
    "programs": frozenset({"errors", "guards", "pathchain"}),
    # text printed with every control character escaped, iolab's own colours kept (iolab.printable)
    "printable": frozenset(),
    # plain typed data crossing every border, and the pure vocabulary to read it (units, option values)
    "models": frozenset(),
    # job files from Points, fio run, its output parsed into Results; fio's option rules live here
    "fio": BASE | {"models"},
    # reads the host into a Snapshot, every read through one Root
    "probe": BASE | {"models"},
    # samplers beside fio; they read /proc and /sys through probe's Root, as the probe does
    "telemetry": BASE | {"models", "probe"},
    # presets and plan files into Points; a plan's options are checked by fio's own option rules
    "plan": BASE | {"models", "fio"},
    # pure functions over numbers, never prose: they know the data models only
    "analysis": frozenset({"models"}),
    # sqlite schema, writes and queries: data models only
    "store": BASE | {"models"},
    # many hosts through fio's client/server mode, host snapshots over ssh
    "cluster": BASE | {"models", "fio", "probe"},
    # the doctor turns a run's material into Findings: models, and the numbers of analysis
    "doctor": BASE | {"models", "analysis"},
    # orchestration: plans measured through fio or the cluster with telemetry and snapshots, records handed
    # to the store; numbers decide adaptive repeats and reruns, and the finished run is handed to the doctor
    "runner": BASE | {"models", "plan", "fio", "telemetry", "probe", "cluster", "store", "analysis", "doctor"},
    # systemd timers and cron entries that call the `iolab` command: nothing of the pipeline
    "schedule": BASE,
    # other benchmarks' outputs (IOR, mdtest, IOzone) read into plain models, as fio's are in `fio`
    "tools": BASE | {"models"},
    # existing fio and other tools' outputs read into the store as runs and diagnosed as measured ones are
    "imports": BASE | {"models", "fio", "tools", "store", "doctor"},
    # views: what a page shows (a run, a comparison, a series' history), loaded from the store and computed
    # with analysis and the doctor's material
    "views": BASE | {"models", "store", "analysis", "doctor"},
    # renderers, one per format: they lay out views and never open the store; analysis only for the result
    # types views carry (Verdict, Stability, HealthPoint)
    "report": BASE | {"models", "views", "analysis"},
    # the command line calls any stage
    "cli": BASE
    | {
        "models",
        "fio",
        "probe",
        "telemetry",
        "plan",
        "analysis",
        "store",
        "cluster",
        "doctor",
        "runner",
        "schedule",
        "imports",
        "tools",
        "views",
        "report",
    },
    # `python -m iolab`
    "__main__": frozenset({"cli"}),
}


@dataclass(frozen=True)
class Edge:
    """One import: module `source` (in `path` at `line`) imports module `target`; `top` when at module level."""

    source: str
    target: str
    path: Path
    line: int
    top: bool

    def __str__(self) -> str:
        return f"{self.path.relative_to(SRC.parent)}:{self.line}: {self.source} -> {self.target}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted((SRC / "iolab").rglob("*.py"))}


def stage(module: str) -> str:
    """The package (stage) of an iolab module: `iolab.store.db` -> "store", `iolab` -> "iolab"."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def resolve(name: str) -> str:
    """The iolab module an imported name lives in: `iolab.store.db.Store` -> `iolab.store.db`."""
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The fully qualified names an import statement in `module` brings in."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:  # relative: from the module's own package, one level up per extra dot
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    return [f"{base}.{alias.name}" for alias in node.names]


def edges() -> list[Edge]:
    """Every import of an iolab module by an iolab module, with where it is written."""
    found = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for name in imported(node, module, path.name == "__init__.py"):
                if name == "iolab" or name.startswith("iolab."):
                    found.append(Edge(module, resolve(name), path, node.lineno, id(node) in top))
    return found


@cache
def every_edge() -> list[Edge]:
    """`edges()` read once, when a test first asks: not at import, which every pytest-xdist worker's collection
    pays (about 1.4 s of CPU each) while only one worker runs these tests."""
    return edges()


def test_every_stage_has_a_row() -> None:
    missing = sorted({stage(m) for m in MODULES} - ALLOWED.keys())
    assert not missing, f"stages without a row in ALLOWED: {missing}"


def test_imports_follow_the_pipeline() -> None:
    against = sorted(
        {
            (str(edge.path), edge.line, f"{edge}  ({stage(edge.source)} may not import {stage(edge.target)})")
            for edge in every_edge()
            if stage(edge.source) != stage(edge.target)
            and stage(edge.target) not in ALLOWED.get(stage(edge.source), frozenset())
        }
    )
    assert not against, "imports against the flow:\n" + "\n".join(line for _, _, line in against)


def test_the_table_is_an_order() -> None:
    """No two stages may import each other, directly or around a loop: the table itself has no cycle."""
    pairs = {(source, target) for source, targets in ALLOWED.items() for target in targets}
    assert not cycles(pairs), cycles(pairs)


def test_the_edges_are_read() -> None:
    """The parser sees lazy imports and names imported from a module, so the tests above test something."""
    assert any(e.source == "iolab.store.db" and e.target == "iolab.models" and e.top for e in every_edge())
    assert any(e.source == "iolab.cli.runs" and not e.top for e in every_edge())
    assert any(e.source == "iolab.__main__" and e.target == "iolab.cli" for e in every_edge())


def cycles(pairs: set[tuple[str, str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan), as a closed path."""
    graph: dict[str, set[str]] = {}
    for a, b in pairs:
        graph.setdefault(a, set()).add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    found = []
    for component in components:  # the shortest path from the first member back to itself
        start = min(component)
        came: dict[str, str] = {}
        queue = [start]
        while start not in came:
            node = queue.pop(0)
            for nxt in sorted(graph[node] & component):
                if nxt not in came:
                    came[nxt] = node
                    queue.append(nxt)
        path = [start]
        while came[path[-1]] != start:
            path.append(came[path[-1]])
        found.append([start, *reversed(path)])
    return found


def test_no_import_cycle() -> None:
    """All imports, lazy ones included: an import moved into a function hides a cycle from Python at import
    time, it does not remove it (store.db -> store.series -> store.db was such a one). A package's `__init__`
    is a module like the others: command modules that imported the `iolab.cli` package importing them were a
    cycle too, one that works only while `app` is defined before the imports."""
    pairs = {(e.source, e.target) for e in every_edge() if e.source != e.target}
    found = cycles(pairs)
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_cycles_are_found() -> None:
    assert cycles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == [["a", "b", "c", "a"]]
