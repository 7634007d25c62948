"""`iolab import`: an archive of benchmark outputs becomes runs and points, with where each came from.

Every fio output since 2.0 (JSON, json+, terse; standalone or client/server) and IOR, mdtest and
IOzone outputs are read, recognised by content (`discover`), not by name. Each tool's files of one
sitting make one run (`sessions`: hourly outputs are as many runs, a sweep run back to back is one;
label "import <versions>", so `ls` shows it imported), each point keeping its source file,
the file's SHA-256, the tool and its version (`store.provenance`). A file whose bytes were imported
before is not stored again: the run holding it is named. A named file that cannot be read is
reported and the others are still imported; what a directory held besides outputs is skipped and
counted by reason.

A module of its own, not the runner's: it measures nothing, it only hands outputs to the store and
the runs to the doctor.
"""

from __future__ import annotations

import gc
import hashlib
import signal
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from iolab.errors import RunFailed, UserError
from iolab.imports.discover import FORMATS, Candidate, Found, discover
from iolab.imports.fio_files import FioFile, store_fio
from iolab.imports.reading import Reading
from iolab.imports.sessions import Sessions
from iolab.imports.tool_files import ToolFile, store_tool
from iolab.store.db import PackedFindings, Store
from iolab.store.provenance import Provenance, describe_imported_run, record_provenance, runs_holding

__all__ = ["ImportOutcome", "import_paths", "report_lines"]

# New objects between two of the cyclic collector's passes over the young ones during an import (700 by default).
YOUNG_OBJECTS = 50_000
# Files stored in one transaction: a commit per file took 13% of importing 1,000 json+ outputs; a killed
# import keeps the batches it finished.
BATCH = 100


@dataclass
class ImportedRun:
    run_id: int
    label: str
    points: int = 0
    files: int = 0


@dataclass
class ImportOutcome:
    runs: list[ImportedRun] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=dict)  # reason -> paths
    logs: int = 0  # fio logs found in directories, read with the outputs that name them
    log_rows: int = 0  # rows of the logs stored (0 with --no-logs)
    with_logs: bool = True
    already: list[tuple[str, int]] = field(default_factory=list)  # (path, run holding its bytes)
    notes: list[str] = field(default_factory=list)

    @property
    def run_ids(self) -> list[int]:
        return [run.run_id for run in self.runs]

    @property
    def run_id(self) -> int | None:
        return self.runs[0].run_id if self.runs else None

    @property
    def points(self) -> int:
        return sum(run.points for run in self.runs)

    @property
    def files(self) -> int:
        return sum(run.files for run in self.runs)


def import_paths(
    paths: list[str], store: Store, command: str, logs: bool = True, progress: Progress | None = None
) -> ImportOutcome:
    """Import every benchmark output under `paths`: a run per tool and sitting, with each point's provenance.

    `logs` off leaves fio's logs unread; `progress` is told of each file stored (done, of how many).
    Files are parsed in order, by a second process on a large import (`imports.reading`), and stored
    as they come, a batch of files a transaction.
    """
    # What is loaded by now (modules, the rules) is kept out of the cyclic collector's passes while the import
    # runs: they re-walked it all as the import made its ~100k objects per 1,000 files (40-60 ms of such an
    # import), and they would touch the pages a forked parsing process shares. Given back after, so nothing
    # frozen outlives the import uncollected (a store left unclosed in a cycle kept its WAL unmerged).
    gc.freeze()
    # The young objects' collections, every 700 allocations by default, were ~105 of 1,000 json+ outputs (~16 ms of
    # CPU), each finding most of its objects alive (the file being parsed): a few collections find the same cycles.
    thresholds = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS, *thresholds[1:])
    try:
        return _import(paths, store, command, logs, progress)
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def _import(paths: list[str], store: Store, command: str, logs: bool, progress: Progress | None) -> ImportOutcome:
    found = discover(paths)
    try:
        return _import_found(paths, store, command, logs, progress, found)
    finally:
        found.close()  # the folders of logs held since the walk


def _import_found(
    paths: list[str], store: Store, command: str, logs: bool, progress: Progress | None, found: Found
) -> ImportOutcome:
    if not found.candidates and not found.problems:
        raise UserError(f"no benchmark output ({FORMATS}) found in {', '.join(paths)}; {skipped_text(found.skipped)}")
    outcome = ImportOutcome(problems=list(found.problems), skipped=found.skipped, logs=found.logs, with_logs=logs)
    fresh = _not_imported_before(store, found.candidates, outcome)
    runs: dict[tuple[str, int | None], _RunBeingImported] = {}  # by tool and sitting (`imports.sessions`)
    to_read = [candidate for candidate, _ in fresh]
    with Reading(to_read, logs, logs_seen=found.log_paths if logs else None) as reading:
        try:
            _store_all(store, command, fresh, reading, runs, outcome, _Counter(len(fresh), progress))
        except KeyboardInterrupt:  # the batch being stored is rolled back (a run made in it too); the others stay
            _interrupted(store, runs)
        # judged by both processes (`Reading.judged`); Ctrl-C here stops the import as it stops the doctor
        findings = reading.judged(store, [(run.run.run_id, tool) for (tool, _), run in runs.items()])
    for ((tool, _), run), judged in zip(runs.items(), findings, strict=True):
        run.finish(store, tool, outcome, judged)
    return outcome


def _store_all(
    store: Store,
    command: str,
    fresh: list[tuple[Candidate, str]],
    reading: Reading,
    runs: dict[tuple[str, int | None], _RunBeingImported],
    outcome: ImportOutcome,
    counter: _Counter,
) -> None:
    """Every file parsed (by `reading`) stored in its tool's run of its sitting, a batch of files a transaction."""
    sessions = Sessions()
    digests = [digest for _, digest in fresh]
    parsed_files = iter(reading)
    for start in range(0, len(fresh), BATCH):
        with ExitStack() as held:
            with store.transaction():  # files' points and where they came from, a batch of files a commit
                for digest, parsed in zip(digests[start : start + BATCH], parsed_files, strict=False):
                    if isinstance(parsed, str):
                        outcome.problems.append(parsed)
                    else:
                        tool = "fio" if isinstance(parsed, FioFile) else parsed.output.tool
                        key = (tool, sessions.sitting(tool, parsed.span))
                        run = runs.get(key)
                        if run is None:
                            run = runs[key] = _RunBeingImported.start(store, command, tool, outcome)
                        run.store(store, parsed, digest, outcome)
                    counter.tick()
                held.enter_context(_ctrl_c_held())  # the commit and its count: both or neither
            for run in runs.values():
                run.settle()


def _interrupted(store: Store, runs: dict[tuple[str, int | None], _RunBeingImported]) -> NoReturn:
    """The runs with files committed described and closed as interrupted (the doctor does not keep the user
    waiting), and the import stopped, saying what was kept."""
    kept = {tool: run for tool, run in runs.items() if run.run.files}
    for (tool, _), run in kept.items():
        run.describe(store, tool)
        store.finish_run(run.run.run_id, "interrupted", f"interrupted by the user after {run.run.files} files")
    stored = ", ".join(f"{run.run.files} files in run {run.run.run_id}" for run in kept.values()) or "no file"
    raise RunFailed(
        f"import interrupted: {stored} stored and kept; `iolab import` of the same paths again stores the rest"
    ) from None


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Ctrl-C held back until the end (then delivered): a Ctrl-C during a batch's commit would otherwise stop the
    import after the commit and before the files were counted as the run's."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _not_imported_before(
    store: Store, candidates: list[Candidate], outcome: ImportOutcome
) -> list[tuple[Candidate, str]]:
    """The candidates to parse, with their SHA-256: not those whose bytes a run holds already (named in
    `outcome.already`), nor a second file with the same bytes as another here (skipped)."""
    digests = [hashlib.sha256(candidate.data).hexdigest() for candidate in candidates]
    earlier = runs_holding(store, digests)
    fresh: list[tuple[Candidate, str]] = []
    seen: set[str] = set()
    for candidate, digest in zip(candidates, digests, strict=True):
        if digest in earlier:
            outcome.already.append((str(candidate.path), earlier[digest]))
        elif digest in seen:
            outcome.skipped.setdefault("the same bytes as another file here", []).append(str(candidate.path))
        else:
            seen.add(digest)
            fresh.append((candidate, digest))
    return fresh


# Told after each file is stored: (files done, files in all).
Progress = Callable[[int, int], None]


@dataclass
class _Counter:
    total: int
    progress: Progress | None
    done: int = 0

    def tick(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)


