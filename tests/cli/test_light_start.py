"""The commands that need no analysis load none of it: `iolab --help`, `iolab ls` (`--json` too) and `iolab run
--dry-run`; a run refused before it starts loads no doctor.

Every `iolab` process pays for what it imports before it does anything (the suite starts about a thousand of
them): numpy is about 0.12 s of CPU, the doctor's rules and the analysis behind them as much again, and a
dry run once loaded the whole run machinery (525 modules, half a CPU-second) to print a plan. The five
commands run one after the other in one fresh interpreter, lightest first, and after each the modules it
must not have loaded are looked up in sys.modules; a module-level import that brings one back (the run's
machinery imported above the dry run's return, numpy at the top of a module the dry run reaches) fails here.
"""

from __future__ import annotations

import json

from tests.fresh_python import run_fresh

# Each command, and what it must not load (a name, or a package and everything under it).
LIGHT: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "--help": (
        ["--help"],
        ("numpy", "rich", "jinja2", "iolab.analysis", "iolab.doctor", "iolab.report", "iolab.runner", "iolab.store"),
    ),
    "ls": (
        ["ls"],
        ("numpy", "jinja2", "iolab.analysis", "iolab.doctor", "iolab.runner", "iolab.views.comparison"),
    ),
    # the JSON format's module: the comparison's and history's wording, and the analysis behind them, only for
    # those (0.34 -> 0.29 CPU-s a process, medians of 8 interleaved)
    "ls --json": (
        ["ls", "--json"],
        (
            "numpy",
            "jinja2",
            "iolab.doctor",
            "iolab.runner",
            "iolab.views.comparison",
            "iolab.views.history",
            "iolab.report.wording",
            "iolab.analysis.compare",
            "iolab.analysis.history",
        ),
    ),
    "run --dry-run": (
        ["run", "--dry-run", "TARGET"],
        (
            "numpy",
            "jinja2",
            "iolab.doctor",
            "iolab.runner.execute",
            "iolab.runner.stopping",
            "iolab.cluster.cluster",
            "iolab.views.comparison",
            "iolab.report.wording",
        ),
    ),
    # a run refused before it starts (a target that is not there): the run's machinery, but not the doctor that
    # judges a finished run (0.375 -> 0.33 CPU-s for `import iolab.cli, iolab.runner.execute`, medians of 12)
    "run, refused": (["run", "MISSING"], ("numpy", "iolab.doctor.engine", "iolab.doctor.rules")),
}
EXIT = {"run, refused": 2}  # the others exit 0

CHECK = """
import json, sys
from iolab.cli import main
out, commands = sys.argv[1], json.loads(sys.argv[2])
loaded = {}
for name, args in commands.items():
    sys.argv = ["iolab", *args]
    code = None
    try:
        main()
    except SystemExit as exit:
        code = exit.code
    loaded[name] = [code, sorted(sys.modules)]
with open(out, "w") as file:
    json.dump(loaded, file)
"""


def _heavy(modules: list[str], banned: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == b or m.startswith(b + ".") for b in banned)]


def test_light_commands_load_no_analysis(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    places = {"TARGET": str(target), "MISSING": str(tmp_path / "missing")}
    commands = {name: [places.get(a, a) for a in args] for name, (args, _) in LIGHT.items()}
    out = tmp_path / "loaded.json"
    done = run_fresh(CHECK, str(out), json.dumps(commands), home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    loaded = json.loads(out.read_text())
    for name, (_, banned) in LIGHT.items():
        code, modules = loaded[name]
        assert code in ((EXIT[name],) if name in EXIT else (0, None)), (name, code, done.stderr)
        assert not _heavy(modules, banned), f"`iolab {name}` loaded {_heavy(modules, banned)[:8]}"


PAGE = """
import sys
import iolab.doctor.derived, iolab.views.run
from iolab.views.page_check import page_contradictions
assert page_contradictions([], [], []) == []
print(" ".join(m for m in sys.modules if m.startswith(("iolab.doctor.engine", "iolab.doctor.rules"))))
"""


def test_a_page_that_holds_together_loads_no_doctor_rule(tmp_path):
    """`show` and `report` read the doctor's derived views (the array views, the curves' names) and check their
    page (`views.page_check`), and import the rules (about 0.06 CPU-s a process) only for a page that
    contradicts itself: importing the doctor package or checking a sound page loads no rule."""
    done = run_fresh(PAGE, home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []
