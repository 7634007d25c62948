"""Shared fixtures: an isolated IOLAB_HOME per test, and a check of every finding the suite's runs stored.

Tests are in two tiers. A test that needs something real to run (fio, the `iolab` command, loop
devices, a browser, sshd, the stores of real runs) is end to end and marked `e2e`: tests/tiers.py reads
what the test itself uses (its code, fixtures and markers), not the words of its file; the rest are unit
tests of one module each, which `make check` runs in under a minute (`pytest -m "not e2e"`).

`make test` runs the end-to-end tests on several workers (pytest-xdist, a module's tests on one
worker, so its module-scoped runs are made once), except the modules in SERIAL: they measure a
difference, a dip, interference or the timing of a signal, which another worker's fio would
disturb, so they run afterwards, alone (`-m serial`).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from functools import cache
from pathlib import Path

import pytest

from iolab.models.finding import FAILED_RULE, unreadable_part
from tests import tiers
from tests.oracle import OracleReport, ShownRow, check_quotes, check_rows, check_store, point_rates
from tests.worker_order import heaviest_first
from tests.worker_sessions import lead_own_session

# Modules that must have the machine to themselves, and why.
SERIAL = {
    "tests/cli/test_compare_loopdev.py": "a 10% bandwidth difference must be called slower, a 0% one never",
    "tests/runner/test_arrays.py": "a busy host's interference is named and raises no dip, outlier or scaling alarm; "
    "capped drives scale linearly",
    "tests/telemetry/test_loop_devices.py": "a dip's onset and depth are found",
    "tests/telemetry/test_interference.py": "a busy neighbour is named, and only then",
    "tests/runner/test_kill.py": "SIGKILL lands at chosen moments of a run",
    "tests/runner/test_interrupt.py": "SIGKILL lands inside a point, and no fio may outlive iolab by half a second",
    "tests/runner/test_stopping_loopdev.py": "a point ends when its rate is known, and a rate that falls is not",
    "tests/workflows/test_seed002_stopping.py": "a rate-capped point of four grouped jobs stops once its rate is "
    "known at ±2%, before its maximum",
    "tests/workflows/test_seed000.py": "a dip is found at its second and a re-run has none; a rate-capped A/B is "
    "judged the same speed; only the throttled drive is an outlier",
    "tests/doctor/test_device_counts.py": "the disk beneath a loop device reads almost nothing of a cached file: its "
    "counters are the whole disk's, which another worker's direct fio on the same disk fills (CI failed on it)",
}
ROOT = Path(__file__).resolve().parent.parent


@cache
def _in_tests(filename: str) -> bool:
    """Whether a fixture's code lives under tests/ (asked for every fixture of every test: once per file)."""
    return Path(filename).is_relative_to(ROOT / "tests")


def _is_e2e(item: pytest.Item, verdicts: tiers.Verdicts | None = None) -> bool:
    """Whether the test reaches something real (tests/tiers.py): its own code, its class, its module's
    `pytestmark` and its fixtures, not the words of its file (the answer kept in `verdicts` when given)."""
    function = getattr(item, "function", None)
    if function is None:  # not a Python test function: its file decides
        return tiers.reaches_something_real(Path(str(item.path)), "pytestmark")
    fixtures = []
    for name in getattr(item, "fixturenames", []):
        for definition in item._fixtureinfo.name2fixturedefs.get(name, ()):
            code = getattr(definition.func, "__code__", None)
            if code is not None and _in_tests(code.co_filename):
                fixtures.append((Path(code.co_filename), definition.func.__name__, code.co_firstlineno))
    code = function.__code__
    cls = getattr(item, "cls", None)
    decide = verdicts.is_end_to_end if verdicts is not None else tiers.is_end_to_end
    return decide(
        Path(code.co_filename), function.__name__, code.co_firstlineno, cls.__name__ if cls else None, fixtures
    )