@dataclass
class _RunBeingImported:
    """One tool's run, made when its first file is parsed and described once its last is stored (its label
    names the versions of all its files)."""

    run: ImportedRun  # its points and files: those committed
    files: list[str] = field(default_factory=list)
    versions: dict[str, None] = field(default_factory=dict)  # in the order first seen
    began: list[float] = field(default_factory=list)
    hosts: dict[str, None] = field(default_factory=dict)  # the hosts its outputs name (fio's client mode)
    # stored, not yet committed: (path, version, when it ran, points); not the parsed file, whose logs can be large
    pending: list[tuple[str, str, float | None, int]] = field(default_factory=list)

    @classmethod
    def start(cls, store: Store, command: str, tool: str, outcome: ImportOutcome) -> _RunBeingImported:
        run = ImportedRun(store.create_run(f"import {tool}", command, [], ""), f"import {tool}")
        outcome.runs.append(run)
        return cls(run)

    def store(self, store: Store, parsed: FioFile | ToolFile, digest: str, outcome: ImportOutcome) -> None:
        if isinstance(parsed, FioFile):
            self.hosts.update(dict.fromkeys(host for job in parsed.jobs for host in job.hosts if host))
            ids, rows = store_fio(store, self.run.run_id, parsed)
            outcome.log_rows += rows
            tool = "fio"
        else:
            ids = store_tool(store, self.run.run_id, parsed)
            outcome.notes += [f"{parsed.path}: {note}" for note in parsed.output.notes]
            tool = parsed.output.tool
        record_provenance(store, ids, Provenance(parsed.source, digest, tool, parsed.version))
        self.pending.append((str(parsed.path), parsed.version, parsed.started, len(ids)))

    def settle(self) -> None:
        """The files stored since the last commit count as the run's: they are committed now."""
        for path, version, started, points in self.pending:
            self.files.append(path)
            self.versions.update(dict.fromkeys(v for v in version.split(", ") if v))
            if started is not None:
                self.began.append(started)
            self.run.points += points
            self.run.files += 1
        self.pending.clear()

    def finish(self, store: Store, tool: str, outcome: ImportOutcome, findings: PackedFindings) -> None:
        """Keep the run's findings (`judging.findings_of`), close it and describe it."""
        store.save_findings(self.run.run_id, findings)
        store.finish_run(
            self.run.run_id, "complete" if not outcome.problems else "partial", "; ".join(outcome.problems)
        )
        self.describe(store, tool)

    def describe(self, store: Store, tool: str) -> None:
        """The run's label (the versions of its files), its files, and its dates: when its tool ran."""
        versions = list(self.versions)
        shown = ", ".join(versions[:3]) + (f" (+{len(versions) - 3})" if len(versions) > 3 else "")
        self.run.label = "import " + (shown or tool)
        fio_versions = ", ".join(versions) if tool == "fio" else ""
        # The host its tool ran on, where its outputs name one; never this machine, which only imported them.
        host = next(iter(self.hosts)) if len(self.hosts) == 1 else f"{len(self.hosts)} hosts" if self.hosts else ""
        describe_imported_run(store, self.run.run_id, self.run.label, self.files, fio_versions, self.began, host)


def skipped_text(skipped: dict[str, list[str]], names: int = 3) -> str:
    """What was skipped, by reason with a few names: "skipped 5 files: 3 not text (a.png, b.png, ...), ..."."""
    if not skipped:
        return "nothing else was there"
    parts = []
    for reason, paths in sorted(skipped.items(), key=lambda item: -len(item[1])):
        # folder and name: a harness repeats names (README.md, result.json) across folders
        shown = ", ".join("/".join(Path(p).parts[-2:]) for p in paths[:names]) + (", ..." if len(paths) > names else "")
        parts.append(f"{len(paths)} {reason} ({shown})")
    return f"skipped {sum(len(p) for p in skipped.values())} files: " + "; ".join(parts)


def report_lines(outcome: ImportOutcome) -> list[str]:
    """What an import did, for the user: each run made, what was imported before, what was skipped and why."""
    lines = [
        f"Imported {run.points} point{'s' * (run.points != 1)} from {run.files} file{'s' * (run.files != 1)} as run {run.run_id}"
        f" ({run.label}; `iolab show {run.run_id}`)"
        for run in outcome.runs
    ]
    lines += _already_lines(outcome.already)
    lines += _log_lines(outcome)
    if outcome.skipped:
        text = skipped_text(outcome.skipped)
        lines.append(text[0].upper() + text[1:])
    lines += outcome.notes
    return lines


def _already_lines(already: list[tuple[str, int]]) -> list[str]:
    """The files not stored again, by the run holding their bytes (a few names each)."""
    by_run: dict[int, list[str]] = {}
    for path, run_id in already:
        by_run.setdefault(run_id, []).append(path.rsplit("/", 1)[-1])
    return [
        f"Already imported as run {run_id}, not stored again: "
        + ", ".join(names[:3])
        + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        for run_id, names in sorted(by_run.items())
    ]


def _log_lines(outcome: ImportOutcome) -> list[str]:
    """fio's logs: found and not read (--no-logs), or found and how many of their rows were stored."""
    if outcome.logs and not outcome.with_logs:
        return [f"{outcome.logs} fio log files found, not read (--no-logs)"]
    if not (outcome.logs or outcome.log_rows):
        return []
    found = f"{outcome.logs} fio log files found, read with the outputs that name them" if outcome.logs else ""
    rows = f"{outcome.log_rows:,} log rows stored" if outcome.log_rows else ""
    return ["; ".join(part for part in (found, rows) if part)]
