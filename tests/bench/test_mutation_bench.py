"""bench/mutation.py measures what it says: a mutant inside a lambda of a module-level table runs against the
tests that call that lambda (it was mapped to the table's first line, run only at import, and reported "not
covered"); a mutant that breaks `import iolab` is killed, while a pytest usage error of a copy that imports
is the run's fault and stops the bench; and a fresh interpreter a test starts imports the mutated copy, not
the worktree (the parallel reader's tests run there, so its mutants could never be caught)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import mutation  # noqa: E402

TABLE = """
RULES = {
    "a": lambda x: x + 1,
    "b": lambda x: (
        x * 2
    ),
}


def use(key, x):
    return RULES[key](x)
"""


def test_a_mutant_in_a_table_s_lambda_runs_against_the_tests_that_call_it():
    mutants = {(m.line, m.change): m for m in mutation.draw("table.py", TABLE, 1, 0)}
    # the lambda's body runs when it is called: its mutants belong to the lambda's line, not to import time
    assert mutants[(3, "Add -> Sub")].statement == 3
    assert mutants[(5, "Mult -> Div")].statement == 4
    covering = {"table.py": {2: [], 3: ["tests/t.py::test_a"], 4: ["tests/t.py::test_b"], 10: ["tests/t.py::test_a"]}}
    lines = TABLE.splitlines()
    found = {
        key: mutation.covering_tests(covering, "table.py", mutant, lines)
        for key, mutant in mutants.items()
        if key in ((3, "Add -> Sub"), (5, "Mult -> Div"))
    }
    # existing() keeps only tests whose file defines them: none here, so compare before that filter
    assert {key: covering["table.py"][abs(mutants[key].statement)] for key in found} == {
        (3, "Add -> Sub"): ["tests/t.py::test_a"],
        (5, "Mult -> Div"): ["tests/t.py::test_b"],
    }


# Run in a fresh interpreter, as the bench runs: this test process has imported the worktree's iolab already.
SCRIPT = """
import json, sys
from pathlib import Path
sys.path.insert(0, {bench!r})
import mutation
scratch = Path(sys.argv[1])
out = {{}}

broken = scratch / "broken" / "iolab"
broken.mkdir(parents=True)
(broken / "__init__.py").write_text("raise RuntimeError('a mutant that breaks the import')")
out["breaks the import"] = mutation.run_tests(broken, ["tests/test_tiers.py"])

whole = scratch / "whole" / "iolab"
whole.mkdir(parents=True)
(whole / "__init__.py").write_text("")
try:
    out["usage error"] = "counted as " + mutation.run_tests(whole, [str(scratch / "no_such_test.py")])
except mutation.RunBroken as stop:
    out["usage error"] = str(stop)