def pytest_configure(config: pytest.Config) -> None:
    lead_own_session()  # `make test`'s workers: a CPU share each, as fio's jobs have (tests/worker_sessions.py)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    renamed = [name for name in SERIAL if not (ROOT / name).is_file()]
    if renamed:  # a moved module would silently lose its `serial` mark and run beside other workers
        raise pytest.UsageError(f"tests/conftest.py SERIAL names modules that do not exist: {renamed}")
    verdicts = tiers.Verdicts()
    for item in items:
        path = Path(str(item.path))
        if _is_e2e(item, verdicts):
            item.add_marker(pytest.mark.e2e)
        if path.relative_to(ROOT).as_posix() in SERIAL:
            item.add_marker(pytest.mark.serial)
    verdicts.save()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # the queue a worker's collection sets: the slowest modules first
        heaviest_first(items, ROOT)


# A run's HTML page costs about a second of charts; only the tests of that page ask for it
# (monkeypatch.setenv("IOLAB_RUN_REPORT", "1")). Set here, not in a fixture, so the session- and
# module-scoped fixtures that make runs inherit it too.
os.environ.setdefault("IOLAB_RUN_REPORT", "0")


@pytest.fixture(autouse=True)
def iolab_home(tmp_path, monkeypatch):
    """Every test gets its own database directory, never the user's; the findings its runs stored are
    checked afterwards, so every run the suite makes is also a test of the findings' wording, of the
    invariants (no RES-INVARIANT finding) and, through the oracle, of every figure stored for its points."""
    home = tmp_path / "iolab-home"
    monkeypatch.setenv("IOLAB_HOME", str(home))
    yield home
    unreadable = _unreadable_findings(home / "iolab.db")
    assert not unreadable, f"findings a user cannot read: {unreadable[:3]}"
    broken = _stored_findings(home / "iolab.db", "RES-INVARIANT")
    assert not broken, f"results that break an invariant (iolab.analysis.invariants): {broken[:3]}"
    disagreements = _oracle_check(tmp_path)
    assert not disagreements, f"stored figures the oracle (tests/oracle.py) recomputes otherwise: {disagreements[:3]}"


