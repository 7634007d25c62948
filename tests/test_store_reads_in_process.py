"""A command that only reads the store runs in the test's own process (tests.in_process), not an interpreter.

`tests.iolab_cli.iolab` starts `python -m iolab`: about 0.25 CPU-s for `ls`, 0.4 for `show`, 0.5 for `report`
and 1.2 for `report --html` (imports, mostly), where `tests.in_process.iolab` runs the same entry point with
the same arguments and environment in a hundredth of that. The suite made 78 such process starts for commands
that start no fio (about 29 CPU-s of a CPU-bound parallel tier and 6 s of the serial one, round 58). This test
reads every test module (`ast`) and fails on a call of the subprocess `iolab` whose command is one of READS,
outside the modules in NEEDS_A_PROCESS, each with its reason. A planted call of each spelling is shown to fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# Commands that read (or tag) the store and start no fio, no probe and nothing outside IOLAB_HOME but the
# files they are asked to write. `clean` is not one: it reads TMPDIR, which `tempfile` caches per process.
READS = {"ls", "show", "report", "compare", "tag", "history", "export", "diff-env"}
NEEDS_A_PROCESS = {
    "runner/test_trust_paths.py": "IOLAB_HOME's trust is judged as a fresh process meets it",
    "runner/test_full_home.py": "a full file system's refusal, as a process of its own meets it",
    "store/test_private.py": "the modes of the files a process writes under its own umask",
    "test_file_writes.py": "pictures written through a planted link, by the command as a user runs it",
    "workflows/test_wording.py": "the words a user reads, from the real commands",
    "cli/test_piped_tables.py": "stdout a real pipe",
    "cli/test_schedule_cli.py": "the store a timer's process made, read as the timer's user reads it",
    "test_tiers.py": "the tiers' own fixture: a test that starts the command is end to end",
}


def subprocess_reads(source: str) -> list[tuple[int, str]]:
    """(line, command) of each call of `tests.iolab_cli`'s `iolab` (by its name or as `iolab_cli.iolab`) whose
    first argument is a command in READS."""
    tree = ast.parse(source)
    names = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "tests.iolab_cli"
        for alias in node.names
        if alias.name == "iolab"
    }
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
            continue
        func = node.func
        by_name = isinstance(func, ast.Name) and func.id in names
        by_module = (
            isinstance(func, ast.Attribute)
            and func.attr == "iolab"
            and isinstance(func.value, ast.Name)
            and func.value.id == "iolab_cli"
        )
        if (by_name or by_module) and node.args[0].value in READS:
            found.append((node.lineno, str(node.args[0].value)))
    return found


def test_store_reading_commands_start_no_interpreter():
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        name = path.relative_to(TESTS).as_posix()
        text = path.read_text(encoding="utf-8")
        if name in NEEDS_A_PROCESS or "iolab_cli" not in text:
            continue
        offenders += [f"tests/{name}:{line}: iolab({command!r}, ...)" for line, command in subprocess_reads(text)]
    assert offenders == [], (
        "a command that only reads the store started an interpreter of its own; call tests.in_process.iolab "
        f"(or name the module in NEEDS_A_PROCESS with its reason): {offenders}"
    )


def test_the_modules_that_need_a_process_still_exist():
    assert [name for name in NEEDS_A_PROCESS if not (TESTS / name).is_file()] == []


def test_a_planted_call_of_each_spelling_is_found_and_an_in_process_one_is_not():
    cli = "tests.iolab_cli"  # spelled apart: tests/test_tiers.py reads an import of it as starting the command
    planted = (
        f"from {cli} import iolab\n"
        f"from {cli} import iolab as cli\n"
        "from tests import iolab_cli, in_process\n"
        'iolab("ls", "--json")\n'
        'cli("report", "1")\n'
        'iolab_cli.iolab("show", "last")\n'
        'iolab("run", "plan.toml")\n'  # a run starts fio: a process of its own
        'in_process.iolab("compare", "1", "2")\n'
    )
    assert subprocess_reads(planted) == [(4, "ls"), (5, "report"), (6, "show")]
    assert subprocess_reads('from tests.in_process import iolab\niolab("ls")\n') == []