fresh = scratch / "fresh" / "iolab"
fresh.mkdir(parents=True)
(fresh / "__init__.py").write_text("")
probe = scratch / "probe" / "test_fresh_interpreter.py"
probe.parent.mkdir()
probe.write_text(
    "import subprocess, sys\\n"
    "def test_a_fresh_interpreter_imports_the_copy():\\n"
    "    done = subprocess.run([sys.executable, '-c', 'import iolab; print(iolab.__file__)'],"
    " capture_output=True, text=True, check=True)\\n"
    f"    assert done.stdout.startswith({{str(fresh)!r}}), done.stdout\\n"
)
out["fresh interpreter"] = mutation.run_tests(fresh, [str(probe)])
print(json.dumps(out))
"""


def test_import_breaking_mutants_are_killed_usage_errors_stop_and_fresh_interpreters_import_the_copy(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(bench=str(ROOT / "bench")), str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["breaks the import"] == "killed"
    assert out["usage error"].startswith("pytest could not run") and "exit 4" in out["usage error"]
    assert out["fresh interpreter"] == "survived"  # its test passed: the fresh interpreter read the copy


def test_the_map_is_brought_up_to_date_by_content_not_by_files_times():
    """A fresh worktree's files are all newer than any map: staleness is by blob id. A changed test file is run
    again; a changed module among those mutated has its lines dropped and the tests that ran it run again; a
    change to which tests are fast runs the files the map holds no test of."""
    out = {
        "a.py": {3: ["tests/test_a.py::test_one", "tests/test_b.py::test_two"]},
        "b.py": {5: ["tests/test_b.py::test_two"]},
    }
    blobs = {"tests/test_a.py": "1", "tests/test_b.py": "2", "tests/test_c.py": "3", "src/iolab/a.py": "4"}
    blobs |= {"tests/conftest.py": "5", "tests/tiers.py": "6"}
    assert mutation._to_remap(out, blobs, dict(blobs), ["a.py", "b.py"]) == ([], [])
    assert mutation._to_remap(out, blobs, blobs | {"tests/test_b.py": "9"}, ["a.py"]) == (["tests/test_b.py"], [])
    drifted = blobs | {"src/iolab/a.py": "9"}
    assert mutation._to_remap(out, blobs, drifted, ["b.py"]) == ([], [])  # not among the modules mutated
    assert mutation._to_remap(out, blobs, drifted, ["a.py"]) == (
        ["tests/test_a.py::test_one", "tests/test_b.py::test_two"],
        ["a.py"],
    )
    assert mutation._to_remap(out, blobs, blobs | {"tests/tiers.py": "9"}, []) == (["tests/test_c.py"], [])


def test_a_line_run_at_import_inside_a_function_runs_against_the_module_s_tests():
    """cli/numeric.py's `bounded` runs while the command line is built (at import, in no test's context): its
    mutants ran against nothing and were reported "not covered"; they run against the tests that import it."""
    mutant = mutation.Mutant("cli/numeric.py", 0, 54, "False -> True", 54)
    lines = (mutation.SRC / "cli/numeric.py").read_text().splitlines()
    run_by_nobody = mutation.covering_tests({"cli/numeric.py": {54: []}}, "cli/numeric.py", mutant, lines)
    assert "tests/cli/test_numeric_options.py" in run_by_nobody
    never_run = mutation.covering_tests({"cli/numeric.py": {}}, "cli/numeric.py", mutant, lines)
    assert never_run == []  # a line no process ran is not covered


def test_a_default_read_by_a_test_itself_runs_against_that_test():
    """LatencyCurve's default fractions are read by tests/models/test_model_contracts.py directly (no line of
    src/ naming them runs in that test): the files that import the module run too, beside the lines' readers."""
    source = (mutation.SRC / "models/plan.py").read_text()
    (mutant,) = [
        m
        for m in mutation.draw("models/plan.py", source, 1, 0)
        if m.change == "1.0 -> 2.0" and "fractions" in source.splitlines()[m.line - 1]
    ]
    assert mutant.statement < 0  # run at import
    covering = {"models/plan.py": {abs(mutant.statement): []}}
    assert "tests/models/test_model_contracts.py" in mutation.covering_tests(
        covering, "models/plan.py", mutant, source.splitlines()
    )


def test_a_command_declared_at_import_runs_against_the_tests_that_drive_the_command_line():
    """`schedule_app = typer.Typer(no_args_is_help=True)` is read through the command tree that cli/__init__.py
    builds (iolab.cli.main), by no line of cli/schedule.py: its mutants run against the tests that drive main
    (tests/cli/test_application.py among them, which kills that one); a module its package's __init__ does not
    import gets none of them."""
    source = (mutation.SRC / "cli/schedule.py").read_text()
    (mutant,) = [
        m
        for m in mutation.draw("cli/schedule.py", source, 1, 0)
        if m.change == "True -> False" and "no_args_is_help" in source.splitlines()[m.line - 1]
    ]
    driver = "tests/cli/test_application.py::test_a_command_group_alone_prints_its_help_listing_its_commands"
    covering = {"cli/schedule.py": {abs(mutant.statement): []}, "cli/__init__.py": {34: [driver]}}
    assert driver in mutation.covering_tests(covering, "cli/schedule.py", mutant, source.splitlines())
    assert mutation._entry_tests(covering, "cli/import_progress.py") == []  # cli/__init__.py does not import it