@pytest.fixture(scope="module")
def utc():
    """Local times are UTC here, whatever the host's zone: pages and days print local times. Module-wide, so a
    module's own data built once (a module-scoped fixture) is built in UTC too."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TZ", "UTC")
        time.tzset()
        yield
    time.tzset()


# Every store the suite's tests made, held against fio's raw output by the oracle; counted for the summary.
ORACLE = OracleReport()
_CHECKED: set[Path] = set()


def _stores(directory: Path) -> list[Path]:
    """The iolab.db files under a directory, but for stores a test damaged on purpose (under `tampered*`)."""
    found = []
    for parent, dirs, files in os.walk(directory, onerror=lambda _: None):
        dirs[:] = [d for d in dirs if not d.startswith("tampered")]
        if "iolab.db" in files:
            found.append(Path(parent) / "iolab.db")
    return found


def _oracle_check(directory: Path) -> list[str]:
    """Run the oracle over the stores under `directory` not checked yet; their disagreements."""
    disagreements: list[str] = []
    for database in _stores(directory):
        if database in _CHECKED:
            continue
        _CHECKED.add(database)
        report = check_store(database)
        if report.points:
            rates = point_rates(database)
            check_rows(rates, _shown_rows(database), report)
            check_quotes(database, rates, report)
        ORACLE.add(report)
        disagreements += report.disagreements
    return disagreements


def _shown_rows(database: Path) -> list[ShownRow]:
    """The rows iolab's tables show for a store's runs (a store of many runs: its 20 newest), with the
    measured points each row summarises."""
    from iolab.errors import UserError
    from iolab.store.db import open_store
    from iolab.store.queries import list_runs, run_points
    from iolab.views.run import load_run

    try:
        store = open_store(database.parent, for_reading=True)
    except (UserError, sqlite3.Error):
        return []
    shown = []
    try:
        for run in list_runs(store, limit=20):
            records = run_points(store, run.id)
            measured = {r.id for r in records if r.measured and r.result is not None}
            for table in load_run(store, run.id, records).report.tables:
                for row in table.rows:
                    figures = {
                        name: (stats.mean, stats.stddev, stats.ci95_low, stats.ci95_high)
                        for name in ("bw_bytes", "iops") + (("lat_mean_ns", "lat_p99_ns") if table.kind == "io" else ())
                        if (stats := row.numbers.get(name)) is not None
                    }
                    ids = tuple(i for i in row.point_ids if i in measured)
                    if row.ddir and figures and ids:
                        shown.append(ShownRow(f"run {run.id} '{table.title}'", ids, row.ddir, figures))
    except (UserError, sqlite3.Error):
        return shown
    finally:
        store.conn.close()
    return shown


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The session-scoped stores (made once for many tests) are checked once the tests are done; a worker
    hands its counts to the controller's summary."""
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is not None:
        try:
            _oracle_check(factory.getbasetemp())
        except OSError:
            pass
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["oracle"] = json.dumps(ORACLE.__dict__)
    if ORACLE.disagreements:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_testnodedown(node, error) -> None:  # pytest-xdist: a worker's counts, added to the controller's
    counts = getattr(node, "workeroutput", {}).get("oracle")
    if counts:
        ORACLE.add(OracleReport(**json.loads(counts)))


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if hasattr(config, "workeroutput") or not (ORACLE.runs or ORACLE.points):
        return
    terminalreporter.write_line(
        f"oracle (tests/oracle.py): {ORACLE.runs} runs, {ORACLE.points} points, {ORACLE.figures} figures "
        f"({ORACLE.quotes} of them quoted by findings) recomputed from their outputs, "
        f"{len(ORACLE.disagreements)} disagreements"
        + (f" ({ORACLE.skipped} points with no output kept)" if ORACLE.skipped else "")
    )
    terminalreporter.write_line(
        "  points by output: " + ", ".join(f"{n} {kind}" for kind, n in sorted(ORACLE.formats.items()))
    )
    for line in ORACLE.disagreements[:10]:
        terminalreporter.write_line(f"  {line}")


def _stored_findings(database: Path, rule_id: str) -> list[str]:
    """The titles of the findings of one rule stored in a test's home."""
    if not database.is_file():
        return []
    try:
        conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        rows = conn.execute("SELECT title FROM findings WHERE rule_id = ?", (rule_id,)).fetchall()
        conn.close()
    except sqlite3.Error:  # no findings table (a test's deliberately broken store), or no database at all
        return []
    return [title for (title,) in rows]


def _unreadable_findings(database: Path) -> list[str]:
    """Each stored finding's title and evidence that shows nan, inf, e+ notation or an internal reference, and
    each rule that failed on its input (`Rule.finding` refuses such figures, and the engine stores that refusal
    as the rule not evaluated, titled FAILED_RULE: a rule's bug either way)."""
    if not database.is_file():
        return []
    try:
        conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        rows = conn.execute("SELECT rule_id, title, subject, evidence FROM findings").fetchall()
        conn.close()
    except sqlite3.Error:  # no findings table (a test's deliberately broken store), or no database at all
        return []
    bad = []
    for rule_id, title, subject, evidence in rows:
        try:
            shown = dict(json.loads(evidence))
        except (ValueError, TypeError, AttributeError):
            shown = {"evidence": evidence}
        text = " ".join([title, *map(str, shown.values())])
        # the product's own judgement (the subject, a name the host gave, is not a figure): one definition
        if unreadable_part(title, shown, subject or "") is not None or FAILED_RULE in title:
            bad.append(f"{rule_id}: {text}")
    return bad


if __name__ == "__main__":  # the serial tier's modules, for `make test` to collect only them
    print(*sorted(SERIAL))
